/**
 * The replica object of a hosted partition: role, leader epoch fencing, ISR, high watermark
 * advancement over followers' log end offsets, min.insync.replicas, read bounds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaError } from '../../../src/common/kafka-error.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { Partition } from '../../../src/worker/partition.js';
import type { PartitionStateCommand } from '../../../src/worker/partition-protocol.js';
import { FakeClock, openLog, producedBatch, tempDir } from '../storage/storage-fixtures.js';

const SELF = 1;

function hosted(state: Partial<PartitionStateCommand> = {}, config: Record<string, string> = {}): { partition: Partition; remove(): void } {
  const dir = tempDir('replica');
  const clock = new FakeClock();
  const partition = new Partition(openLog(dir.path, clock), SELF, clock.now);
  partition.applyState({ partition: 0, leader: SELF, leaderEpoch: 0, replicas: [SELF], isr: [SELF], ...state }, config);
  return {
    partition,
    remove: () => {
      partition.log.close();
      dir.remove();
    },
  };
}

const codeOf = (fn: () => unknown): number => {
  try {
    fn();
  } catch (err) {
    if (err instanceof KafkaError) return err.code;
    throw err;
  }
  return ErrorCode.NONE;
};

test('a single-replica leader commits each append at once: the high watermark follows the log end', () => {
  const { partition, remove } = hosted();
  try {
    const first = partition.appendAsLeader(producedBatch(3, 10, 1), 1);
    assert.equal(first.highWatermarkMoved, true);
    assert.equal(partition.highWatermark, 3);
    assert.equal(partition.lastStableOffset, 3);
    partition.appendAsLeader(producedBatch(2, 10, 2), -1);
    assert.equal(partition.highWatermark, 5);
  } finally {
    remove();
  }
});

test('the client epoch is checked: behind is FENCED_LEADER_EPOCH, ahead is UNKNOWN_LEADER_EPOCH, -1 skips the check', () => {
  const { partition, remove } = hosted({ leaderEpoch: 4 });
  try {
    assert.equal(partition.epochError(4), ErrorCode.NONE);
    assert.equal(partition.epochError(-1), ErrorCode.NONE);
    assert.equal(partition.epochError(3), ErrorCode.FENCED_LEADER_EPOCH);
    assert.equal(partition.epochError(5), ErrorCode.UNKNOWN_LEADER_EPOCH);
    assert.equal(codeOf(() => partition.read(3, 0, 1024, { readCommitted: false, minOneMessage: true })), ErrorCode.FENCED_LEADER_EPOCH);
  } finally {
    remove();
  }
});

test("appends are stamped with the replica's own leader epoch, and a stale state is ignored", () => {
  const { partition, remove } = hosted({ leaderEpoch: 2 });
  try {
    partition.appendAsLeader(producedBatch(1, 10, 1), 1);
    partition.applyState({ partition: 0, leader: SELF, leaderEpoch: 1, replicas: [SELF], isr: [SELF] }, {});
    assert.equal(partition.leaderEpoch, 2, 'an older epoch does not win');
    partition.applyState({ partition: 0, leader: SELF, leaderEpoch: 3, replicas: [SELF], isr: [SELF] }, {});
    partition.appendAsLeader(producedBatch(1, 10, 2), 1);
    assert.deepEqual(partition.log.leaderEpochCache.endOffsetFor(2, partition.log.logEndOffset), { epoch: 2, endOffset: 1 });
    assert.deepEqual(partition.log.leaderEpochCache.endOffsetFor(3, partition.log.logEndOffset), { epoch: 3, endOffset: 2 });
  } finally {
    remove();
  }
});

test('a follower replica refuses produce and consumer reads with NOT_LEADER_OR_FOLLOWER', () => {
  const { partition, remove } = hosted({ leader: 2, replicas: [2, SELF], isr: [2, SELF] });
  try {
    assert.equal(partition.isLeader, false);
    assert.equal(codeOf(() => partition.appendAsLeader(producedBatch(1, 10, 1), 1)), ErrorCode.NOT_LEADER_OR_FOLLOWER);
    assert.equal(codeOf(() => partition.read(-1, 0, 1024, { readCommitted: false, minOneMessage: true })), ErrorCode.NOT_LEADER_OR_FOLLOWER);
  } finally {
    remove();
  }
});

test('with followers in the ISR, the high watermark is the lowest log end offset among them', () => {
  const { partition, remove } = hosted({ replicas: [SELF, 2, 3], isr: [SELF, 2, 3] });
  try {
    const append = partition.appendAsLeader(producedBatch(5, 10, 1), 1);
    assert.equal(append.highWatermarkMoved, false, 'no follower has the records yet');
    assert.equal(partition.highWatermark, 0);
    assert.equal(partition.updateFollower(2, 5), false, 'broker 3 is still at 0');
    assert.equal(partition.updateFollower(3, 2), true);
    assert.equal(partition.highWatermark, 2);
    assert.equal(partition.updateFollower(3, 5), true);
    assert.equal(partition.highWatermark, 5);
    assert.equal(codeOf(() => partition.updateFollower(9, 1)), ErrorCode.NOT_LEADER_OR_FOLLOWER, 'not a replica');
  } finally {
    remove();
  }
});

test('acks=all is refused while the ISR is smaller than min.insync.replicas; acks=1 is not', () => {
  const { partition, remove } = hosted({ replicas: [SELF, 2], isr: [SELF] }, { 'min.insync.replicas': '2' });
  try {
    assert.equal(codeOf(() => partition.appendAsLeader(producedBatch(1, 10, 1), -1)), ErrorCode.NOT_ENOUGH_REPLICAS);
    assert.equal(partition.log.logEndOffset, 0, 'nothing was written');
    assert.equal(codeOf(() => partition.appendAsLeader(producedBatch(1, 10, 1), 1)), ErrorCode.NONE);
    partition.applyState({ partition: 0, leader: SELF, leaderEpoch: 1, replicas: [SELF, 2], isr: [SELF, 2] }, { 'min.insync.replicas': '2' });
    assert.equal(codeOf(() => partition.appendAsLeader(producedBatch(1, 10, 2), -1)), ErrorCode.NONE);
  } finally {
    remove();
  }
});

test('a read never passes the high watermark', () => {
  const { partition, remove } = hosted({ replicas: [SELF, 2], isr: [SELF, 2] });
  try {
    partition.appendAsLeader(producedBatch(4, 10, 1), 1);
    assert.equal(partition.read(-1, 0, 1 << 20, { readCommitted: false, minOneMessage: true }), null, 'nothing is committed yet');
    partition.updateFollower(2, 4);
    const slice = partition.read(-1, 0, 1 << 20, { readCommitted: true, minOneMessage: true });
    assert.ok(slice !== null && slice.length > 0);
    slice.release();
  } finally {
    remove();
  }
});
