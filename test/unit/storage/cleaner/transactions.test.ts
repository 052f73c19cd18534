/**
 * Compaction of a log with transactions: cleaning stops at the last stable offset, data of
 * aborted transactions neither supersedes earlier values nor stays, committed transactional data
 * compacts like any other, markers stay, and the cleaned segment carries the `.txnindex` of the
 * segments it replaces.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { encodeRecordBatch, isControl } from '@sluice/protocol/records/index.js';
import { Faults, type PartitionLog } from '../../../../src/storage/index.js';
import { appendVerified, FakeClock, tempDir } from '../storage-fixtures.js';
import { clean, compactedLog, keyedBatch, logDirOf, openManager, readBatches, TP } from './cleaner-fixtures.js';

function txnRecord(log: PartitionLog, producerId: bigint, sequence: number, key: string, value: string, timestamp: number): void {
  const batch = encodeRecordBatch({
    producerId,
    producerEpoch: 0,
    baseSequence: sequence,
    isTransactional: true,
    records: [{ key: Buffer.from(key), value: Buffer.from(value), timestamp: BigInt(timestamp) }],
  });
  appendVerified(log, batch, { leaderEpoch: 0 });
}

function end(log: PartitionLog, producerId: bigint, commit: boolean): void {
  log.appendTxnMarker({ producerId, producerEpoch: 0, coordinatorEpoch: 0, commit, transactionVersion: 0 }, { leaderEpoch: 0 });
}

test('cleaning drops aborted data, compacts committed data, keeps markers, stops at the LSO and carries the .txnindex', async () => {
  const root = tempDir('clean-txn');
  const clock = new FakeClock();
  const manager = openManager(root.path, clock);
  try {
    const log = compactedLog(manager);
    log.append(keyedBatch([{ key: 'k1', value: 'v1' }], clock.nowMs), { leaderEpoch: 0 }); // 0
    log.roll();
    txnRecord(log, 1n, 0, 'k1', 'aborted', clock.nowMs); // 1
    end(log, 1n, false); // 2
    log.roll();
    txnRecord(log, 2n, 0, 'k2', 'committed', clock.nowMs); // 3
    end(log, 2n, true); // 4
    log.append(keyedBatch([{ key: 'k2', value: 'newer' }], clock.nowMs), { leaderEpoch: 0 }); // 5
    log.roll();
    txnRecord(log, 3n, 0, 'k1', 'open', clock.nowMs); // 6: open, so never cleaned
    log.roll();
    log.append(keyedBatch([{ key: 'k3', value: 'v3' }], clock.nowMs), { leaderEpoch: 0 }); // 7
    log.highWatermark = log.logEndOffset;
    assert.equal(log.lastStableOffset, 6);
    const abortedBefore = log.collectAbortedTransactions(0, log.logEndOffset);
    assert.deepEqual(
      abortedBefore.map((t) => [t.producerId, t.firstOffset, t.lastOffset]),
      [[1n, 1, 2]],
    );

    await clean(manager);

    const batches = readBatches(log);
    const data = batches.filter((b) => !isControl(b.header.attributes)).flatMap((b) => b.records.map((r) => [r.offset, r.key, r.value]));
    assert.deepEqual(data, [
      [0, 'k1', 'v1'], // the aborted k1 did not supersede it
      [5, 'k2', 'newer'], // the committed k2 was superseded like any record
      [6, 'k1', 'open'],
      [7, 'k3', 'v3'],
    ]);
    assert.deepEqual(
      batches.filter((b) => isControl(b.header.attributes)).map((b) => Number(b.header.baseOffset)),
      [2, 4],
      'markers stay',
    );
    // Producer 1's only batch stays as an empty header (its last batch, Kafka's RETAIN_EMPTY).
    assert.ok(batches.some((b) => Number(b.header.baseOffset) === 1 && b.records.length === 0));
    assert.equal(log.segmentBaseOffsets[0], 0);
    assert.ok(
      log.segmentBaseOffsets.some((base) => base === 6),
      'the segment from the open transaction on was not cleaned',
    );
    assert.deepEqual(log.collectAbortedTransactions(0, log.logEndOffset), abortedBefore);
    assert.ok(
      existsSync(join(logDirOf(root.path), '00000000000000000000.txnindex')),
      'the cleaned segment holds the index of the segments it replaced',
    );
    assert.equal(log.lastStableOffset, 6);
  } finally {
    manager.close();
    root.remove();
  }
});

test('a crash in the middle of a swap: the reopened log has the same aborted transactions', async () => {
  const root = tempDir('clean-txn-crash');
  const clock = new FakeClock();
  try {
    const manager = openManager(root.path, clock);
    const log = compactedLog(manager);
    txnRecord(log, 1n, 0, 'a', 'aborted', clock.nowMs); // 0
    end(log, 1n, false); // 1
    log.roll();
    log.append(keyedBatch([{ key: 'a', value: 'v' }], clock.nowMs), { leaderEpoch: 0 }); // 2
    log.roll();
    txnRecord(log, 2n, 0, 'b', 'aborted', clock.nowMs); // 3
    end(log, 2n, false); // 4
    log.roll();
    log.append(keyedBatch([{ key: 'c', value: 'v' }], clock.nowMs), { leaderEpoch: 0 }); // 5
    log.highWatermark = log.logEndOffset;
    const before = log.collectAbortedTransactions(0, log.logEndOffset);
    assert.equal(before.length, 2);
    // The swap stops after renaming the first replaced segment to .deleted (step 2).
    Faults.arm('segment.delete', { after: 1 });
    manager.maintain();
    await manager.cleaningIdle();
    assert.equal(manager.logDirs[0]!.online, false);
    manager.abandon();
    Faults.disarmAll();

    const reopened = openManager(root.path, clock, { cleaner: false });
    try {
      const recovered = reopened.getLog(TP)!;
      assert.deepEqual(recovered.collectAbortedTransactions(0, recovered.logEndOffset), before);
      assert.equal(recovered.segmentCount, 2, 'the swap completed at open: one cleaned segment and the active one');
    } finally {
      reopened.close();
    }
  } finally {
    Faults.disarmAll();
    root.remove();
  }
});
