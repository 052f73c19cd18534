import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { API_MESSAGES } from '@sluice/protocol/messages/index.js';
import { decodeRequestHeader } from '@sluice/protocol/envelope.js';
import { DecodeError } from '@sluice/protocol/primitives/decode-error.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import { Writer } from '@sluice/protocol/primitives/writer.js';
import type { MessageCodec } from '@sluice/protocol/primitives/codec-support.js';
import { isFlexible, structArbitrary } from '../../helpers/schema-arbitrary.js';

type AnyCodec = MessageCodec<unknown, Record<string, unknown>>;

/** Decoding must either succeed or throw DecodeError: never another exception, never a hang. */
function decodeOrDecodeError(codec: AnyCodec, bytes: Buffer, version: number): void {
  try {
    codec.read(new Reader(bytes), version);
  } catch (err) {
    if (!(err instanceof DecodeError)) throw err;
  }
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('splice' as const), at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 6 }) }),
);

interface Mutation {
  readonly kind: 'truncate' | 'flip' | 'splice';
  readonly at: number;
  readonly value?: number;
  readonly bytes?: Uint8Array;
}

function mutate(bytes: Buffer, ms: readonly Mutation[]): Buffer {
  let out = Buffer.from(bytes);
  for (const m of ms) {
    const at = out.length === 0 ? 0 : m.at % out.length;
    if (m.kind === 'truncate') out = out.subarray(0, at);
    else if (m.kind === 'flip' && out.length > 0) out[at] = m.value!;
    else if (m.kind === 'splice') out = Buffer.concat([out.subarray(0, at), Buffer.from(m.bytes!), out.subarray(at)]);
  }
  return out;
}

test('mutated and truncated request bodies of every API only ever yield DecodeError', () => {
  for (const api of API_MESSAGES) {
    const codec = api.request as unknown as AnyCodec;
    for (let version = codec.validVersions.lo; version <= codec.validVersions.hi; version++) {
      fc.assert(
        fc.property(
          structArbitrary(codec.schema, version, isFlexible(codec, version)),
          fc.array(mutation, { minLength: 1, maxLength: 3 }),
          (input, ms) => {
            const w = new Writer();
            codec.write(w, input, version);
            decodeOrDecodeError(codec, mutate(Buffer.from(w.finish()), ms), version);
          },
        ),
        { numRuns: 8 },
      );
    }
  }
});

test('random bytes as any request body or header only ever yield DecodeError', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat(), (bytes, pick) => {
      const api = API_MESSAGES[pick % API_MESSAGES.length]!;
      const range = api.request.validVersions;
      const version = range.lo + (pick % (range.hi - range.lo + 1));
      decodeOrDecodeError(api.request, Buffer.from(bytes), version);
      try {
        decodeRequestHeader(Buffer.from(bytes));
      } catch (err) {
        if (!(err instanceof DecodeError)) throw err;
      }
    }),
    { numRuns: 3000 },
  );
});

test('hostile element counts are refused before anything is allocated for them', () => {
  const api = API_MESSAGES.find((a) => a.apiKey === 3)!;
  // Metadata v12: compact array of topics claiming 2^31 - 2 elements in a 6-byte body.
  const body = Buffer.from([0xff, 0xff, 0xff, 0xff, 0x07, 0x00]);
  const before = process.memoryUsage().arrayBuffers;
  assert.throws(() => api.request.read(new Reader(body), 12), DecodeError);
  assert.ok(process.memoryUsage().arrayBuffers - before < 1 << 20);
});
