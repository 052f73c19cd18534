/**
 * Transactions at the replica: the leader writes WriteTxnMarkers' markers (fenced as appends,
 * acks=all), the last stable offset bounds read_committed reads and moves with the high
 * watermark, and reads report the aborted transactions they overlap.
 */
import { leaderEpochOf, offsetOf } from '@sluice/protocol/common/offsets.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { encodeRecordBatch } from '@sluice/protocol/records/index.js';
import { type Partition } from '../../../src/replication/partition.js';
import { codeOf, hostPartition, type HostedPartition } from './partition-fixtures.js';
import type { TxnMarkerRequest } from '../../../src/storage/index.js';
import { decodeBatches, withVerification } from '../storage/storage-fixtures.js';
import type { PartitionStateCommand } from '../../../src/replication/partition-state.js';

const SELF = 1;

function hosted(s: Partial<PartitionStateCommand> = {}, config: Record<string, string> = {}): HostedPartition {
  return hostPartition(
    SELF,
    { partition: 0, leader: SELF, leaderEpoch: 4, partitionEpoch: 0, replicas: [SELF], isr: [SELF], ...s },
    config,
  );
}

function txnData(producerId: bigint, sequence: number): Buffer {
  return encodeRecordBatch({
    producerId,
    producerEpoch: 0,
    baseSequence: sequence,
    isTransactional: true,
    records: [{ key: null, value: Buffer.from(`v${sequence}`), timestamp: 1n }],
  });
}

function appendTxn(partition: Partition, records: Buffer): void {
  withVerification((txnVerified) => partition.appendAsLeader(records, -1, 'client', txnVerified));
}

const marker = (producerId: bigint, commit: boolean): TxnMarkerRequest => ({
  producerId,
  producerEpoch: 0,
  coordinatorEpoch: 0,
  commit,
  transactionVersion: 0,
});

test('read_committed reads stop at the last stable offset; a commit marker moves it with the high watermark', () => {
  const { partition, remove } = hosted();
  try {
    partition.appendAsLeader(encodeRecordBatch({ records: [{ key: null, value: Buffer.from('plain'), timestamp: 1n }] }), -1);
    appendTxn(partition, txnData(7n, 0));
    appendTxn(partition, txnData(7n, 1));
    assert.deepEqual(
      [partition.highWatermark, partition.lastStableOffset, partition.readBound(true), partition.readBound(false)],
      [3, 1, 1, 3],
    );
    const committed = partition.read(leaderEpochOf(-1), offsetOf(0), 1 << 20, { readCommitted: true });
    try {
      const belowLso = partition.log.readBuffer(offsetOf(0), 1 << 20, { maxOffsetExclusive: 1 });
      assert.deepEqual(
        decodeBatches(belowLso).map((b) => b.baseOffset),
        [0],
      );
      assert.equal(committed?.length, belowLso.length, 'only the batch below the last stable offset');
    } finally {
      committed?.release();
    }
    assert.equal(
      partition.read(leaderEpochOf(-1), offsetOf(1), 1 << 20, { readCommitted: true }),
      null,
      'nothing stable past the open transaction',
    );
    const written = partition.writeTxnMarker(marker(7n, true));
    assert.deepEqual([written.result.baseOffset, written.highWatermarkMoved, written.requiredOffset], [3, true, -1]);
    assert.equal(partition.lastStableOffset, 4);
    assert.deepEqual(partition.abortedTransactions(offsetOf(0)), []);
  } finally {
    remove();
  }
});

test('an abort marker: reads from before it report the aborted transaction with its first offset', () => {
  const { partition, remove } = hosted();
  try {
    appendTxn(partition, txnData(7n, 0));
    partition.writeTxnMarker(marker(7n, false));
    assert.deepEqual(partition.abortedTransactions(offsetOf(0)), [{ producerId: 7n, firstOffset: 0, lastOffset: 1, lastStableOffset: 2 }]);
    assert.deepEqual(partition.abortedTransactions(offsetOf(2)), []);
  } finally {
    remove();
  }
});

test('with followers the marker waits for acks=all: required offset, and the LSO moves only when the high watermark passes the marker', () => {
  const { partition, remove } = hosted({ replicas: [SELF, 2], isr: [SELF, 2] });
  try {
    appendTxn(partition, txnData(7n, 0));
    partition.updateFollower(2, offsetOf(1));
    assert.equal(partition.lastStableOffset, 0);
    const written = partition.writeTxnMarker(marker(7n, true), { id: 1, timeoutMs: 30_000 });
    assert.deepEqual([written.result.baseOffset, written.highWatermarkMoved, written.requiredOffset], [1, false, 2]);
    assert.deepEqual(partition.takeCompletedAcks(), []);
    assert.equal(partition.lastStableOffset, 0, 'the marker is not replicated yet');
    assert.equal(partition.updateFollower(2, offsetOf(2)), true);
    assert.deepEqual(partition.takeCompletedAcks(), [{ id: 1, errorCode: ErrorCode.NONE }]);
    assert.equal(partition.lastStableOffset, 2);
  } finally {
    remove();
  }
});

test('a marker is refused by a follower, below min.insync.replicas, and with the producer state errors', () => {
  const follower = hosted({ leader: 2, replicas: [SELF, 2], isr: [SELF, 2] });
  try {
    assert.equal(
      codeOf(() => follower.partition.writeTxnMarker(marker(7n, true))),
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
    );
  } finally {
    follower.remove();
  }
  const shrunk = hosted({ replicas: [SELF, 2], isr: [SELF] }, { 'min.insync.replicas': '2' });
  try {
    assert.equal(
      codeOf(() => shrunk.partition.writeTxnMarker(marker(7n, true))),
      ErrorCode.NOT_ENOUGH_REPLICAS,
    );
    assert.equal(shrunk.partition.log.logEndOffset, 0);
  } finally {
    shrunk.remove();
  }
  const leader = hosted();
  try {
    leader.partition.writeTxnMarker({ ...marker(7n, true), coordinatorEpoch: 3 });
    assert.equal(
      codeOf(() => leader.partition.writeTxnMarker({ ...marker(7n, true), coordinatorEpoch: 2 })),
      ErrorCode.TRANSACTION_COORDINATOR_FENCED,
    );
  } finally {
    leader.remove();
  }
});
