/**
 * Producer state across the partition's life: snapshots at rolls and clean close, reload after
 * clean and unclean shutdowns (snapshot plus scan), corrupt and out-of-range snapshots, truncation,
 * retention deleting snapshots with their segments, stray snapshots, the pre-snapshot upgrade
 * path, follower appends, and producer expiry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeEndTxnMarkerBatch, encodeRecordBatch } from '@sluice/protocol/records/index.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { PartitionLog } from '../../../../src/storage/log/partition-log.js';
import { offsetOf } from '@sluice/protocol/common/offsets.js';
import { ProducerStateEntry } from '../../../../src/storage/producer-state/producer-state-entry.js';
import { readSnapshot, snapshotPath, writeSnapshot } from '../../../../src/storage/producer-state/producer-snapshot.js';
import { FakeClock, openLog, tempDir } from '../storage-fixtures.js';
import { hasCode, idempotentBatch } from './producer-fixtures.js';

const root = tempDir('pstate-recovery');
process.on('exit', root.remove);
let n = 0;
const fresh = (): string => join(root.path, String(n++));

/** Small segments: a roll every three or four one-record batches. */
const SMALL = { 'segment.bytes': 300 };

/** Producer 1, epoch 0, one record per batch, sequences `from`..`to` - 1; returns their base offsets. */
function produce(log: PartitionLog, clock: FakeClock, from: number, to: number, producerId = 1n): number[] {
  const offsets: number[] = [];
  for (let seq = from; seq < to; seq++) {
    offsets.push(
      log.append(idempotentBatch({ producerId, epoch: 0, sequence: seq, count: 1, timestamp: clock.nowMs }), { leaderEpoch: 0 }).baseOffset,
    );
  }
  return offsets;
}

/** Producer 1 appends until the active segment (not the first) holds at least `wanted` batches; returns all base offsets. */
function produceIntoSecondSegment(log: PartitionLog, clock: FakeClock, wanted: number): number[] {
  const offsets: number[] = [];
  while (log.segmentCount < 2 || log.logEndOffset - log.activeSegment.baseOffset < wanted) {
    offsets.push(...produce(log, clock, offsets.length, offsets.length + 1));
  }
  return offsets;
}

/** Retries sequence `seq` of producer 1: its offset if it was recognised as a duplicate, else null. */
function retry(log: PartitionLog, clock: FakeClock, seq: number, producerId = 1n): number | null {
  const end = log.logEndOffset;
  const r = log.append(idempotentBatch({ producerId, epoch: 0, sequence: seq, count: 1, timestamp: clock.nowMs }), { leaderEpoch: 0 });
  if (!r.duplicate) return null;
  assert.equal(log.logEndOffset, end);
  return r.baseOffset;
}

function snapshotFiles(log: PartitionLog): number[] {
  return readdirSync(log.dir)
    .filter((name) => name.endsWith('.snapshot'))
    .map((name) => Number(name.slice(0, 20)))
    .sort((a, b) => a - b);
}

test('a roll snapshots at the new segment base; a clean close at the log end; a clean reopen loads it and scans nothing', () => {
  const dir = fresh();
  const clock = new FakeClock();
  const log = openLog(dir, clock, SMALL);
  produce(log, clock, 0, 12);
  const bases = log.segmentBaseOffsets;
  assert.ok(bases.length >= 3, `rolled: ${bases.join(',')}`);
  assert.deepEqual(snapshotFiles(log), bases.slice(1));
  // Each roll snapshot holds the state just before its segment: the producer's last sequence is base - 1.
  for (const base of bases.slice(1)) assert.equal(readSnapshot(log.dir, offsetOf(base))[0]!.lastSeq, base - 1);
  log.close();
  assert.deepEqual(snapshotFiles(log), [...bases.slice(1), 12]);

  // Replace the log-end snapshot with another table: a reopen that trusts it (no scan) shows exactly that table.
  writeSnapshot(log.dir, offsetOf(12), [new ProducerStateEntry(99n, 4, clock.nowMs)]);
  const reopened = openLog(dir, clock, SMALL, { cleanShutdown: true, recoveryPoint: 12 });
  assert.deepEqual([...reopened.activeProducers().keys()], [99n]);
  reopened.close();
});

test('duplicate detection survives a clean restart for the last batch, as in Kafka (snapshots keep one batch per producer)', () => {
  const dir = fresh();
  const clock = new FakeClock();
  const log = openLog(dir, clock);
  const offsets = produce(log, clock, 0, 4);
  log.close();
  const reopened = openLog(dir, clock, {}, { cleanShutdown: true, recoveryPoint: 4 });
  assert.equal(retry(reopened, clock, 3), offsets[3]);
  assert.throws(() => retry(reopened, clock, 2), hasCode(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER));
  assert.deepEqual(produce(reopened, clock, 4, 5), [4]);
  reopened.close();
});

test('after a crash the table is rebuilt from the snapshot at the active segment base plus a scan: all five batches known', () => {
  const dir = fresh();
  const clock = new FakeClock();
  const log = openLog(dir, clock, { 'segment.bytes': 1000 });
  const offsets = produceIntoSecondSegment(log, clock, 6);
  const end = offsets.length;
  log.abandon();
  const reopened = openLog(dir, clock, { 'segment.bytes': 1000 });
  assert.equal(reopened.logEndOffset, end);
  for (let seq = end - 5; seq < end; seq++) assert.equal(retry(reopened, clock, seq), offsets[seq], `sequence ${seq}`);
  assert.equal(reopened.activeProducers().get(1n)!.batches.length, 5);
  // The rebuild ends with a snapshot at the log end.
  assert.ok(snapshotFiles(reopened).includes(end));
  reopened.close();
});

test('after a crash with no snapshot at all, the whole log is scanned', () => {
  const dir = fresh();
  const clock = new FakeClock();
  const log = openLog(dir, clock);
  const offsets = produce(log, clock, 0, 3, 5n);
  produce(log, clock, 0, 2, 6n);
  assert.deepEqual(snapshotFiles(log), []);
  log.abandon();
  const reopened = openLog(dir, clock);
  assert.equal(retry(reopened, clock, 0, 5n), offsets[0]);
  assert.equal(retry(reopened, clock, 1, 6n), 4);
  assert.deepEqual([...reopened.activeProducers().keys()].sort(), [5n, 6n]);
  reopened.close();
});

test('a corrupt snapshot is deleted and the next older one plus a scan takes its place', () => {
  const dir = fresh();
  const clock = new FakeClock();
  const log = openLog(dir, clock, { 'segment.bytes': 1000 });
  const offsets = produceIntoSecondSegment(log, clock, 4);
  const end = offsets.length;
  log.close();
  const latest = snapshotPath(log.dir, offsetOf(end));
  const bytes = readFileSync(latest);
  bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0x40;
  writeFileSync(latest, bytes);
  const reopened = openLog(dir, clock, { 'segment.bytes': 1000 }, { cleanShutdown: true, recoveryPoint: end });
  // The scan from the active segment's snapshot restored the older batches the log-end snapshot never held.
  assert.equal(retry(reopened, clock, end - 3), offsets[end - 3]);
  assert.equal(readSnapshot(reopened.dir, offsetOf(end))[0]!.lastSeq, end - 1, 'rewritten at the log end, valid');
  reopened.close();
});

test('a snapshot above the recovered log end (torn tail) is deleted; the lost batch can be produced again', () => {
  const dir = fresh();
  const clock = new FakeClock();
  const log = openLog(dir, clock);
  produce(log, clock, 0, 3);
  const sizeBefore = log.size;
  produce(log, clock, 3, 4);
  log.close();
  assert.deepEqual(snapshotFiles(log), [4]);
  truncateSync(join(log.dir, '00000000000000000000.log'), sizeBefore + 20);
  const reopened = openLog(dir, clock);
  assert.equal(reopened.logEndOffset, 3);
  assert.equal(existsSync(snapshotPath(reopened.dir, offsetOf(4))), false);
  assert.equal(reopened.activeProducers().get(1n)!.lastSeq, 2);
  assert.equal(retry(reopened, clock, 3), null, 'appended, not a duplicate');
  assert.equal(reopened.logEndOffset, 4);
  reopened.close();
});

test('truncateTo reloads from the newest snapshot below the new end and rescans', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock, SMALL);
  const offsets = produce(log, clock, 0, 12);
  const bases = log.segmentBaseOffsets;
  const target = bases[1]! + 1;
  log.truncateTo(offsetOf(target));
  assert.equal(log.logEndOffset, target);
  assert.ok(
    log.producerSnapshotOffsets.every((o) => o <= target),
    `snapshots ${log.producerSnapshotOffsets.join(',')} <= ${target}`,
  );
  assert.deepEqual(snapshotFiles(log), [...log.producerSnapshotOffsets]);
  const entry = log.activeProducers().get(1n)!;
  assert.equal(entry.lastSeq, target - 1);
  assert.equal(retry(log, clock, target - 1), offsets[target - 1]);
  assert.equal(retry(log, clock, target), null, 'the truncated sequence is in sequence again');
  assert.equal(log.logEndOffset, target + 1);
  // Below the first segment: the log restarts empty at the offset, and so does the table.
  log.truncateTo(offsetOf(0));
  assert.equal(log.activeProducers().size, 0);
  assert.deepEqual(snapshotFiles(log), []);
  log.close();
});

test('retention deletes the snapshots of the segments it deletes; a stray snapshot is removed at open', () => {
  const dir = fresh();
  const clock = new FakeClock();
  const log = openLog(dir, clock, { ...SMALL, 'retention.bytes': 400 });
  produce(log, clock, 0, 16);
  log.highWatermark = log.logEndOffset;
  log.maintain();
  const bases = log.segmentBaseOffsets;
  assert.ok(bases[0]! > 0, 'segments were deleted');
  assert.deepEqual(
    snapshotFiles(log),
    bases.filter((b) => b > 0),
  );
  log.close();
  // A snapshot at an offset that starts no segment, below the newest one: left by some earlier state, dropped.
  writeSnapshot(log.dir, offsetOf(bases[bases.length - 1]! - 1), []);
  const reopened = openLog(
    dir,
    clock,
    { ...SMALL, 'retention.bytes': 400 },
    { cleanShutdown: true, recoveryPoint: 16, logStartOffset: bases[0]! },
  );
  assert.deepEqual(snapshotFiles(reopened), [...bases.slice(1), 16]);
  reopened.close();
});

test('a log from before producer snapshots (clean shutdown, none on disk): empty snapshots at the last two bases and the end, no scan', () => {
  const dir = fresh();
  const clock = new FakeClock();
  const log = openLog(dir, clock, SMALL);
  produce(log, clock, 0, 12);
  const bases = log.segmentBaseOffsets;
  log.close();
  for (const offset of snapshotFiles(log)) unlinkSync(snapshotPath(log.dir, offsetOf(offset)));
  const reopened = openLog(dir, clock, SMALL, { cleanShutdown: true, recoveryPoint: 12 });
  assert.equal(reopened.activeProducers().size, 0);
  assert.deepEqual(snapshotFiles(reopened), [...bases.slice(-2), 12]);
  // Kafka's upgrade behaviour: the producer is unknown, so its retry is accepted as new data.
  assert.equal(retry(reopened, clock, 11), null);
  reopened.close();
});

test('follower appends record producer state without sequence checks; the leader then detects their retries', () => {
  const dir = fresh();
  const clock = new FakeClock();
  const log = openLog(dir, clock);
  const replicated = (baseOffset: number, sequence: number, epoch: number): Buffer =>
    encodeRecordBatch({
      baseOffset: BigInt(baseOffset),
      producerId: 8n,
      producerEpoch: epoch,
      baseSequence: sequence,
      records: [0, 1].map(() => ({ key: null, value: Buffer.from('r'), timestamp: BigInt(clock.nowMs) })),
    });
  // A transaction marker (control batch) of the same epoch is replicated too: it records its
  // coordinator epoch and leaves the producer's batches (a marker of a later epoch would drop them).
  const marker = encodeEndTxnMarkerBatch({
    baseOffset: 4n,
    producerId: 8n,
    producerEpoch: 1,
    coordinatorEpoch: 5,
    committed: true,
    timestamp: BigInt(clock.nowMs),
  });
  log.appendAsFollower(Buffer.concat([replicated(0, 0, 1), replicated(2, 7, 1), marker]));
  const entry = log.activeProducers().get(8n)!;
  assert.deepEqual([entry.producerEpoch, entry.lastSeq, entry.batches.length, entry.coordinatorEpoch], [1, 8, 2, 5]);
  const again = log.append(idempotentBatch({ producerId: 8n, epoch: 1, sequence: 7, count: 2, timestamp: clock.nowMs }), {
    leaderEpoch: 1,
  });
  assert.deepEqual([again.baseOffset, again.duplicate], [2, true]);
  // The same table after a crash and a rebuild by scanning.
  log.abandon();
  const reopened = openLog(dir, clock);
  const rebuilt = reopened.activeProducers().get(8n)!;
  assert.deepEqual([rebuilt.producerEpoch, rebuilt.lastSeq, rebuilt.batches.length, rebuilt.coordinatorEpoch], [1, 8, 2, 5]);
  reopened.close();
});

test('producers idle for producer.id.expiration.ms are forgotten by removeExpiredProducers() and when a snapshot is loaded', () => {
  const dir = fresh();
  const clock = new FakeClock();
  const extra = { producerIdExpirationMs: 60_000 };
  const log = openLog(dir, clock, {}, extra);
  produce(log, clock, 0, 2, 1n);
  clock.advance(30_000);
  produce(log, clock, 0, 2, 2n);
  clock.advance(29_999);
  log.removeExpiredProducers();
  assert.deepEqual([...log.activeProducers().keys()], [1n, 2n]);
  clock.advance(1);
  log.maintain();
  assert.deepEqual([...log.activeProducers().keys()], [1n, 2n], 'maintain() leaves expiry to its owner’s check interval');
  log.removeExpiredProducers();
  assert.deepEqual([...log.activeProducers().keys()], [2n]);
  // An expired producer is unknown again: any sequence is accepted.
  assert.equal(
    log.append(idempotentBatch({ producerId: 1n, epoch: 0, sequence: 500, count: 1, timestamp: clock.nowMs }), { leaderEpoch: 0 })
      .duplicate,
    false,
  );
  log.close();
  clock.advance(45_000);
  const reopened = openLog(dir, clock, {}, { ...extra, cleanShutdown: true, recoveryPoint: log.logEndOffset });
  assert.deepEqual([...reopened.activeProducers().keys()], [1n], 'producer 2 expired while the partition was closed');
  reopened.close();
});
