/**
 * Moving a partition between log dirs (AlterReplicaLogDirs): the future log filled from the
 * current one while it keeps taking appends, truncations followed, the swap (records, offsets,
 * producer state, open transactions, leader epochs, high watermark), and the crash states the
 * swap can leave behind.
 */
import { offsetOf } from '@sluice/protocol/common/offsets.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { encodeRecordBatch } from '@sluice/protocol/records/index.js';
import { LogManager } from '../../../src/storage/log/log-manager.js';
import type { PartitionLog } from '../../../src/storage/log/partition-log.js';
import { StorageError } from '../../../src/storage/storage-error.js';
import { appendVerified, decodeBatches, FakeClock, producedBatch, tempDir } from './storage-fixtures.js';
import { hasCode, idempotentBatch } from './producer-state/producer-fixtures.js';

const root = tempDir('log-move');
process.on('exit', root.remove);
let n = 0;
const tp = { topic: 'moving', partition: 0 };

function twoDirs(): { dirs: string[]; clock: FakeClock; open: () => LogManager } {
  const base = join(root.path, String(n++));
  const dirs = [join(base, 'a'), join(base, 'b')];
  const clock = new FakeClock();
  return { dirs, clock, open: () => LogManager.open({ logDirs: dirs, clock: clock.now, cleaner: false }) };
}

/** Every record value of the log, in offset order, with its offset. */
function contents(log: PartitionLog): Array<{ offset: number; value: string }> {
  const out: Array<{ offset: number; value: string }> = [];
  let offset: number = log.logStartOffset;
  while (offset < log.logEndOffset) {
    const batches = decodeBatches(log.readBuffer(offsetOf(offset), 1 << 20));
    for (const b of batches) {
      b.values.forEach((v, i) => {
        if (b.baseOffset + i >= offset) out.push({ offset: b.baseOffset + i, value: v.toString('latin1') });
      });
      offset = b.lastOffset + 1;
    }
  }
  return out;
}

function produce(log: PartitionLog, clock: FakeClock, seed: number, leaderEpoch = 1): void {
  log.append(producedBatch(3, 200, clock.nowMs, seed), { leaderEpoch });
  log.highWatermark = log.logEndOffset;
}

const FUTURE_DIR = /^moving-0\.[0-9a-f]{32}-future$/;
const DELETE_DIR = /^moving-0\.[0-9a-f]{32}-delete$/;

test('a partition moves to another log dir while it takes appends: records, offsets, producers, open transactions, epochs and high watermark survive the swap', () => {
  const { dirs, clock, open } = twoDirs();
  const manager = open();
  const current = manager.getOrCreateLog(tp, { config: { 'segment.bytes': 2048 } });
  assert.equal(current.logDir.path, dirs[0]);
  for (let i = 0; i < 20; i++) produce(current, clock, i);
  appendVerified(current, idempotentBatch({ producerId: 7n, epoch: 2, sequence: 0, count: 2, timestamp: clock.nowMs }), { leaderEpoch: 1 });
  const txn = encodeRecordBatch({
    producerId: 9n,
    producerEpoch: 0,
    baseSequence: 0,
    isTransactional: true,
    records: [{ key: null, value: Buffer.from('open'), timestamp: BigInt(clock.nowMs) }],
  });
  appendVerified(current, txn, { leaderEpoch: 1 });
  current.highWatermark = current.logEndOffset;
  assert.ok(current.segmentCount > 3);

  const future = manager.createFutureLog(tp, dirs[1]!);
  assert.match(basename(future.dir), FUTURE_DIR);
  assert.equal(future.logDir.path, dirs[1]);
  assert.equal(manager.createFutureLog(tp, dirs[1]!), future, 'a second request for the same dir keeps the move');
  // Small copy budgets while appends go on: the future chases the current log.
  let swapped: unknown[] = [];
  for (let round = 0; swapped.length === 0; round++) {
    assert.ok(round < 500, 'the move finishes');
    if (round < 10) produce(current, clock, 100 + round);
    assert.equal(manager.getLog(tp), current, 'the current log serves until the swap');
    swapped = manager.advanceMoves(1500).swapped;
  }
  assert.ok([...manager.futureLogs()].length === 0);
  const moved = manager.getLog(tp)!;
  assert.notEqual(moved, current);
  assert.equal(moved.logDir.path, dirs[1]);
  assert.equal(moved.dir, join(dirs[1]!, 'moving-0'));
  assert.ok(current.closed);
  assert.deepEqual(contents(moved), contents(current.logEndOffset === moved.logEndOffset ? moved : current));
  assert.equal(moved.logEndOffset, 10 * 3 + 20 * 3 + 2 + 1);
  assert.equal(contents(moved).length, moved.logEndOffset);
  assert.equal(moved.highWatermark, moved.logEndOffset);
  assert.equal(moved.lastStableOffset, 62, 'the open transaction still holds the last stable offset');
  assert.equal(moved.activeProducers().get(7n)?.lastSeq, 1);
  const retry = appendVerified(moved, idempotentBatch({ producerId: 7n, epoch: 2, sequence: 0, count: 2, timestamp: clock.nowMs }), {
    leaderEpoch: 1,
  });
  assert.equal(retry.duplicate, true, 'a retry from before the move is recognised after it');
  assert.ok(
    readdirSync(dirs[0]!).some((name) => DELETE_DIR.test(name)),
    'the old log is renamed -delete',
  );
  assert.ok(!existsSync(join(dirs[0]!, 'moving-0')));
  clock.advance(120_000);
  manager.maintain();
  assert.ok(!readdirSync(dirs[0]!).some((name) => name.startsWith('moving-0')), 'and removed after file.delete.delay.ms');
  produce(moved, clock, 999);
  const end = moved.logEndOffset;
  manager.close();
  const again = open();
  assert.equal(again.getLog(tp)!.logDir.path, dirs[1]);
  assert.equal(again.getLog(tp)!.logEndOffset, end);
  again.close();
});

test('the leader epoch a leader started at the log end, with no batch yet, moves with the log', () => {
  const { dirs, clock, open } = twoDirs();
  const manager = open();
  const current = manager.getOrCreateLog(tp);
  produce(current, clock, 1, 3);
  current.leaderEpochCache.assign(5, current.logEndOffset);
  manager.createFutureLog(tp, dirs[1]!);
  assert.equal(manager.advanceMoves(1 << 20).swapped.length, 1);
  assert.deepEqual(manager.getLog(tp)!.leaderEpochCache.entries, [
    { epoch: 3, startOffset: 0 },
    { epoch: 5, startOffset: 3 },
  ]);
  manager.close();
});

test("the future log follows the current log's truncations and log start", () => {
  const { dirs, clock, open } = twoDirs();
  const manager = open();
  const current = manager.getOrCreateLog(tp);
  for (let i = 0; i < 6; i++) produce(current, clock, i);
  current.deleteRecordsTo(offsetOf(4));
  const future = manager.createFutureLog(tp, dirs[1]!);
  manager.advanceMoves(700);
  assert.ok(future.logEndOffset > 0 && future.logEndOffset < current.logEndOffset, 'partly copied');
  assert.equal(future.logStartOffset, 4, 'the log start follows the current one, inside its first batch');
  current.truncateTo(offsetOf(3 * 4));
  assert.ok(future.logEndOffset <= 12, 'the truncation reaches the future at once');
  for (let i = 0; i < 3; i++) produce(current, clock, 50 + i, 2);
  const expected = contents(current);
  while (manager.advanceMoves(700).swapped.length === 0);
  const moved = manager.getLog(tp)!;
  assert.deepEqual(contents(moved), expected);
  assert.equal(moved.logStartOffset, 4);
  assert.deepEqual(moved.leaderEpochCache.entries, current.leaderEpochCache.entries);
  manager.close();
});

test('refusals: an unknown dir, a partition not hosted, an offline dir; a preferred dir places a partition not created yet', () => {
  const { dirs, clock, open } = twoDirs();
  const manager = open();
  const log = manager.getOrCreateLog(tp);
  produce(log, clock, 1);
  assert.throws(() => manager.createFutureLog(tp, '/nowhere'), hasCode(ErrorCode.LOG_DIR_NOT_FOUND));
  assert.throws(() => manager.setPreferredLogDir(tp, '/nowhere'), hasCode(ErrorCode.LOG_DIR_NOT_FOUND));
  assert.throws(() => manager.createFutureLog({ topic: 'other', partition: 0 }, dirs[1]!), hasCode(ErrorCode.REPLICA_NOT_AVAILABLE));
  // Placement alone would pick the emptier dir b; the preferred dir a wins.
  manager.setPreferredLogDir({ topic: 'later', partition: 0 }, dirs[0]!);
  assert.equal(manager.getOrCreateLog({ topic: 'later', partition: 0 }).logDir.path, dirs[0]);
  assert.equal(manager.getOrCreateLog({ topic: 'next', partition: 0 }).logDir.path, dirs[1], 'the preference was used up');
  manager.logDirs[1]!.markOffline(new Error('disk gone'));
  assert.throws(() => manager.createFutureLog(tp, dirs[1]!), StorageError);
  manager.close();
});

test('deleting a moving partition deletes its future log too; cancelling a move removes the future only', () => {
  const { dirs, clock, open } = twoDirs();
  const manager = open();
  const log = manager.getOrCreateLog(tp);
  produce(log, clock, 1);
  manager.createFutureLog(tp, dirs[1]!);
  manager.deleteFutureLog(tp);
  assert.equal(manager.futureLog(tp), undefined);
  assert.equal(manager.getLog(tp), log);
  assert.ok(readdirSync(dirs[1]!).some((name) => DELETE_DIR.test(name)));
  manager.createFutureLog(tp, dirs[1]!);
  manager.deleteLog(tp);
  assert.equal(manager.futureLog(tp), undefined);
  assert.ok(!readdirSync(dirs[1]!).some((name) => FUTURE_DIR.test(name)));
  manager.close();
});

test('the destination dir fails during the copy: the move ends, the current log serves on', () => {
  const { dirs, clock, open } = twoDirs();
  const manager = open();
  const log = manager.getOrCreateLog(tp);
  for (let i = 0; i < 10; i++) produce(log, clock, i);
  manager.createFutureLog(tp, dirs[1]!);
  manager.advanceMoves(1000);
  manager.logDirs[1]!.markOffline(new Error('disk gone'));
  assert.deepEqual(manager.advanceMoves(1 << 20), { swapped: [], copiedBytes: 0 });
  assert.equal(manager.futureLog(tp), undefined);
  assert.equal([...manager.futureLogs()].length, 0);
  produce(log, clock, 99);
  assert.equal(manager.getLog(tp), log);
  assert.equal(log.logEndOffset, 33);
  manager.close();
});

test('a moving partition is deleted while its destination dir is offline: the current log goes, the future is let go of', () => {
  const { dirs, clock, open } = twoDirs();
  const manager = open();
  const log = manager.getOrCreateLog(tp);
  produce(log, clock, 1);
  manager.createFutureLog(tp, dirs[1]!);
  manager.logDirs[1]!.markOffline(new Error('disk gone'));
  manager.deleteLog(tp);
  assert.equal(manager.getLog(tp), undefined);
  assert.equal(manager.futureLog(tp), undefined);
  assert.ok(readdirSync(dirs[0]!).some((name) => DELETE_DIR.test(name)));
  manager.close();
});

test('a crash during the copy: the future log is loaded again and the move resumes', () => {
  const { dirs, clock, open } = twoDirs();
  const manager = open();
  const log = manager.getOrCreateLog(tp);
  for (let i = 0; i < 10; i++) produce(log, clock, i);
  const expected = contents(log);
  manager.createFutureLog(tp, dirs[1]!);
  manager.advanceMoves(1000);
  manager.abandon();
  const again = open();
  const future = again.futureLog(tp);
  assert.ok(future !== undefined && FUTURE_DIR.test(basename(future.dir)));
  assert.equal(again.getLog(tp)!.logDir.path, dirs[0]);
  assert.ok([...again.futureLogs()][0]!.lag > 0);
  while (again.advanceMoves(1000).swapped.length === 0);
  assert.deepEqual(contents(again.getLog(tp)!), expected);
  assert.equal(again.getLog(tp)!.logDir.path, dirs[1]);
  again.abandon();
  const third = open();
  assert.deepEqual(contents(third.getLog(tp)!), expected, 'a crash right after the swap recovers the moved log');
  third.close();
});

test('a crash between the two renames of a swap: the copy with the larger log end stays, the other goes', () => {
  for (const longer of ['a', 'b'] as const) {
    const { dirs, clock, open } = twoDirs();
    const manager = open();
    const log = manager.getOrCreateLog(tp);
    for (let i = 0; i < 4; i++) produce(log, clock, i);
    manager.close();
    cpSync(join(dirs[0]!, 'moving-0'), join(dirs[1]!, 'moving-0'), { recursive: true });
    // The copy that lost its unflushed tail in a power loss is the shorter one.
    const both = LogManager.open({ logDirs: [longer === 'a' ? dirs[0]! : dirs[1]!], clock: clock.now, cleaner: false });
    produce(both.getLog(tp)!, clock, 77);
    const expected = contents(both.getLog(tp)!);
    both.close();
    const resolved = open();
    assert.equal(resolved.getLog(tp)!.logDir.path, longer === 'a' ? dirs[0] : dirs[1]);
    assert.deepEqual(contents(resolved.getLog(tp)!), expected);
    assert.equal(dirs.filter((d) => existsSync(join(d, 'moving-0'))).length, 1, 'one copy is left');
    resolved.close();
  }
});
