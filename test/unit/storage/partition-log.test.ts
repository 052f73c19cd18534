import { test } from 'node:test';
import { offsetOf } from '@sluice/protocol/common/offsets.js';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { readBatchHeader, TimestampType, timestampTypeOf } from '@sluice/protocol/records/index.js';
import { FakeClock, decodeBatches, openLog, producedBatch, tempDir } from './storage-fixtures.js';

const root = tempDir('plog');
process.on('exit', root.remove);
let n = 0;
const fresh = (): string => join(root.path, String(n++));

test('append assigns offsets in place, writes Kafka-named files, reads back byte for byte', () => {
  const dir = fresh();
  const clock = new FakeClock();
  const log = openLog(dir, clock);
  const first = producedBatch(3, 10, clock.nowMs);
  const r1 = log.append(first, { leaderEpoch: 7 });
  assert.deepEqual([r1.baseOffset, r1.lastOffset, r1.logAppendTimeMs, r1.logStartOffset, r1.recordCount], [0, 2, -1, 0, 3]);
  const r2 = log.append(producedBatch(2, 10, clock.nowMs, 1), { leaderEpoch: 7 });
  assert.deepEqual([r2.baseOffset, r2.lastOffset], [3, 4]);
  assert.equal(log.logEndOffset, 5);
  const header = readBatchHeader(first, 0)!;
  assert.equal(header.baseOffset, 0n);
  assert.equal(header.partitionLeaderEpoch, 7);
  const names = readdirSync(join(dir, 't-0')).sort();
  assert.deepEqual(names, [
    '00000000000000000000.index',
    '00000000000000000000.log',
    '00000000000000000000.timeindex',
    'leader-epoch-checkpoint',
  ]);
  const onDisk = readFileSync(join(dir, 't-0', '00000000000000000000.log'));
  assert.ok(onDisk.subarray(0, first.length).equals(first));
  const all = log.readBuffer(offsetOf(0), 1 << 20);
  assert.ok(all.equals(onDisk));
  const batches = decodeBatches(log.readBuffer(offsetOf(3), 1 << 20));
  assert.deepEqual(
    batches.map((b) => [b.baseOffset, b.lastOffset]),
    [[3, 4]],
  );
  assert.equal(readFileSync(join(dir, 't-0', 'leader-epoch-checkpoint'), 'utf8'), '0\n1\n7 0\n');
  log.close();
});

test('a read from the middle of a batch returns the whole batch; maxBytes; KIP-74; high watermark bound', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock);
  const sizes: number[] = [];
  for (let i = 0; i < 5; i++) {
    const b = producedBatch(4, 100, clock.nowMs, i);
    sizes.push(b.length);
    log.append(b, { leaderEpoch: 0 });
  }
  assert.deepEqual(
    decodeBatches(log.readBuffer(offsetOf(6), 1 << 20)).map((b) => b.baseOffset),
    [4, 8, 12, 16],
  );
  const small = log.read(offsetOf(0), 10)!;
  assert.equal(small.length, sizes[0]);
  small.release();
  const none = log.read(offsetOf(0), 10, { minOneMessage: false })!;
  assert.equal(none.length, 10);
  none.release();
  assert.equal(log.readBuffer(offsetOf(0), sizes[0]! + 5).length, sizes[0]! + 5);
  assert.deepEqual(
    decodeBatches(log.readBuffer(offsetOf(0), 1 << 20, { maxOffsetExclusive: 8 })).map((b) => b.baseOffset),
    [0, 4],
  );
  assert.equal(log.read(offsetOf(8), 1 << 20, { maxOffsetExclusive: 8 }), null);
  assert.equal(log.read(offsetOf(20), 100), null);
  assert.throws(
    () => log.read(offsetOf(21), 100),
    (e: { code: number }) => e.code === ErrorCode.OFFSET_OUT_OF_RANGE,
  );
  log.close();
});

test('rolls on segment.bytes, reads cross segments through the index, sparse index entries every index.interval.bytes', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock, { 'segment.bytes': 20_000, 'index.interval.bytes': 1000 });
  const values: number[] = [];
  for (let i = 0; i < 100; i++) {
    log.append(producedBatch(2, 500, clock.nowMs, i), { leaderEpoch: 0 });
    values.push(i);
  }
  assert.ok(log.segmentCount > 5, `segments: ${log.segmentCount}`);
  for (const base of log.segmentBaseOffsets.slice(0, -1)) {
    const index = statSync(join(log.dir, String(base).padStart(20, '0') + '.index')).size;
    assert.ok(index > 0 && index % 8 === 0 && index < 1024, `trimmed index of ${index} bytes`);
  }
  for (let offset = 0; offset < 200; offset += 7) {
    const batches = decodeBatches(log.readBuffer(offsetOf(offset), 1));
    assert.equal(batches.length, 1);
    assert.ok(batches[0]!.baseOffset <= offset && batches[0]!.lastOffset >= offset);
    assert.equal(batches[0]!.values[0]![0], Math.floor(offset / 2) & 0xff);
  }
  log.close();
});

test('rolls on segment.ms measured from the first batch timestamp, and on relative offset overflow', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock, { 'segment.ms': 1000 });
  log.append(producedBatch(1, 10, clock.nowMs), { leaderEpoch: 0 });
  clock.advance(500);
  log.append(producedBatch(1, 10, clock.nowMs), { leaderEpoch: 0 });
  assert.equal(log.segmentCount, 1);
  clock.advance(600);
  log.append(producedBatch(1, 10, clock.nowMs), { leaderEpoch: 0 });
  assert.equal(log.segmentCount, 2);
  assert.deepEqual(log.segmentBaseOffsets, [0, 2]);
  log.close();

  const follower = openLog(fresh(), clock);
  const at = (offset: number): Buffer => {
    const b = producedBatch(1, 10, clock.nowMs);
    b.writeBigInt64BE(BigInt(offset), 0);
    return b;
  };
  follower.appendAsFollower(at(0));
  follower.appendAsFollower(at(2 ** 31 + 5));
  assert.deepEqual(follower.segmentBaseOffsets, [0, 2 ** 31 + 5]);
  assert.equal(follower.logEndOffset, 2 ** 31 + 6);
  assert.equal(decodeBatches(follower.readBuffer(offsetOf(3), 1 << 20))[0]!.baseOffset, 2 ** 31 + 5);
  assert.throws(() => follower.appendAsFollower(at(100)), /out of order/);
  follower.close();
});

test('validation: MESSAGE_TOO_LARGE, INVALID_TIMESTAMP (after.max.ms), CRC; nothing written on failure', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock, { 'max.message.bytes': 2000 });
  assert.throws(
    () => log.append(producedBatch(1, 3000, clock.nowMs), { leaderEpoch: 0 }),
    (e: { code: number }) => e.code === ErrorCode.MESSAGE_TOO_LARGE,
  );
  assert.throws(
    () => log.append(producedBatch(1, 10, clock.nowMs + 2 * 3600_000), { leaderEpoch: 0 }),
    (e: { code: number }) => e.code === ErrorCode.INVALID_TIMESTAMP,
  );
  log.updateConfig({ 'message.timestamp.before.max.ms': 1000 });
  assert.throws(
    () => log.append(producedBatch(1, 10, clock.nowMs - 5000), { leaderEpoch: 0 }),
    (e: { code: number }) => e.code === ErrorCode.INVALID_TIMESTAMP,
  );
  const corrupt = producedBatch(1, 10, clock.nowMs);
  corrupt[corrupt.length - 1]! ^= 0xff;
  assert.throws(
    () => log.append(corrupt, { leaderEpoch: 0 }),
    (e: { code: number }) => e.code === ErrorCode.CORRUPT_MESSAGE,
  );
  assert.equal(log.logEndOffset, 0);
  assert.equal(log.size, 0);
  log.close();
});

test('LogAppendTime rewrites the batch timestamp and reports it', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock, { 'message.timestamp.type': 'LogAppendTime' });
  const batch = producedBatch(2, 10, 5);
  const result = log.append(batch, { leaderEpoch: 0 });
  assert.equal(result.logAppendTimeMs, clock.nowMs);
  const header = readBatchHeader(log.readBuffer(offsetOf(0), 1 << 20), 0)!;
  assert.equal(timestampTypeOf(header.attributes), TimestampType.LogAppendTime);
  assert.equal(header.maxTimestamp, BigInt(clock.nowMs));
  assert.deepEqual(decodeBatches(log.readBuffer(offsetOf(0), 1 << 20))[0]!.timestamps, [clock.nowMs, clock.nowMs]);
  log.close();
});

test('time lookups: first offset with timestamp >= target across segments, earliest/latest, max timestamp', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock, { 'segment.bytes': 3000, 'index.interval.bytes': 200 });
  const base = clock.nowMs;
  for (let i = 0; i < 40; i++) log.append(producedBatch(3, 100, base + i * 10, i), { leaderEpoch: 0 });
  assert.ok(log.segmentCount > 3);
  assert.deepEqual(log.offsetForTimestamp(base), { timestamp: base, offset: 0 });
  assert.deepEqual(log.offsetForTimestamp(base + 55), { timestamp: base + 60, offset: 18 });
  assert.deepEqual(log.offsetForTimestamp(base + 390), { timestamp: base + 390, offset: 117 });
  assert.equal(log.offsetForTimestamp(base + 391), null);
  assert.deepEqual(log.offsetOfMaxTimestamp(), { timestamp: base + 390, offset: 117 });
  log.highWatermark = offsetOf(log.logEndOffset);
  log.deleteRecordsTo(offsetOf(50));
  assert.deepEqual(log.offsetForTimestamp(base), { timestamp: base + 160, offset: 50 });
  log.close();
});

test('retention by time (largest timestamp), by bytes, never the data above the high watermark; delayed unlink after leases', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock, { 'segment.bytes': 2000, 'retention.ms': 10_000, 'file.delete.delay.ms': 1000 });
  for (let i = 0; i < 20; i++) {
    log.append(producedBatch(1, 400, clock.nowMs, i), { leaderEpoch: 0 });
    clock.advance(1000);
  }
  const before = log.segmentCount;
  assert.equal(log.deleteOldSegments(), 0, 'high watermark 0 protects everything');
  log.highWatermark = offsetOf(log.logEndOffset);
  const lease = log.read(offsetOf(0), 100)!;
  const deleted = log.deleteOldSegments();
  assert.ok(deleted > 0 && deleted < before);
  assert.ok(log.logStartOffset > 0);
  assert.equal(log.logStartOffset, log.segmentBaseOffsets[0]);
  assert.throws(
    () => log.read(offsetOf(0), 100),
    (e: { code: number }) => e.code === ErrorCode.OFFSET_OUT_OF_RANGE,
  );
  const deletedFiles = readdirSync(log.dir).filter((f) => f.endsWith('.deleted'));
  assert.ok(deletedFiles.length >= 3);
  clock.advance(5000);
  log.runDeletions();
  assert.ok(
    readdirSync(log.dir).some((f) => f === '00000000000000000000.log.deleted'),
    'leased segment stays',
  );
  const viaLease = Buffer.alloc(lease.length);
  assert.equal(
    readSync(lease.fd, viaLease, 0, lease.length, lease.position),
    lease.length,
    'the leased descriptor still reads the deleted segment',
  );
  lease.release();
  lease.release();
  log.runDeletions();
  assert.equal(readdirSync(log.dir).filter((f) => f.endsWith('.deleted')).length, 0);

  log.updateConfig({ 'retention.ms': -1, 'retention.bytes': 3000 });
  log.deleteOldSegments();
  assert.ok(log.size <= 3000 + 2000, `size ${log.size}`);
  assert.ok(log.size >= 3000 - 2000);
  log.close();
});

test('retention rolls when the whole log, active segment included, has expired', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock, { 'retention.ms': 1000 });
  log.append(producedBatch(1, 10, clock.nowMs), { leaderEpoch: 0 });
  log.highWatermark = offsetOf(1);
  clock.advance(5000);
  assert.equal(log.deleteOldSegments(), 1);
  assert.deepEqual(log.segmentBaseOffsets, [1]);
  assert.equal(log.logStartOffset, 1);
  assert.equal(log.logEndOffset, 1);
  assert.equal(log.deleteOldSegments(), 0, 'an empty active segment is never deleted');
  log.close();
});

test('deleteRecordsTo moves the log start offset (mid-batch allowed), refuses beyond the high watermark', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock, { 'segment.bytes': 1000 });
  for (let i = 0; i < 10; i++) log.append(producedBatch(5, 100, clock.nowMs, i), { leaderEpoch: 0 });
  log.highWatermark = offsetOf(30);
  assert.throws(
    () => log.deleteRecordsTo(offsetOf(31)),
    (e: { code: number }) => e.code === ErrorCode.OFFSET_OUT_OF_RANGE,
  );
  assert.equal(log.deleteRecordsTo(offsetOf(12)), 12);
  assert.equal(log.logStartOffset, 12);
  assert.ok(log.segmentBaseOffsets[0]! <= 12);
  assert.equal(decodeBatches(log.readBuffer(offsetOf(12), 1))[0]!.baseOffset, 10);
  assert.throws(
    () => log.read(offsetOf(11), 1),
    (e: { code: number }) => e.code === ErrorCode.OFFSET_OUT_OF_RANGE,
  );
  log.close();
});

test('truncateTo drops later segments and the tail of the one holding the offset; appends continue', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock, { 'segment.bytes': 1500 });
  for (let i = 0; i < 20; i++) log.append(producedBatch(2, 100, clock.nowMs, i), { leaderEpoch: i < 10 ? 1 : 2 });
  log.highWatermark = offsetOf(log.logEndOffset);
  const segments = log.segmentCount;
  assert.ok(segments > 3);
  const lease = log.read(offsetOf(30), 1 << 20)!;
  const leasedBytes = readFileSync(lease.path).subarray(lease.position, lease.position + lease.length);
  assert.equal(log.truncateTo(offsetOf(13)), true);
  assert.equal(log.logEndOffset, 12, 'a batch is kept or dropped whole');
  assert.equal(log.highWatermark, 12);
  assert.deepEqual(log.leaderEpochCache.entries, [{ epoch: 1, startOffset: 0 }]);
  assert.equal(decodeBatches(log.readBuffer(offsetOf(0), 1 << 20, {})).length > 0, true);
  const r = log.append(producedBatch(1, 10, clock.nowMs), { leaderEpoch: 3 });
  assert.equal(r.baseOffset, 12);
  const all = [];
  for (let o = 0; o < log.logEndOffset;) {
    const b = decodeBatches(log.readBuffer(offsetOf(o), 1))[0]!;
    all.push(b.baseOffset);
    o = b.lastOffset + 1;
  }
  assert.deepEqual(all, [0, 2, 4, 6, 8, 10, 12]);
  const buf = Buffer.alloc(lease.length);
  readSync(lease.fd, buf, 0, lease.length, lease.position);
  assert.ok(buf.equals(leasedBytes), 'a leased range keeps its bytes through truncation');
  lease.release();
  log.truncateTo(offsetOf(0));
  assert.equal(log.logEndOffset, 0);
  log.close();
});

test('clean close then reopen reads nothing but trusts the files; crash reopen recovers', () => {
  const dir = fresh();
  const clock = new FakeClock();
  const log = openLog(dir, clock, { 'segment.bytes': 3000 });
  for (let i = 0; i < 30; i++) log.append(producedBatch(2, 200, clock.nowMs + i, i), { leaderEpoch: 0 });
  const end = log.logEndOffset;
  const bytes = log.readBuffer(offsetOf(0), 1 << 20);
  log.close();
  const clean = openLog(dir, clock, { 'segment.bytes': 3000 }, { cleanShutdown: true, recoveryPoint: end });
  assert.equal(clean.logEndOffset, end);
  assert.ok(clean.readBuffer(offsetOf(0), 1 << 20).equals(bytes));
  assert.deepEqual(clean.offsetOfMaxTimestamp(), { timestamp: clock.nowMs + 29, offset: 58 });
  clean.append(producedBatch(1, 10, clock.nowMs), { leaderEpoch: 0 });
  clean.abandon();
  const crashed = openLog(dir, clock, { 'segment.bytes': 3000 }, { recoveryPoint: 0 });
  assert.equal(crashed.logEndOffset, end + 1);
  assert.equal(crashed.recoveryPoint, end + 1);
  assert.ok(crashed.readBuffer(offsetOf(0), 1 << 20).equals(bytes));
  crashed.close();
  assert.ok(existsSync(join(dir, 't-0')));
});
