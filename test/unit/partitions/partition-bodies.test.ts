/**
 * Every declared ring body of the partition ops round-trips arbitrary values: the values are
 * generated from the declaration itself, so a body added later is covered without a new test.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { MessageBody } from '../../../src/ipc/ring-channel.js';
import { PartitionOps } from '../../../src/partitions/partition-protocol.js';
import type { DeclaredBody, Shape } from '../../../src/worker-pool/body-schema.js';
import type { WorkerOp } from '../../../src/worker-pool/worker-op.js';

const MAX_INT64 = 2n ** 63n - 1n;

function arbitrary(shape: Shape): fc.Arbitrary<unknown> {
  switch (shape.kind) {
    case 'int8':
      return fc.integer({ min: -128, max: 127 });
    case 'int16':
      return fc.integer({ min: -32768, max: 32767 });
    case 'int32':
      return fc.integer({ min: -2147483648, max: 2147483647 });
    case 'uint32':
      return fc.integer({ min: 0, max: 4294967295 });
    case 'int64':
      return fc.bigInt({ min: -MAX_INT64 - 1n, max: MAX_INT64 });
    case 'offset':
      return fc.maxSafeInteger();
    case 'float64':
      return fc.double();
    case 'bool':
      return fc.boolean();
    case 'string':
      return fc.string({ unit: 'grapheme', maxLength: 12 });
    case 'bytes':
    case 'ownBytes':
    case 'frameBytes':
      return fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b));
    case 'enum':
      return fc.constantFrom(...shape.values);
    case 'nullable':
      return fc.option(arbitrary(shape.inner), { nil: null });
    case 'optional':
      return fc.option(arbitrary(shape.inner), { nil: undefined });
    case 'array':
      return fc.array(arbitrary(shape.item), { maxLength: 3 });
    case 'struct':
      // Every key present: one left out decodes as undefined, which is what `optional` generates.
      return fc.record(Object.fromEntries(shape.fields.map(([name, s]) => [name, arbitrary(s)])), { noNullPrototype: true });
  }
}

function inRing(body: MessageBody | Uint8Array | void): Uint8Array {
  if (body === undefined) return new Uint8Array(0);
  if (body instanceof Uint8Array) return body;
  return Buffer.concat([...(body.payloads ?? [])]);
}

/** The declared bodies by name (the administrative ops carry JSON). */
const bodies: [string, DeclaredBody<unknown>][] = [];
for (const op of Object.values(PartitionOps) as WorkerOp<unknown, unknown>[]) {
  for (const [side, codec] of [
    ['request', op.request],
    ['reply', op.reply],
  ] as const) {
    if ('declaration' in codec) bodies.push([`${op.name} ${side}`, codec as DeclaredBody<unknown>]);
  }
}

test('the hot ops, the follower ops and the commit waits have declared bodies', () => {
  const names = new Set(bodies.map(([name]) => name));
  for (const op of [
    'append',
    'read',
    'release',
    'listOffset',
    'readBytes',
    'writeTxnMarkers',
    'appendAsFollower',
    'truncate',
    'awaitCommit',
  ]) {
    assert.ok(names.has(`${op} request`), op);
  }
});

for (const [name, codec] of bodies) {
  test(`${name}: arbitrary values decode as they were encoded`, () => {
    fc.assert(
      fc.property(arbitrary(codec.declaration.shape), (value) => {
        assert.deepEqual(codec.decode(inRing(codec.encode(value))), value);
      }),
      { numRuns: 200 },
    );
  });
}
