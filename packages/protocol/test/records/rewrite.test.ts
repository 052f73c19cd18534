import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  computeBatchCrc,
  encodeRecordBatch,
  lastOffsetOf,
  readBatchHeader,
  readRecords,
  setBaseOffset,
  setLogAppendTime,
  setMaxTimestamp,
  setPartitionLeaderEpoch,
  timestampTypeOf,
  TimestampType,
  validateBatches,
} from '../../src/records/index.js';
import { utf8 } from './record-test-helpers.js';

function sampleBatch(): Buffer {
  return encodeRecordBatch({
    records: [
      { key: utf8('a'), value: utf8('1'), timestamp: 5000n },
      { key: utf8('b'), value: utf8('2'), timestamp: 4000n },
    ],
  });
}

test('setBaseOffset and setPartitionLeaderEpoch leave the CRC untouched and valid', () => {
  const prefix = Buffer.alloc(17, 0xee); // the batch need not start at 0
  const buf = Buffer.concat([prefix, sampleBatch()]);
  const crcBefore = buf.readUInt32BE(17 + 17);
  setBaseOffset(buf, 17, 9_007_199_254_740_993n);
  setPartitionLeaderEpoch(buf, 17, 42);
  assert.equal(buf.readUInt32BE(17 + 17), crcBefore);
  const header = readBatchHeader(buf, 17)!;
  assert.equal(header.baseOffset, 9_007_199_254_740_993n);
  assert.equal(header.partitionLeaderEpoch, 42);
  assert.equal(lastOffsetOf(header), 9_007_199_254_740_994n);
  assert.equal(computeBatchCrc(buf, 17), header.crc);
  assert.deepEqual(
    [...readRecords(buf, header)].map((r) => r.offset),
    [9_007_199_254_740_993n, 9_007_199_254_740_994n],
  );
  assert.deepEqual(buf.subarray(0, 17), prefix);
});

test('setLogAppendTime sets the type bit and maxTimestamp, keeps baseTimestamp, recomputes the CRC', () => {
  const buf = sampleBatch();
  const before = readBatchHeader(buf, 0)!;
  setLogAppendTime(buf, 0, 123_456n);
  const after = readBatchHeader(buf, 0)!;
  assert.notEqual(after.crc, before.crc);
  assert.equal(computeBatchCrc(buf, 0), after.crc);
  assert.ok(validateBatches(buf).ok);
  assert.equal(timestampTypeOf(after.attributes), TimestampType.LogAppendTime);
  assert.equal(after.attributes & ~0x08, before.attributes);
  assert.equal(after.maxTimestamp, 123_456n);
  assert.equal(after.baseTimestamp, before.baseTimestamp);
  // Readers take every record's timestamp from maxTimestamp under LogAppendTime.
  assert.deepEqual(
    [...readRecords(buf, after)].map((r) => r.timestamp),
    [123_456n, 123_456n],
  );
});

test('setMaxTimestamp is a no-op (no CRC pass, bytes identical) when nothing changes, and can go back to CreateTime', () => {
  const buf = sampleBatch();
  const copy = Buffer.from(buf);
  setMaxTimestamp(buf, 0, TimestampType.CreateTime, 5000n);
  assert.deepEqual(buf, copy);
  setLogAppendTime(buf, 0, 1n);
  setMaxTimestamp(buf, 0, TimestampType.CreateTime, 5000n);
  assert.deepEqual(buf, copy);
});

test('rewrites refuse a batch that does not fit in the buffer', () => {
  const buf = sampleBatch();
  assert.throws(() => setBaseOffset(buf.subarray(0, 60), 0, 1n), RangeError);
  assert.throws(() => setLogAppendTime(buf.subarray(0, buf.length - 1), 0, 1n), RangeError);
  assert.throws(() => setPartitionLeaderEpoch(buf, 5, 1), RangeError);
});
