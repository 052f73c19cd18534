/**
 * A partition worker's partitions and ops as one object, without rings or threads: a
 * `WorkerPartitions` over a temporary log dir, its op methods called directly (open as leader or
 * follower, leader appends and reads, acks=all waits answered by a delete, follower appends and
 * truncation, close and reopen).
 */
import { offsetOf, leaderEpochOf } from '@sluice/protocol/common/offsets.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readSync } from 'node:fs';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { LATEST_TIMESTAMP } from '@sluice/protocol/offset-requests.js';
import type { ReadReply } from '../../../src/partitions/partition-protocol.js';
import { WorkerPartitions } from '../../../src/partitions/worker-partitions.js';
import type { PartitionStateCommand } from '../../../src/replication/partition-state.js';
import { decodeBatches, producedBatch, replicatedBatch, tempDir } from '../storage/storage-fixtures.js';
import { readCommand, testWorkerOptions } from './worker-options-fixture.js';

const SELF = 1;
const TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAA';

function workerOver(logDir: string): WorkerPartitions {
  return new WorkerPartitions({ workerIndex: 0, workerCount: 1, options: testWorkerOptions([logDir], { nodeId: SELF }) });
}

function state(s: Partial<PartitionStateCommand> = {}): PartitionStateCommand {
  return { partition: 0, leader: SELF, leaderEpoch: 0, partitionEpoch: 0, replicas: [SELF], isr: [SELF], ...s };
}

/** The bytes a read's lease names, read from its file descriptor, and the lease released. */
function leasedBytes(worker: WorkerPartitions, reply: ReadReply): Buffer {
  const slice = reply.slice;
  assert.ok(slice !== null, 'a slice to send');
  const bytes = Buffer.alloc(slice.length);
  readSync(slice.fd, bytes, 0, slice.length, slice.position);
  worker.release([slice.leaseId]);
  return bytes;
}

test('a leader opened by the controller’s state appends and reads back, and the logs outlive the worker', () => {
  const dir = tempDir('worker-partitions');
  try {
    const worker = workerOver(dir.path);
    assert.deepEqual(worker.open({ topic: 't', topicId: TOPIC_ID, partitions: [state()], config: {} }), { completedAcks: [] });

    const [first, second] = worker.append([
      { topic: 't', partition: 0, requiredAcks: 1, records: producedBatch(3, 10, 1_000) },
      { topic: 't', partition: 0, requiredAcks: 1, records: producedBatch(2, 10, 2_000, 7) },
    ]);
    assert.equal(first?.errorCode, ErrorCode.NONE);
    assert.equal(first?.baseOffset, 0);
    assert.equal(second?.baseOffset, 3);
    assert.equal(second?.highWatermark, 5, 'a single replica commits at once');
    assert.equal(second?.highWatermarkMoved, true);

    const [read] = worker.read([readCommand('t', 0, 0n)]);
    assert.ok(read !== undefined);
    assert.equal(read.errorCode, ErrorCode.NONE);
    assert.equal(read.highWatermark, 5);
    assert.deepEqual(
      decodeBatches(leasedBytes(worker, read)).map((b) => [b.baseOffset, b.lastOffset]),
      [
        [0, 2],
        [3, 4],
      ],
    );
    const bytes = worker.readBytes(readCommand('t', 0, 3n));
    assert.deepEqual(
      decodeBatches(bytes.bytes).map((b) => b.baseOffset),
      [3],
    );
    assert.equal(
      worker.listOffset({
        topic: 't',
        partition: 0,
        currentLeaderEpoch: leaderEpochOf(-1),
        timestamp: LATEST_TIMESTAMP,
        readCommitted: false,
      }).offset,
      5,
    );

    const [unknown] = worker.append([{ topic: 'other', partition: 0, requiredAcks: 1, records: producedBatch(1, 10, 1) }]);
    assert.equal(unknown?.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    assert.equal(unknown?.logStartOffset, -1, 'no log start offset from a partition not hosted here');
    assert.equal(worker.read([readCommand('other', 0, 0n)])[0]?.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);

    const checkpoints = worker.closeLogs();
    assert.deepEqual(worker.closeLogs(), checkpoints, 'closing twice closes once');
    assert.equal(
      worker.append([{ topic: 't', partition: 0, requiredAcks: 1, records: producedBatch(1, 10, 1) }])[0]?.errorCode,
      ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    );

    const reopened = workerOver(dir.path);
    try {
      reopened.open({ topic: 't', topicId: TOPIC_ID, partitions: [state({ leaderEpoch: 1 })], config: {} });
      const [again] = reopened.read([readCommand('t', 0, 0n)]);
      assert.ok(again !== undefined);
      assert.equal(decodeBatches(leasedBytes(reopened, again)).length, 2, 'the records are still there');
    } finally {
      reopened.closeLogs();
    }
  } finally {
    dir.remove();
  }
});

test('an acks=all append waits for the followers; deleting the partition answers its wait in the delete’s reply', async () => {
  const dir = tempDir('worker-partitions');
  const worker = workerOver(dir.path);
  try {
    worker.open({ topic: 't', topicId: TOPIC_ID, partitions: [state({ replicas: [SELF, 2], isr: [SELF, 2] })], config: {} });
    const [appended] = worker.append([
      { topic: 't', partition: 0, requiredAcks: -1, records: producedBatch(2, 10, 1), acksWait: { id: 42, timeoutMs: 30_000 } },
    ]);
    assert.equal(appended?.errorCode, ErrorCode.NONE);
    assert.equal(appended?.requiredOffset, 2, 'held until the high watermark reaches 2');
    assert.deepEqual(appended?.completedAcks, []);
    assert.deepEqual(worker.delete({ topic: 't', partitions: [0] }), {
      completedAcks: [{ id: 42, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER }],
    });
    assert.equal(worker.read([readCommand('t', 0, 0n)])[0]?.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const { ends } = await worker.metrics({ partitions: [{ topic: 't', partition: 0 }] });
    assert.deepEqual(ends, [{ topic: 't', partition: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, highWatermark: -1 }]);
  } finally {
    worker.closeLogs();
    dir.remove();
  }
});

test('a follower appends what it fetched, answers where its log stands, and truncates', () => {
  const dir = tempDir('worker-partitions');
  const worker = workerOver(dir.path);
  try {
    worker.open({
      topic: 't',
      topicId: TOPIC_ID,
      partitions: [state({ leader: 2, leaderEpoch: 5, replicas: [2, SELF], isr: [2, SELF] })],
      config: {},
    });
    const notLeader = worker.append([{ topic: 't', partition: 0, requiredAcks: 1, records: producedBatch(1, 10, 1) }])[0];
    assert.equal(notLeader?.errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);

    const [position] = worker.appendAsFollower([
      {
        topic: 't',
        partition: 0,
        currentLeaderEpoch: leaderEpochOf(5),
        leaderHighWatermark: offsetOf(10n),
        leaderLogStartOffset: offsetOf(0n),
        records: Buffer.concat([replicatedBatch(3, 0, 4), replicatedBatch(2, 3, 5)]),
      },
    ]);
    assert.deepEqual(position, {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      logEndOffset: 5,
      highWatermark: 5,
      logStartOffset: 0,
      lastFetchedEpoch: 5,
    });
    assert.equal(worker.replicaPosition([{ topic: 't', partition: 0, currentLeaderEpoch: leaderEpochOf(5) }])[0]?.logEndOffset, 5);

    const [truncated] = worker.truncate([
      {
        topic: 't',
        partition: 0,
        currentLeaderEpoch: leaderEpochOf(5),
        kind: 'diverged',
        offset: offsetOf(3n),
        divergingEpoch: leaderEpochOf(4),
      },
    ]);
    assert.equal(truncated?.errorCode, ErrorCode.NONE);
    assert.equal(truncated?.logEndOffset, 3);
    assert.equal(truncated?.lastFetchedEpoch, 4);

    const fenced = worker.appendAsFollower([
      {
        topic: 't',
        partition: 0,
        currentLeaderEpoch: leaderEpochOf(4),
        leaderHighWatermark: offsetOf(4n),
        leaderLogStartOffset: offsetOf(0n),
        records: replicatedBatch(1, 3, 4),
      },
    ])[0];
    assert.equal(fenced?.errorCode, ErrorCode.FENCED_LEADER_EPOCH);
  } finally {
    worker.closeLogs();
    dir.remove();
  }
});
