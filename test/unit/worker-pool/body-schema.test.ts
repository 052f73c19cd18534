/** The body compiler's own rules; every partition op's body round-trips in test/unit/partitions/partition-bodies.test.ts. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { array, body, bool, bytes, int32, nullable, string, struct } from '../../../src/worker-pool/body-schema.js';

interface Flags {
  readonly a: boolean;
  readonly b: boolean;
  readonly c: boolean;
  readonly name: string | null;
}

test('booleans and presence share one byte of bits; an absent value costs nothing more', () => {
  const codec = body(struct<Flags>({ a: bool, b: bool, c: bool, name: nullable(string) }));
  const encoded = codec.encode({ a: true, b: false, c: true, name: null });
  assert.deepEqual(encoded.payloads, [Buffer.from([0b101])]);
  assert.deepEqual(codec.decode(encoded.payloads[0]!), { a: true, b: false, c: true, name: null });
});

test('bytes go as a payload of their own, not copied into the encoding; decoded, they view the body', () => {
  const codec = body(array(struct<{ readonly id: number; readonly records: Buffer }>({ id: int32, records: bytes })));
  const records = Buffer.from('records');
  const encoded = codec.encode([{ id: 7, records }]);
  assert.equal(encoded.payloads![1], records, 'the caller’s buffer itself: copied once, into the ring');
  const wire = Buffer.concat([...encoded.payloads!]);
  const [decoded] = codec.decode(wire);
  assert.equal(decoded!.records.buffer, wire.buffer);
  assert.deepEqual(decoded, { id: 7, records });
});

test('a field name that is not an identifier, or a flag outside a struct, is refused when declared', () => {
  assert.throws(() => struct<{ readonly 'a-b': number }>({ 'a-b': int32 }), TypeError);
  assert.throws(() => body(array(bool)), /outside a struct/);
});
