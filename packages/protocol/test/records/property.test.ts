/**
 * Property tests: random batches survive encode → validate → decode unchanged, random,
 * truncated or mutated bytes only ever produce `RecordValidationError`, and the produce path's
 * record scan refuses exactly what the full decoder refuses.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  BatchScan,
  checkBatchRecords,
  CompressionType,
  decodeAttributes,
  encodeRecordBatch,
  readBatchHeader,
  readRecords,
  RecordValidationError,
  TimestampType,
  timestampTypeOf,
  validateBatches,
  validateProduceRecords,
  writeBatchCrc,
  type BatchHeader,
  type DecodedRecord,
  type RecordBatchInput,
  type RecordInput,
} from '../../src/records/index.js';
import { gzipCompressor, gzipDecompressor } from './record-test-helpers.js';

const bytes = fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a));
const nullableBytes = fc.option(bytes, { nil: null, freq: 4 });
const timestamp = fc.oneof(fc.constant(-1n), fc.bigInt({ min: 0n, max: 2n ** 50n }));

const recordArb: fc.Arbitrary<Omit<RecordInput, 'offsetDelta'>> = fc.record({
  key: nullableBytes,
  value: nullableBytes,
  headers: fc.array(
    fc.tuple(fc.string({ unit: 'grapheme', maxLength: 8 }), nullableBytes).map(([key, value]) => ({ key, value })),
    { maxLength: 3 },
  ),
  timestamp,
});

const batchArb: fc.Arbitrary<RecordBatchInput> = fc
  .record({
    baseOffset: fc.bigInt({ min: 0n, max: 2n ** 62n }),
    partitionLeaderEpoch: fc.integer({ min: -1, max: 0x7fffffff }),
    compression: fc.constantFrom(CompressionType.None, CompressionType.Gzip),
    producerId: fc.bigInt({ min: -1n, max: 2n ** 63n - 1n }),
    producerEpoch: fc.integer({ min: -1, max: 0x7fff }),
    baseSequence: fc.integer({ min: -1, max: 0x7fffffff }),
    isTransactional: fc.boolean(),
    records: fc.array(fc.tuple(recordArb, fc.integer({ min: 1, max: 1000 })), { minLength: 1, maxLength: 40 }),
    gaps: fc.boolean(),
  })
  .map(({ records, gaps, ...rest }) => {
    let delta = -1;
    const withDeltas = records.map(([record, step]) => {
      delta += gaps ? step : 1;
      return { ...record, offsetDelta: delta };
    });
    return { ...rest, records: withDeltas };
  });

function expectedMax(records: readonly RecordInput[]): bigint {
  return records.reduce((max, r) => (r.timestamp > max ? r.timestamp : max), -1n);
}

test('encode → validate → decode round-trips random batches', () => {
  fc.assert(
    fc.property(batchArb, (input) => {
      const buf = encodeRecordBatch(input, gzipCompressor);
      const result = validateBatches(buf);
      assert.ok(result.ok, result.ok ? '' : result.error.message);
      assert.equal(result.batches.length, 1);
      const header = result.batches[0]!;
      const last = input.records[input.records.length - 1]!;
      assert.equal(header.end, buf.length);
      assert.equal(header.baseOffset, input.baseOffset);
      assert.equal(header.partitionLeaderEpoch, input.partitionLeaderEpoch);
      assert.equal(header.producerId, input.producerId);
      assert.equal(header.producerEpoch, input.producerEpoch);
      assert.equal(header.baseSequence, input.baseSequence);
      assert.equal(header.recordsCount, input.records.length);
      assert.equal(header.lastOffsetDelta, last.offsetDelta);
      assert.equal(header.baseTimestamp, input.records[0]!.timestamp);
      assert.equal(header.maxTimestamp, expectedMax(input.records));
      assert.equal(decodeAttributes(header.attributes)?.compression, input.compression);
      assert.equal(decodeAttributes(header.attributes)?.isTransactional, input.isTransactional);

      const decoded = [...readRecords(buf, header, { decompress: gzipDecompressor })];
      assert.deepEqual(
        decoded,
        input.records.map((r) => ({
          offset: input.baseOffset! + BigInt(r.offsetDelta!),
          timestamp: r.timestamp,
          key: r.key,
          value: r.value,
          headers: r.headers,
        })),
      );
    }),
    { numRuns: 300 },
  );
});

test('the scan agrees with the decoder on random well-formed batches (gaps, keys, timestamps)', () => {
  fc.assert(
    fc.property(batchArb, (input) => {
      const buf = encodeRecordBatch(input, gzipCompressor);
      assertScanAgrees(buf, readBatchHeader(buf, 0)!);
    }),
    { numRuns: 300 },
  );
});

test('a large batch (20,000 records) round-trips and validates as a produce request', () => {
  const records = Array.from({ length: 20_000 }, (_, i) => ({
    key: i % 7 === 0 ? null : Buffer.from([i & 0xff, i >> 8]),
    value: Buffer.alloc(i % 50, i & 0xff),
    timestamp: 1_700_000_000_000n + BigInt((i * 7919) % 5000) - 2500n,
  }));
  const buf = encodeRecordBatch({ records });
  const result = validateProduceRecords(buf, { records: { requireKeys: false } });
  assert.ok(result.ok);
  let n = 0;
  for (const r of readRecords(buf, result.batch)) {
    assert.equal(r.offset, BigInt(n));
    assert.deepEqual(r.value, records[n]!.value);
    n++;
  }
  assert.equal(n, records.length);
});

/** Runs every entry point over `buf`; anything thrown other than RecordValidationError fails. */
function exerciseDecoder(buf: Buffer): void {
  validateBatches(buf);
  validateProduceRecords(buf, { records: { decompress: gzipDecompressor, maxDecompressedBytes: 1 << 16 } });
  const headers: BatchHeader[] = [];
  try {
    for (const h of new BatchScan(buf)) headers.push(h);
  } catch (e) {
    if (!(e instanceof RecordValidationError)) throw e;
  }
  for (const header of headers) {
    try {
      for (const record of readRecords(buf, header, { decompress: gzipDecompressor, maxDecompressedBytes: 1 << 16 })) {
        assert.ok(record.key === null || record.key.length <= buf.length);
      }
    } catch (e) {
      if (!(e instanceof RecordValidationError)) throw e;
    }
    assertScanAgrees(buf, header);
  }
}

const WINDOW = { now: 2n ** 49n, beforeMaxMs: 2n ** 48n, afterMaxMs: 1000n };

/**
 * `checkBatchRecords` walks the records without decoding them (the produce path's scan); the
 * full decoder is the reference. Both refuse a batch with the same error, or both read it, and
 * then the scan's policy faults are those of the decoded records.
 */
function assertScanAgrees(buf: Buffer, header: BatchHeader): void {
  const options = { decompress: gzipDecompressor, maxDecompressedBytes: 1 << 16 };
  let decoded: DecodedRecord[] | RecordValidationError;
  try {
    decoded = [...readRecords(buf, header, options)];
  } catch (e) {
    if (!(e instanceof RecordValidationError)) throw e;
    decoded = e;
  }
  const checked = checkBatchRecords(buf, header, { ...options, requireKeys: true, timestampWindow: WINDOW });
  if (decoded instanceof RecordValidationError) {
    assert.equal(checked?.message, decoded.message);
    assert.equal(checked?.code, decoded.code);
    assert.equal(checked?.recordIndex, decoded.recordIndex);
    return;
  }
  const createTime = timestampTypeOf(header.attributes) === TimestampType.CreateTime;
  const outside = (t: bigint): boolean => t !== -1n && (WINDOW.now - t > WINDOW.beforeMaxMs || t - WINDOW.now > WINDOW.afterMaxMs);
  const expected = decoded.flatMap((r, i) =>
    r.offset - header.baseOffset !== BigInt(i) || r.key === null || (createTime && outside(r.timestamp)) ? [i] : [],
  );
  assert.deepEqual(checked?.recordErrors.map((e) => e.batchIndex) ?? [], expected);
}

/** Recomputes the CRC where the mutated header still frames a batch, so the records get parsed. */
function refreshCrc(buf: Buffer): void {
  try {
    if (readBatchHeader(buf, 0) !== null) writeBatchCrc(buf, 0);
  } catch (e) {
    if (!(e instanceof RecordValidationError)) throw e;
  }
}

test('fuzz: random bytes only produce typed errors', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), (a) => exerciseDecoder(Buffer.from(a))),
    { numRuns: 2000 },
  );
});

test('fuzz: random bytes behind a plausible v2 header (CRC fixed) only produce typed errors', () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 0, maxLength: 200 }),
      fc.integer({ min: -5, max: 300 }),
      fc.integer({ min: 0, max: 7 }),
      (body, count, codec) => {
        const buf = Buffer.alloc(61 + body.length);
        buf.writeInt32BE(49 + body.length, 8);
        buf.writeInt8(2, 16);
        buf.writeInt16BE(codec, 21);
        buf.writeInt32BE(count - 1, 23);
        buf.writeInt32BE(count, 57);
        buf.set(body, 61);
        writeBatchCrc(buf, 0);
        exerciseDecoder(buf);
      },
    ),
    { numRuns: 2000 },
  );
});

test('fuzz: truncated and mutated valid batches (CRC re-fixed so records are parsed) only produce typed errors', () => {
  fc.assert(
    fc.property(
      batchArb,
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }),
      fc.nat(),
      fc.boolean(),
      (input, mutations, cut, fixCrc) => {
        const buf = encodeRecordBatch(input, gzipCompressor);
        for (const [at, value] of mutations) buf[at % buf.length] = value;
        if (fixCrc) refreshCrc(buf);
        exerciseDecoder(buf);
        exerciseDecoder(buf.subarray(0, cut % (buf.length + 1)));
      },
    ),
    { numRuns: 1000 },
  );
});
