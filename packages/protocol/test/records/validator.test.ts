import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BatchScan,
  checkBatchHeader,
  checkBatchRecords,
  CompressionType,
  encodeRecordBatch,
  readBatchHeader,
  readRecords,
  RecordErrorCode,
  RecordValidationError,
  validateBatches,
  validateProduceRecords,
  writeBatchCrc,
  type RecordBatchInput,
} from '../../src/records/index.js';
import { gzipCompressor, gzipDecompressor, utf8 } from './record-test-helpers.js';

function batch(overrides: Partial<RecordBatchInput> = {}, count = 3): Buffer {
  const records = Array.from({ length: count }, (_, i) => ({
    key: utf8(`k${i}`),
    value: utf8(`value ${i}`),
    timestamp: 1000n + BigInt(i),
  }));
  return encodeRecordBatch({ records, ...overrides }, gzipCompressor);
}

function expectError(result: { ok: boolean; error?: RecordValidationError }, code: number, pattern: RegExp): RecordValidationError {
  assert.equal(result.ok, false);
  const error = result.error!;
  assert.ok(error instanceof RecordValidationError);
  assert.equal(error.code, code, error.message);
  assert.match(error.message, pattern);
  return error;
}

test('a well-formed produce batch passes header and record checks', () => {
  const result = validateProduceRecords(batch(), { records: {} });
  assert.ok(result.ok);
  assert.equal(result.batch.recordsCount, 3);
  assert.equal(result.trailingBytes, 0);
});

test('bad CRC is CORRUPT_MESSAGE', () => {
  const buf = batch();
  buf[buf.length - 1]! ^= 0x01;
  expectError(validateProduceRecords(buf), RecordErrorCode.CorruptMessage, /CRC/);
});

test('a change inside the CRC range (attributes) is caught; outside it (leader epoch) is not', () => {
  const attrs = batch();
  attrs[22]! ^= 0x10;
  expectError(validateProduceRecords(attrs), RecordErrorCode.CorruptMessage, /CRC/);
  const epoch = batch();
  epoch.writeInt32BE(99, 12);
  assert.ok(validateProduceRecords(epoch).ok);
});

test('magic 0/1 is INVALID_RECORD (Produce v3+ rule); magic outside 0..2 is CORRUPT_MESSAGE', () => {
  for (const [magic, code] of [
    [0, RecordErrorCode.InvalidRecord],
    [1, RecordErrorCode.InvalidRecord],
    [3, RecordErrorCode.CorruptMessage],
    [-1, RecordErrorCode.CorruptMessage],
  ] as const) {
    const buf = batch();
    buf.writeInt8(magic, 16);
    expectError(validateProduceRecords(buf), code, /magic/);
  }
});

test('batch length below any format minimum is CORRUPT_MESSAGE; below the v2 header is CORRUPT_MESSAGE', () => {
  const tiny = batch();
  tiny.writeInt32BE(13, 8);
  expectError(validateProduceRecords(tiny), RecordErrorCode.CorruptMessage, /minimum/);
  const short = batch().subarray(0, 40);
  short.writeInt32BE(28, 8);
  expectError(validateProduceRecords(short), RecordErrorCode.CorruptMessage, /smaller than the 61-byte/);
});

test('truncated batch: produce sees no whole batch; a whole batch followed by a partial one is trimmed', () => {
  const buf = batch();
  expectError(validateProduceRecords(buf.subarray(0, buf.length - 1)), RecordErrorCode.InvalidRecord, /no whole record batch/);
  expectError(validateProduceRecords(buf.subarray(0, 5)), RecordErrorCode.InvalidRecord, /no whole record batch/);
  const withTail = Buffer.concat([buf, buf.subarray(0, 30)]);
  const result = validateProduceRecords(withTail);
  assert.ok(result.ok);
  assert.equal(result.trailingBytes, 30);
  assert.equal(result.batch.end, buf.length);
});

test('two whole batches in one produce partition are INVALID_RECORD', () => {
  expectError(validateProduceRecords(Buffer.concat([batch(), batch()])), RecordErrorCode.InvalidRecord, /only one batch/);
});

test('client rules: base offset 0, count vs lastOffsetDelta, no control batches, sequence with producer id', () => {
  expectError(validateProduceRecords(batch({ baseOffset: 7n })), RecordErrorCode.InvalidRecord, /base offset/);

  const mismatch = batch();
  mismatch.writeInt32BE(5, 23); // lastOffsetDelta
  writeBatchCrc(mismatch, 0);
  expectError(validateProduceRecords(mismatch), RecordErrorCode.InvalidRecord, /does not match 3 records/);

  const negative = batch();
  negative.writeInt32BE(-1, 23);
  writeBatchCrc(negative, 0);
  expectError(validateProduceRecords(negative), RecordErrorCode.InvalidRecord, /offset range/);

  const zeroCount = batch();
  zeroCount.writeInt32BE(0, 57);
  writeBatchCrc(zeroCount, 0);
  expectError(validateProduceRecords(zeroCount), RecordErrorCode.InvalidRecord, /record count 0/);

  expectError(validateProduceRecords(batch({ isControl: true })), RecordErrorCode.InvalidRecord, /control/);
  expectError(validateProduceRecords(batch({ producerId: 9n, producerEpoch: 0 })), RecordErrorCode.InvalidRecord, /base sequence -1/);
  assert.ok(validateProduceRecords(batch({ producerId: 9n, producerEpoch: 0, baseSequence: 0 })).ok);
});

test('internal origin accepts real offsets and control batches', () => {
  const buf = Buffer.concat([batch({ baseOffset: 100n }), batch({ baseOffset: 103n, isControl: true, isTransactional: true })]);
  const result = validateBatches(buf);
  assert.ok(result.ok);
  assert.deepEqual(
    result.batches.map((b) => b.baseOffset),
    [100n, 103n],
  );
  assert.equal(result.validBytes, buf.length);
});

test('validateBatches reports how many bytes precede the first bad batch', () => {
  const first = batch();
  const second = batch();
  second[70]! ^= 0xff;
  const result = validateBatches(Buffer.concat([first, second]));
  const error = expectError(result, RecordErrorCode.CorruptMessage, /CRC/);
  assert.equal(result.validBytes, first.length);
  assert.equal(error.batchStart, first.length);
});

test('oversized batch is MESSAGE_TOO_LARGE', () => {
  const buf = batch();
  expectError(validateProduceRecords(buf, { maxBatchBytes: buf.length - 1 }), RecordErrorCode.MessageTooLarge, /exceeds/);
  assert.ok(validateProduceRecords(buf, { maxBatchBytes: buf.length }).ok);
});

test('unknown compression codec 5..7 is CORRUPT_MESSAGE', () => {
  const buf = batch();
  buf.writeInt16BE(5, 21);
  writeBatchCrc(buf, 0);
  expectError(validateProduceRecords(buf), RecordErrorCode.CorruptMessage, /codec 5/);
});

test('declared count larger or smaller than the records present is INVALID_RECORD', () => {
  for (const count of [2, 4]) {
    const buf = batch();
    buf.writeInt32BE(count, 57);
    buf.writeInt32BE(count - 1, 23);
    writeBatchCrc(buf, 0);
    const error = expectError(validateProduceRecords(buf, { records: {} }), RecordErrorCode.InvalidRecord, /record|bytes/);
    assert.equal(error.batchStart, 0);
  }
});

test('record body length that disagrees with its fields is INVALID_RECORD with the record index', () => {
  const buf = batch();
  const header = readBatchHeader(buf, 0)!;
  buf[61] = buf[61]! + 2; // first record claims one more byte (zig-zag +1)
  const error = checkBatchRecords(buf, header);
  assert.ok(error instanceof RecordValidationError);
  assert.equal(error.code, RecordErrorCode.InvalidRecord);
  assert.equal(error.recordIndex, 0);
});

test('per-record policy: keys on compacted topics, timestamp window, offset deltas', () => {
  const keyless = encodeRecordBatch({
    records: [
      { key: utf8('a'), value: null, timestamp: 1n },
      { key: null, value: utf8('b'), timestamp: 2n },
    ],
  });
  const keyError = checkBatchRecords(keyless, readBatchHeader(keyless, 0)!, { requireKeys: true });
  assert.equal(keyError?.code, RecordErrorCode.InvalidRecord);
  assert.deepEqual(
    keyError?.recordErrors.map((e) => e.batchIndex),
    [1],
  );

  const window = { now: 10_000n, beforeMaxMs: 1000n, afterMaxMs: 100n };
  const times = encodeRecordBatch({
    records: [8_999n, 9_000n, 10_100n, 10_101n, -1n].map((timestamp) => ({ key: null, value: null, timestamp })),
  });
  const timeError = checkBatchRecords(times, readBatchHeader(times, 0)!, { timestampWindow: window });
  assert.equal(timeError?.code, RecordErrorCode.InvalidTimestamp);
  assert.deepEqual(
    timeError?.recordErrors.map((e) => e.batchIndex),
    [0, 3],
  );

  const gaps = encodeRecordBatch({
    records: [
      { key: null, value: null, timestamp: 1n, offsetDelta: 0 },
      { key: null, value: null, timestamp: 1n, offsetDelta: 2 },
    ],
  });
  const gapError = checkBatchRecords(gaps, readBatchHeader(gaps, 0)!);
  assert.equal(gapError?.code, RecordErrorCode.InvalidRecord);
  assert.deepEqual(
    gapError?.recordErrors.map((e) => e.batchIndex),
    [1],
  );
});

test('compressed batch: records are checked through the decompressor; garbage payload is CORRUPT_MESSAGE', () => {
  const buf = batch({ compression: CompressionType.Gzip }, 50);
  assert.ok(validateProduceRecords(buf, { records: { decompress: gzipDecompressor } }).ok);
  const bomb = checkBatchRecords(buf, readBatchHeader(buf, 0)!, { decompress: gzipDecompressor, maxDecompressedBytes: 100 });
  assert.equal(bomb?.code, RecordErrorCode.CorruptMessage);
  const garbage = Buffer.from(buf);
  garbage.fill(0x5a, 61);
  writeBatchCrc(garbage, 0);
  const error = expectError(
    validateProduceRecords(garbage, { records: { decompress: gzipDecompressor } }),
    RecordErrorCode.CorruptMessage,
    /decompress/,
  );
  assert.ok(error.cause instanceof Error);
});

test('BatchScan reports whole and trailing bytes', () => {
  const one = batch();
  const buf = Buffer.concat([one, one, one.subarray(0, 20)]);
  const scan = new BatchScan(buf);
  assert.deepEqual(
    [...scan].map((h) => h.start),
    [0, one.length],
  );
  assert.equal(scan.wholeBytes, 2 * one.length);
  assert.equal(scan.trailingBytes, 20);
  assert.equal(checkBatchHeader(buf, readBatchHeader(buf, one.length)!, { origin: 'internal' }), null);
});

/** Zig-zag varint bytes of `v`, padded with continuation bytes to `width` when given (a longer form of the same value). */
function zigzag(v: bigint, width = 0): number[] {
  let raw = v >= 0n ? v * 2n : -v * 2n - 1n;
  const out: number[] = [];
  do {
    out.push(Number(raw & 0x7fn) | 0x80);
    raw >>= 7n;
  } while (raw > 0n || out.length < width);
  out[out.length - 1]! &= 0x7f;
  return out;
}

/** One uncompressed batch around hand-made record bodies (each given without its length prefix). */
function rawBatch(bodies: readonly number[][], lengthOf: (body: number[]) => number[] = (b) => zigzag(BigInt(b.length))): Buffer {
  const template = encodeRecordBatch({ records: bodies.map(() => ({ key: null, value: null, timestamp: 1000n })) });
  const records = Buffer.from(bodies.flatMap((b) => [...lengthOf(b), ...b]));
  const buf = Buffer.concat([template.subarray(0, 61), records]);
  buf.writeInt32BE(buf.length - 12, 8);
  writeBatchCrc(buf, 0);
  return buf;
}

/** attributes, timestamp delta, offset delta, key, value, headers: a record body in wire order. */
function body(offsetDelta: number, parts: { timestamp?: number[]; key?: number[]; value?: number[]; headers?: number[] } = {}): number[] {
  return [
    0,
    ...(parts.timestamp ?? zigzag(0n)),
    ...zigzag(BigInt(offsetDelta)),
    ...(parts.key ?? zigzag(-1n)),
    ...(parts.value ?? zigzag(-1n)),
    ...(parts.headers ?? zigzag(0n)),
  ];
}

test('the produce scan refuses and accepts hand-made records exactly as the record decoder does', () => {
  const cases: Array<[string, Buffer]> = [
    ['plain records', rawBatch([body(0), body(1, { key: [...zigzag(2n), 7, 7], value: [...zigzag(1n), 9] })])],
    ['a key length below -1 is a null key', rawBatch([body(0, { key: zigzag(-5n) })])],
    ['a timestamp delta in 9 bytes', rawBatch([body(0, { timestamp: zigzag(2n ** 60n) })])],
    ['a timestamp delta padded to 5 bytes', rawBatch([body(0, { timestamp: zigzag(0n, 5) })])],
    ['headers with a null value', rawBatch([body(0, { headers: [...zigzag(1n), ...zigzag(1n), 104, ...zigzag(-1n)] })])],
    ['a body longer than the batch', rawBatch([body(0)], (b) => zigzag(BigInt(b.length + 50)))],
    ['a negative body length', rawBatch([body(0)], () => zigzag(-2n))],
    ['a key running past the body', rawBatch([body(0, { key: [...zigzag(40n), 1, 2] })])],
    ['a value running past the body', rawBatch([body(0, { value: [...zigzag(3n), 1] })])],
    ['more headers than bytes left', rawBatch([body(0, { headers: zigzag(30n) })])],
    ['a negative header count', rawBatch([body(0, { headers: zigzag(-1n) })])],
    ['a negative header key length', rawBatch([body(0, { headers: [...zigzag(1n), ...zigzag(-1n), ...zigzag(-1n)] })])],
    ['a varint of 6 bytes', rawBatch([body(0, { key: [0x80, 0x80, 0x80, 0x80, 0x80, 0x00] })])],
    ['a body with bytes left over', rawBatch([[...body(0), 0]])],
    ['a body cut inside its timestamp', rawBatch([[0, 0x80]])],
    ['an empty body', rawBatch([[]])],
    [
      'a record after the declared count',
      (() => {
        const buf = rawBatch([body(0), body(1)]);
        buf.writeInt32BE(1, 57);
        buf.writeInt32BE(0, 23);
        writeBatchCrc(buf, 0);
        return buf;
      })(),
    ],
    ['an offset delta out of place', rawBatch([body(0), body(5)])],
  ];
  for (const [what, buf] of cases) {
    const header = readBatchHeader(buf, 0)!;
    let decoded: RecordValidationError | null = null;
    try {
      for (const record of readRecords(buf, header)) assert.ok(record.offset >= 0n);
    } catch (e) {
      if (!(e instanceof RecordValidationError)) throw e;
      decoded = e;
    }
    const scanned = checkBatchRecords(buf, header);
    if (decoded === null) {
      assert.ok(scanned === null || scanned.recordErrors.length > 0, `${what}: accepted by the decoder, structurally accepted by the scan`);
      continue;
    }
    assert.equal(scanned?.message, decoded.message, what);
    assert.equal(scanned?.recordIndex, decoded.recordIndex, what);
  }
});

test("the timestamp window with Kafka's defaults: no bound in the past, an hour ahead, records without a timestamp exempt", () => {
  const now = 1_700_000_000_000n;
  const window = { now, beforeMaxMs: 2n ** 63n - 1n, afterMaxMs: 3_600_000n };
  const timestamps = [0n, now, now + 3_600_000n, now + 3_600_001n, -1n, 2n ** 60n];
  const buf = encodeRecordBatch({ records: timestamps.map((timestamp) => ({ key: null, value: null, timestamp })) });
  const error = checkBatchRecords(buf, readBatchHeader(buf, 0)!, { timestampWindow: window });
  assert.equal(error?.code, RecordErrorCode.InvalidTimestamp);
  assert.deepEqual(
    error?.recordErrors.map((e) => e.batchIndex),
    [3, 5],
  );
});
