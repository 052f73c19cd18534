/**
 * Hostile compressed input must never crash the process or escape the output bound: every
 * outcome is a buffer within the limit or KafkaError CORRUPT_MESSAGE, and `decompressTransient`
 * (reused memory, zlib for gzip) accepts and refuses exactly what `decompress` does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { CompressionCodec, compress, decompress, decompressTransient } from '../../../src/native/index.js';
import { jsonRecords } from './json-records-helper.js';

const CODECS = [CompressionCodec.Gzip, CompressionCodec.Snappy, CompressionCodec.Lz4, CompressionCodec.Zstd] as const;
const LIMIT = 64 * 1024;

/** The output, or null for CORRUPT_MESSAGE; anything else thrown fails the test. */
function outcome(codec: (typeof CODECS)[number], run: () => Buffer, limit: number): Buffer | null {
  try {
    const out = run();
    assert.ok(out.length <= limit);
    return out;
  } catch (error) {
    assert.ok(error instanceof KafkaError && error.code === 2, `codec ${codec}: unexpected ${String(error)}`);
    return null;
  }
}

function decompressesSafely(codec: (typeof CODECS)[number], data: Uint8Array, limit: number): void {
  const kept = outcome(codec, () => decompress(codec, data, limit), limit);
  const transient = outcome(codec, () => decompressTransient(codec, data, limit), limit);
  assert.equal(
    transient === null,
    kept === null,
    `codec ${codec}: decompress ${kept === null ? 'refused' : 'read'} what decompressTransient did not`,
  );
  if (kept !== null && transient !== null) assert.ok(transient.equals(kept), `codec ${codec}: different bytes`);
}

test('random bytes, with and without a valid frame header', () => {
  const headers = CODECS.map((codec) => compress(codec, Buffer.alloc(0)).subarray(0, 16));
  fc.assert(
    fc.property(fc.constantFrom(...CODECS), fc.uint8Array({ maxLength: 2048 }), fc.boolean(), (codec, body, withHeader) => {
      const data = withHeader ? Buffer.concat([headers[CODECS.indexOf(codec)]!, body]) : body;
      decompressesSafely(codec, data, LIMIT);
    }),
    { numRuns: 4000 },
  );
});

test('valid frames with bytes flipped, cut or inserted', () => {
  const samples = CODECS.map((codec) => compress(codec, jsonRecords(40)));
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: CODECS.length - 1 }),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 8 }),
      fc.nat(),
      fc.integer({ min: 1, max: 1 << 20 }),
      (index, flips, cut, limit) => {
        const frame = Buffer.from(samples[index]!);
        for (const [position, mask] of flips) frame[position % frame.length]! ^= mask;
        decompressesSafely(CODECS[index]!, frame.subarray(0, frame.length - (cut % 8)), limit);
      },
    ),
    { numRuns: 3000 },
  );
});
