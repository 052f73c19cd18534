/**
 * Transactions in a partition log: transactional batches open a producer's transaction, markers
 * end it (leader, follower and recovery alike), the last stable offset waits for open and
 * unreplicated transactions, aborts go to the segment's `.txnindex` in Kafka's format, and all
 * of it survives snapshots, unclean shutdowns and truncation.
 */
import { offsetOf } from '@sluice/protocol/common/offsets.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { encodeEndTxnMarkerBatch, encodeRecordBatch } from '@sluice/protocol/records/index.js';
import type { PartitionLog } from '../../../../src/storage/log/partition-log.js';
import type { TxnMarkerRequest } from '../../../../src/storage/producer-state/txn-marker.js';
import { VerificationRequired } from '../../../../src/storage/producer-state/transaction-verifications.js';
import { appendVerified, decodeBatches, FakeClock, openLog, tempDir } from '../storage-fixtures.js';
import { hasCode } from './producer-fixtures.js';

const root = tempDir('pstate-txn');
process.on('exit', root.remove);
let n = 0;
const fresh = (): string => join(root.path, String(n++));

interface TxnBatch {
  readonly producerId: bigint;
  readonly epoch?: number;
  readonly sequence: number;
  readonly count?: number;
  readonly transactional?: boolean;
}

function txnBatch(b: TxnBatch, timestamp: number): Buffer {
  return encodeRecordBatch({
    producerId: b.producerId,
    producerEpoch: b.epoch ?? 0,
    baseSequence: b.sequence,
    isTransactional: b.transactional ?? true,
    records: Array.from({ length: b.count ?? 1 }, (_, i) => ({
      key: null,
      value: Buffer.from(`p${b.producerId}-s${b.sequence + i}`),
      timestamp: BigInt(timestamp),
    })),
  });
}

/** Appends as leader; returns the base offset. */
function produce(log: PartitionLog, clock: FakeClock, b: TxnBatch): number {
  return appendVerified(log, txnBatch(b, clock.nowMs), { leaderEpoch: 0 }).baseOffset;
}

function marker(producerId: bigint, commit: boolean, o: Partial<TxnMarkerRequest> = {}): TxnMarkerRequest {
  return { producerId, producerEpoch: 0, coordinatorEpoch: 0, commit, transactionVersion: 0, ...o };
}

function endTxn(log: PartitionLog, request: TxnMarkerRequest): number {
  return log.appendTxnMarker(request, { leaderEpoch: 0 }).baseOffset;
}

const replicate = (log: PartitionLog): void => {
  log.highWatermark = offsetOf(log.logEndOffset);
};

test('a transactional batch opens a transaction at its base offset; the marker ends it and the LSO waits for the high watermark to pass the marker', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock);
  produce(log, clock, { producerId: 1n, sequence: 0, transactional: false });
  replicate(log);
  assert.equal(log.lastStableOffset, 1);
  assert.equal(produce(log, clock, { producerId: 1n, sequence: 1, count: 2 }), 1);
  assert.equal(produce(log, clock, { producerId: 1n, sequence: 3 }), 3);
  assert.equal(log.activeProducers().get(1n)!.currentTxnFirstOffset, 1, 'the first transactional batch starts it; later ones keep it');
  replicate(log);
  assert.equal(log.lastStableOffset, 1, 'held at the open transaction');
  assert.equal(endTxn(log, marker(1n, true)), 4);
  const entry = log.activeProducers().get(1n)!;
  assert.deepEqual([entry.currentTxnFirstOffset, entry.coordinatorEpoch], [-1, 0]);
  assert.equal(log.lastStableOffset, 1, 'completed, but the marker is above the high watermark');
  log.highWatermark = offsetOf(4);
  assert.equal(log.lastStableOffset, 1);
  replicate(log);
  assert.equal(log.lastStableOffset, 5);
  // The marker is a control batch with the producer's id and epoch and no sequence.
  const [last] = decodeBatches(log.readBuffer(offsetOf(4), 1 << 20));
  assert.equal(last!.baseOffset, 4);
  log.close();
});

test('interleaved producers: the LSO is the first offset of the earliest unstable transaction', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock);
  produce(log, clock, { producerId: 1n, sequence: 0 }); // 0: txn A
  produce(log, clock, { producerId: 2n, sequence: 0 }); // 1: txn B
  produce(log, clock, { producerId: 3n, sequence: 0, transactional: false }); // 2
  produce(log, clock, { producerId: 1n, sequence: 1 }); // 3
  replicate(log);
  assert.equal(log.lastStableOffset, 0);
  endTxn(log, marker(1n, false)); // 4: A aborted
  replicate(log);
  assert.equal(log.lastStableOffset, 1, 'B is still open');
  produce(log, clock, { producerId: 1n, sequence: 2 }); // 5: txn C
  endTxn(log, marker(2n, true)); // 6: B committed
  replicate(log);
  assert.equal(log.lastStableOffset, 5, 'C is open');
  endTxn(log, marker(1n, true)); // 7
  assert.equal(log.lastStableOffset, 5, 'C completed above the high watermark');
  replicate(log);
  assert.equal(log.lastStableOffset, 8);
  // The abort of A was indexed with the LSO it left: B's first offset.
  assert.deepEqual(log.activeSegment.txnIndex.entries, [{ producerId: 1n, firstOffset: 0, lastOffset: 4, lastStableOffset: 1 }]);
  log.close();
});

test('a non-transactional batch from a producer with an open transaction is INVALID_TXN_STATE; an older epoch is INVALID_PRODUCER_EPOCH', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock);
  produce(log, clock, { producerId: 1n, epoch: 3, sequence: 0 });
  const end = log.logEndOffset;
  assert.throws(
    () => produce(log, clock, { producerId: 1n, epoch: 3, sequence: 1, transactional: false }),
    hasCode(ErrorCode.INVALID_TXN_STATE),
  );
  assert.throws(() => produce(log, clock, { producerId: 1n, epoch: 2, sequence: 0 }), hasCode(ErrorCode.INVALID_PRODUCER_EPOCH));
  assert.equal(log.logEndOffset, end, 'nothing written');
  endTxn(log, marker(1n, true, { producerEpoch: 3 }));
  // Once ended, the producer may write idempotently again.
  assert.equal(produce(log, clock, { producerId: 1n, epoch: 3, sequence: 1, transactional: false }), 2);
  log.close();
});

test('marker fencing: an older coordinator epoch, an older epoch, and with TV2 an epoch not above the transaction', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock);
  produce(log, clock, { producerId: 1n, epoch: 5, sequence: 0 });
  endTxn(log, marker(1n, true, { producerEpoch: 5, coordinatorEpoch: 7 }));
  produce(log, clock, { producerId: 1n, epoch: 5, sequence: 1 });
  const end = log.logEndOffset;
  assert.throws(
    () => endTxn(log, marker(1n, true, { producerEpoch: 5, coordinatorEpoch: 6 })),
    hasCode(ErrorCode.TRANSACTION_COORDINATOR_FENCED),
  );
  assert.throws(() => endTxn(log, marker(1n, true, { producerEpoch: 4, coordinatorEpoch: 7 })), hasCode(ErrorCode.INVALID_PRODUCER_EPOCH));
  // TV2: the coordinator bumps the epoch for the marker, so one at the transaction's epoch is late.
  assert.throws(
    () => endTxn(log, marker(1n, false, { producerEpoch: 5, coordinatorEpoch: 7, transactionVersion: 2 })),
    hasCode(ErrorCode.INVALID_PRODUCER_EPOCH),
  );
  assert.equal(log.logEndOffset, end, 'nothing written');
  assert.equal(log.activeProducers().get(1n)!.currentTxnFirstOffset, 2, 'the transaction is still open');
  assert.equal(endTxn(log, marker(1n, false, { producerEpoch: 6, coordinatorEpoch: 7, transactionVersion: 2 })), 3);
  const entry = log.activeProducers().get(1n)!;
  assert.deepEqual(
    [entry.producerEpoch, entry.currentTxnFirstOffset, entry.lastSeq],
    [6, -1, -1],
    'the marker epoch is the producer epoch now; sequences restart',
  );
  // A retry of that TV2 marker (same epoch, nothing open) is written again (Kafka's KAFKA-19999), and completes nothing.
  assert.equal(endTxn(log, marker(1n, false, { producerEpoch: 6, coordinatorEpoch: 7, transactionVersion: 2 })), 4);
  assert.equal(log.activeSegment.txnIndex.entries.length, 1);
  // The next transaction of the bumped epoch starts at sequence 0.
  assert.equal(produce(log, clock, { producerId: 1n, epoch: 6, sequence: 0 }), 5);
  log.close();
});

test('a marker for a producer with no open transaction updates its epochs but completes and indexes nothing', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock);
  endTxn(log, marker(9n, false, { producerEpoch: 2, coordinatorEpoch: 4 }));
  replicate(log);
  const entry = log.activeProducers().get(9n)!;
  assert.deepEqual([entry.producerEpoch, entry.coordinatorEpoch, entry.currentTxnFirstOffset], [2, 4, -1]);
  assert.equal(log.lastStableOffset, 1);
  assert.deepEqual(log.activeSegment.txnIndex.entries, []);
  assert.equal(existsSync(log.activeSegment.txnIndex.path), false, 'the .txnindex is created lazily');
  log.close();
});

test(".txnindex holds Kafka's 34-byte entries: version 0, producer id, first offset, last offset, last stable offset", () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock);
  produce(log, clock, { producerId: 0x0102030405n, sequence: 0, count: 3 }); // 0-2
  produce(log, clock, { producerId: 7n, sequence: 0 }); // 3
  endTxn(log, marker(0x0102030405n, false)); // 4
  endTxn(log, marker(7n, false)); // 5
  log.flush();
  const bytes = readFileSync(join(log.dir, '00000000000000000000.txnindex'));
  const expected = Buffer.alloc(68);
  let at = 0;
  for (const [pid, first, last, lso] of [
    [0x0102030405n, 0n, 4n, 3n],
    [7n, 3n, 5n, 6n],
  ] as const) {
    at = expected.writeInt16BE(0, at);
    at = expected.writeBigInt64BE(pid, at);
    at = expected.writeBigInt64BE(first, at);
    at = expected.writeBigInt64BE(last, at);
    at = expected.writeBigInt64BE(lso, at);
  }
  assert.deepEqual(bytes, expected);
  log.close();
});

test('collecting aborted transactions for a fetch: those ending at or after the fetch offset and starting before the bound, across segments', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock);
  produce(log, clock, { producerId: 1n, sequence: 0 }); // 0
  endTxn(log, marker(1n, false)); // 1
  log.roll();
  produce(log, clock, { producerId: 2n, sequence: 0 }); // 2
  produce(log, clock, { producerId: 3n, sequence: 0 }); // 3
  endTxn(log, marker(3n, false)); // 4 (LSO then 2: producer 2 is open)
  log.roll();
  endTxn(log, marker(2n, false)); // 5
  produce(log, clock, { producerId: 1n, sequence: 1 }); // 6
  endTxn(log, marker(1n, false)); // 7
  replicate(log);
  const pairs = (from: number, to: number): Array<[bigint, number]> =>
    log.collectAbortedTransactions(from, to).map((t) => [t.producerId, t.firstOffset]);
  assert.deepEqual(pairs(0, 8), [
    [1n, 0],
    [3n, 3],
    [2n, 2],
    [1n, 6],
  ]);
  assert.deepEqual(pairs(2, 8), [
    [3n, 3],
    [2n, 2],
    [1n, 6],
  ]);
  assert.deepEqual(pairs(2, 3), [[2n, 2]], 'bounded: the abort of 3 has LSO 2 < 3, the search goes on to find 2 in the next segment');
  assert.deepEqual(pairs(6, 8), [[1n, 6]]);
  assert.deepEqual(pairs(8, 8), []);
  log.close();
});

test('a clean close and reopen keeps the open transactions (from the snapshot) and the .txnindex', () => {
  const dir = fresh();
  const clock = new FakeClock();
  const log = openLog(dir, clock);
  produce(log, clock, { producerId: 1n, sequence: 0 }); // 0
  endTxn(log, marker(1n, false)); // 1
  produce(log, clock, { producerId: 2n, sequence: 0, count: 2 }); // 2-3
  replicate(log);
  assert.equal(log.lastStableOffset, 2);
  log.close();
  const reopened = openLog(dir, clock, {}, { cleanShutdown: true, highWatermark: 4 });
  assert.equal(reopened.lastStableOffset, 2, 'the open transaction came back from the snapshot');
  assert.equal(reopened.activeProducers().get(2n)!.currentTxnFirstOffset, 2);
  assert.deepEqual(
    reopened.collectAbortedTransactions(0, 4).map((t) => t.firstOffset),
    [0],
  );
  endTxn(reopened, marker(2n, true));
  replicate(reopened);
  assert.equal(reopened.lastStableOffset, 5);
  reopened.close();
});

test('an unclean shutdown: recovery rebuilds the open transactions, the LSO and the .txnindex of recovered segments', () => {
  const dir = fresh();
  const clock = new FakeClock();
  const log = openLog(dir, clock, { 'segment.bytes': 300 });
  produce(log, clock, { producerId: 1n, sequence: 0 }); // 0
  produce(log, clock, { producerId: 2n, sequence: 0 }); // 1
  endTxn(log, marker(1n, false)); // 2
  while (log.segmentCount < 3) produce(log, clock, { producerId: 3n, sequence: log.logEndOffset, transactional: false });
  produce(log, clock, { producerId: 4n, sequence: 0 });
  endTxn(log, marker(4n, false));
  produce(log, clock, { producerId: 5n, sequence: 0 });
  replicate(log);
  const lso = log.lastStableOffset;
  const aborted = log.collectAbortedTransactions(0, log.logEndOffset);
  assert.equal(lso, 1);
  assert.equal(aborted.length, 2);
  assert.ok(log.producerSnapshotOffsets.length > 0, 'rolls took snapshots, which recovery must not trust past the recovery point');
  log.abandon();
  // The index files are lost as if never written back; recovery from offset 0 rebuilds them.
  const txnIndexes = readdirSync(join(dir, 't-0')).filter((name) => name.endsWith('.txnindex'));
  assert.equal(txnIndexes.length, 2);
  for (const name of txnIndexes) unlinkSync(join(dir, 't-0', name));
  const reopened = openLog(dir, clock, { 'segment.bytes': 300 }, { recoveryPoint: 0, highWatermark: log.logEndOffset });
  assert.equal(reopened.lastStableOffset, lso);
  assert.deepEqual(reopened.collectAbortedTransactions(0, reopened.logEndOffset), aborted);
  assert.deepEqual(
    [...reopened.activeProducers().values()].filter((p) => p.currentTxnFirstOffset >= 0).map((p) => p.producerId),
    [2n, 5n],
  );
  reopened.close();
});

test('truncation drops the .txnindex entries at and after the new end and reopens the transactions they had ended', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock);
  produce(log, clock, { producerId: 1n, sequence: 0 }); // 0
  endTxn(log, marker(1n, false)); // 1
  produce(log, clock, { producerId: 2n, sequence: 0 }); // 2
  endTxn(log, marker(2n, false)); // 3
  replicate(log);
  log.truncateTo(offsetOf(3));
  assert.deepEqual(
    log.activeSegment.txnIndex.entries.map((t) => t.lastOffset),
    [1],
  );
  assert.equal(log.activeProducers().get(2n)!.currentTxnFirstOffset, 2, 'the marker went: open again');
  assert.equal(log.lastStableOffset, 2);
  log.close();
});

test('a follower applies replicated markers: transactions end, aborts are indexed, the LSO follows its high watermark', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock);
  const data = (offset: number, producerId: bigint): Buffer =>
    encodeRecordBatch({
      baseOffset: BigInt(offset),
      producerId,
      producerEpoch: 0,
      baseSequence: 0,
      isTransactional: true,
      records: [{ key: null, value: Buffer.from('x'), timestamp: BigInt(clock.nowMs) }],
    });
  const end = (offset: number, producerId: bigint, committed: boolean): Buffer =>
    encodeEndTxnMarkerBatch({
      baseOffset: BigInt(offset),
      producerId,
      producerEpoch: 0,
      coordinatorEpoch: 3,
      committed,
      timestamp: BigInt(clock.nowMs),
    });
  log.appendAsFollower(Buffer.concat([data(0, 1n), data(1, 2n), end(2, 1n, false)]));
  log.highWatermark = offsetOf(3);
  assert.equal(log.lastStableOffset, 1);
  log.appendAsFollower(end(3, 2n, true));
  log.highWatermark = offsetOf(4);
  assert.equal(log.lastStableOffset, 4);
  assert.deepEqual(log.activeSegment.txnIndex.entries, [{ producerId: 1n, firstOffset: 0, lastOffset: 2, lastStableOffset: 1 }]);
  assert.equal(log.activeProducers().get(2n)!.coordinatorEpoch, 3);
  log.close();
});

test('expiry never drops a producer with an open transaction', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock, {}, { producerIdExpirationMs: 1000 });
  produce(log, clock, { producerId: 1n, sequence: 0 });
  produce(log, clock, { producerId: 2n, sequence: 0, transactional: false });
  clock.advance(5000);
  log.removeExpiredProducers();
  assert.deepEqual([...log.activeProducers().keys()], [1n]);
  log.close();
});

test('retention deletes the .txnindex with its segment', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock);
  produce(log, clock, { producerId: 1n, sequence: 0 });
  endTxn(log, marker(1n, false));
  const path = log.activeSegment.txnIndex.path;
  assert.ok(existsSync(path));
  log.roll();
  replicate(log);
  log.deleteRecordsTo(log.logEndOffset);
  log.runDeletions();
  assert.equal(existsSync(path), false);
  assert.equal(existsSync(path + '.deleted'), log.pendingDeletions > 0);
  log.close();
});

const codeOf = (fn: () => unknown): number | 'verify' => {
  try {
    fn();
    return ErrorCode.NONE;
  } catch (err) {
    if (err instanceof VerificationRequired) return 'verify';
    if (err instanceof KafkaError) return err.code;
    throw err;
  }
};

test('KIP-890: a batch opening a transaction is verified first; later batches of the open transaction are not', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock);
  const first = txnBatch({ producerId: 1n, sequence: 0, count: 2 }, clock.nowMs);
  assert.equal(
    codeOf(() => log.append(first, { leaderEpoch: 0 })),
    'verify',
  );
  assert.equal(log.logEndOffset, 0, 'nothing written before the coordinator confirms');
  assert.equal(
    codeOf(() => log.append(first, { leaderEpoch: 0, txnVerified: true })),
    ErrorCode.NONE,
  );
  assert.equal(
    codeOf(() => log.append(txnBatch({ producerId: 1n, sequence: 2 }, clock.nowMs), { leaderEpoch: 0 })),
    ErrorCode.NONE,
  );
  const coordinator = txnBatch({ producerId: 2n, sequence: 0 }, clock.nowMs);
  assert.equal(
    codeOf(() => log.append(coordinator, { leaderEpoch: 0, origin: 'coordinator' })),
    ErrorCode.NONE,
    "a coordinator's own transactional batch is verified by its coordinator already",
  );
});

test('KIP-890: a later batch verified before an earlier one cannot open the transaction past it (retried: NOT_ENOUGH_REPLICAS)', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock);
  const early = txnBatch({ producerId: 1n, sequence: 0, count: 5 }, clock.nowMs);
  const late = txnBatch({ producerId: 1n, sequence: 5 }, clock.nowMs);
  assert.equal(
    codeOf(() => log.append(early, { leaderEpoch: 0 })),
    'verify',
  );
  assert.equal(
    codeOf(() => log.append(late, { leaderEpoch: 0 })),
    'verify',
  );
  assert.equal(
    codeOf(() => log.append(late, { leaderEpoch: 0, txnVerified: true })),
    ErrorCode.NOT_ENOUGH_REPLICAS,
  );
  assert.equal(
    codeOf(() => log.append(early, { leaderEpoch: 0, txnVerified: true })),
    ErrorCode.NONE,
  );
  assert.equal(
    codeOf(() => log.append(late, { leaderEpoch: 0, txnVerified: true })),
    ErrorCode.NONE,
  );
  assert.equal(log.logEndOffset, 6);
});

test("KIP-890: a marker written between verification and append voids it (INVALID_TXN_STATE); a version-2 marker keeps the next epoch's", () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock);
  produce(log, clock, { producerId: 1n, sequence: 0 });
  const lateBatch = txnBatch({ producerId: 1n, sequence: 1 }, clock.nowMs);
  endTxn(log, marker(1n, true));
  assert.equal(
    codeOf(() => log.append(lateBatch, { leaderEpoch: 0 })),
    'verify',
    'the transaction ended: the next batch opens one',
  );
  endTxn(log, marker(1n, false));
  assert.equal(
    codeOf(() => log.append(lateBatch, { leaderEpoch: 0, txnVerified: true })),
    ErrorCode.INVALID_TXN_STATE,
    'the verification died with the transaction',
  );
  // Transaction version 2: the next transaction runs at the marker's epoch and may be verified before that marker lands.
  const next = txnBatch({ producerId: 1n, epoch: 2, sequence: 0 }, clock.nowMs);
  assert.equal(
    codeOf(() => log.append(next, { leaderEpoch: 0 })),
    'verify',
  );
  endTxn(log, marker(1n, true, { producerEpoch: 2, transactionVersion: 2 }));
  assert.equal(
    codeOf(() => log.append(next, { leaderEpoch: 0, txnVerified: true })),
    ErrorCode.NONE,
  );
});

test('KIP-890, transaction version 2: after the marker moves the producer to the next epoch, a later batch of the next transaction waits for the first one', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock);
  produce(log, clock, { producerId: 1n, sequence: 0 });
  endTxn(log, marker(1n, true, { producerEpoch: 1, transactionVersion: 2 }));
  const first = txnBatch({ producerId: 1n, epoch: 1, sequence: 0, count: 3 }, clock.nowMs);
  const second = txnBatch({ producerId: 1n, epoch: 1, sequence: 3 }, clock.nowMs);
  assert.equal(
    codeOf(() => log.append(first, { leaderEpoch: 0 })),
    'verify',
  );
  assert.equal(
    codeOf(() => log.append(second, { leaderEpoch: 0 })),
    'verify',
    'not judged by its sequence before the transaction is open',
  );
  assert.equal(
    codeOf(() => log.append(second, { leaderEpoch: 0, txnVerified: true })),
    ErrorCode.NOT_ENOUGH_REPLICAS,
  );
  assert.equal(
    codeOf(() => log.append(first, { leaderEpoch: 0, txnVerified: true })),
    ErrorCode.NONE,
  );
  assert.equal(
    codeOf(() => log.append(second, { leaderEpoch: 0 })),
    ErrorCode.NONE,
  );
});
