/**
 * The replica object of a hosted partition: role, leader epoch fencing, ISR, high watermark
 * advancement over followers' log end offsets, min.insync.replicas, read bounds; a follower's
 * appends and truncations; a leader's answers to follower fetches (diverging epochs), its acks=all
 * waits and where they are answered, and ISR changes (shrink on lag, expansion, the pending-change rules).
 */
import { leaderEpochOf, offsetOf } from '@sluice/protocol/common/offsets.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { type Partition } from '../../../src/replication/partition.js';
import { codeOf, hostPartition, type HostedPartition } from './partition-fixtures.js';
import { decodeBatches, producedBatch, replicatedBatch } from '../storage/storage-fixtures.js';
import type { IsrAnswer, PartitionStateCommand } from '../../../src/replication/partition-state.js';

const SELF = 1;
const LAG_MS = 30_000;

function state(s: Partial<PartitionStateCommand> = {}): PartitionStateCommand {
  return { partition: 0, leader: SELF, leaderEpoch: 0, partitionEpoch: 0, replicas: [SELF], isr: [SELF], ...s };
}

function hosted(s: Partial<PartitionStateCommand> = {}, config: Record<string, string> = {}): HostedPartition {
  return hostPartition(SELF, state(s), config, { replicaLagTimeMaxMs: LAG_MS });
}

function answer(partition: Partition, a: Partial<IsrAnswer> & { isr: readonly number[] }): ReturnType<Partition['answerIsr']> {
  return partition.answerIsr({
    topic: 't',
    partition: 0,
    proposedLeaderEpoch: partition.leaderEpoch,
    proposedPartitionEpoch: partition.partitionEpoch,
    errorCode: ErrorCode.NONE,
    leaderEpoch: partition.leaderEpoch,
    partitionEpoch: partition.partitionEpoch + 1,
    ...a,
  });
}

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
    assert.equal(partition.epochError(leaderEpochOf(4)), ErrorCode.NONE);
    assert.equal(partition.epochError(leaderEpochOf(-1)), ErrorCode.NONE);
    assert.equal(partition.epochError(leaderEpochOf(3)), ErrorCode.FENCED_LEADER_EPOCH);
    assert.equal(partition.epochError(leaderEpochOf(5)), ErrorCode.UNKNOWN_LEADER_EPOCH);
    assert.equal(
      codeOf(() => partition.read(leaderEpochOf(3), offsetOf(0), 1024, { readCommitted: false, minOneMessage: true })),
      ErrorCode.FENCED_LEADER_EPOCH,
    );
  } finally {
    remove();
  }
});

test("appends are stamped with the replica's own leader epoch, and a stale state is ignored", () => {
  const { partition, remove } = hosted({ leaderEpoch: 2 });
  try {
    partition.appendAsLeader(producedBatch(1, 10, 1), 1);
    partition.applyState(state({ leaderEpoch: 1 }), {});
    assert.equal(partition.leaderEpoch, 2, 'an older epoch does not win');
    partition.applyState(state({ leaderEpoch: 3 }), {});
    partition.appendAsLeader(producedBatch(1, 10, 2), 1);
    assert.deepEqual(partition.log.leaderEpochCache.endOffsetFor(leaderEpochOf(2), partition.log.logEndOffset), { epoch: 2, endOffset: 1 });
    assert.deepEqual(partition.log.leaderEpochCache.endOffsetFor(leaderEpochOf(3), partition.log.logEndOffset), { epoch: 3, endOffset: 2 });
  } finally {
    remove();
  }
});

test('a follower replica refuses produce and consumer reads with NOT_LEADER_OR_FOLLOWER', () => {
  const { partition, remove } = hosted({ leader: 2, replicas: [2, SELF], isr: [2, SELF] });
  try {
    assert.equal(partition.isLeader, false);
    assert.equal(
      codeOf(() => partition.appendAsLeader(producedBatch(1, 10, 1), 1)),
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
    );
    assert.equal(
      codeOf(() => partition.read(leaderEpochOf(-1), offsetOf(0), 1024, { readCommitted: false, minOneMessage: true })),
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
    );
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
    assert.equal(partition.updateFollower(2, offsetOf(5)), false, 'broker 3 is still at 0');
    assert.equal(partition.updateFollower(3, offsetOf(2)), true);
    assert.equal(partition.highWatermark, 2);
    assert.equal(partition.updateFollower(3, offsetOf(5)), true);
    assert.equal(partition.highWatermark, 5);
    assert.equal(
      codeOf(() => partition.updateFollower(9, offsetOf(1))),
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
      'not a replica',
    );
  } finally {
    remove();
  }
});

test('acks=all is refused while the ISR is smaller than min.insync.replicas; acks=1 is not', () => {
  const { partition, remove } = hosted({ replicas: [SELF, 2], isr: [SELF] }, { 'min.insync.replicas': '2' });
  try {
    assert.equal(
      codeOf(() => partition.appendAsLeader(producedBatch(1, 10, 1), -1)),
      ErrorCode.NOT_ENOUGH_REPLICAS,
    );
    assert.equal(partition.log.logEndOffset, 0, 'nothing was written');
    assert.equal(
      codeOf(() => partition.appendAsLeader(producedBatch(1, 10, 1), 1)),
      ErrorCode.NONE,
    );
    partition.applyState(state({ leaderEpoch: 1, replicas: [SELF, 2], isr: [SELF, 2] }), { 'min.insync.replicas': '2' });
    assert.equal(
      codeOf(() => partition.appendAsLeader(producedBatch(1, 10, 2), -1)),
      ErrorCode.NONE,
    );
  } finally {
    remove();
  }
});

test('a read never passes the high watermark', () => {
  const { partition, remove } = hosted({ replicas: [SELF, 2], isr: [SELF, 2] });
  try {
    partition.appendAsLeader(producedBatch(4, 10, 1), 1);
    assert.equal(
      partition.read(leaderEpochOf(-1), offsetOf(0), 1 << 20, { readCommitted: false, minOneMessage: true }),
      null,
      'nothing is committed yet',
    );
    partition.updateFollower(2, offsetOf(4));
    const slice = partition.read(leaderEpochOf(-1), offsetOf(0), 1 << 20, { readCommitted: true, minOneMessage: true });
    assert.ok(slice !== null && slice.length > 0);
    slice.release();
  } finally {
    remove();
  }
});

test('the high watermark stays while the ISR is below min.insync.replicas, however far the followers are', () => {
  const { partition, remove } = hosted({ replicas: [SELF, 2, 3], isr: [SELF, 2] }, { 'min.insync.replicas': '3' });
  try {
    partition.appendAsLeader(producedBatch(3, 10, 1), 1);
    partition.updateFollower(2, offsetOf(3));
    assert.equal(partition.highWatermark, 0, 'a last replica standing must not commit alone');
    partition.applyState(state({ replicas: [SELF, 2, 3], isr: [SELF, 2, 3], partitionEpoch: 1 }), { 'min.insync.replicas': '3' });
    partition.updateFollower(3, offsetOf(3));
    assert.equal(partition.highWatermark, 3);
  } finally {
    remove();
  }
});

test('min.insync.replicas above the replication factor counts as the replication factor (Kafka effective min ISR)', () => {
  const { partition, remove } = hosted({}, { 'min.insync.replicas': '2' });
  try {
    const append = partition.appendAsLeader(producedBatch(2, 10, 1), -1);
    assert.equal(append.highWatermarkMoved, true);
    assert.equal(append.requiredOffset, -1, 'a single replica commits at once: acks=all has nothing to wait for');
  } finally {
    remove();
  }
});

const WAIT_MS = 30_000;
const wait = (id: number, timeoutMs = WAIT_MS) => ({ id, timeoutMs });
const RF3 = { replicas: [SELF, 2, 3], isr: [SELF, 2, 3] };

test('an acks=all wait is held until the high watermark passes it, then answered once, by the ISR it reached it with', () => {
  const { partition, remove } = hosted(RF3, { 'min.insync.replicas': '2' });
  try {
    const append = partition.appendAsLeader(producedBatch(4, 10, 1), -1, 'client', false, wait(1));
    assert.equal(append.requiredOffset, 4);
    assert.equal(
      partition.appendAsLeader(producedBatch(1, 10, 2), 1, 'client', false, wait(2)).requiredOffset,
      -1,
      'acks=1 waits for nothing',
    );
    assert.deepEqual(partition.takeCompletedAcks(), [], 'no follower has the records');
    assert.equal(partition.acksWaiting, 1, 'nor is a wait held for acks=1');
    partition.updateFollower(2, offsetOf(4));
    assert.deepEqual(partition.takeCompletedAcks(), [], 'one follower is not the ISR');
    partition.updateFollower(3, offsetOf(4));
    assert.deepEqual(
      partition.takeCompletedAcks(),
      [{ id: 1, errorCode: ErrorCode.NONE }],
      'the fetch that moved the high watermark answers it',
    );
    partition.updateFollower(3, offsetOf(5));
    assert.deepEqual(partition.takeCompletedAcks(), [], 'answered once');
    assert.equal(partition.acksWaiting, 0);
  } finally {
    remove();
  }
});

test("a follower's fetch read that moves the high watermark answers the waits it passes, not the later ones", () => {
  const { partition, remove } = hosted({ replicas: [SELF, 2], isr: [SELF, 2] });
  try {
    partition.appendAsLeader(producedBatch(2, 10, 1), -1, 'client', false, wait(1));
    partition.appendAsLeader(producedBatch(2, 10, 2), -1, 'client', false, wait(2));
    partition.readForFollower(2, leaderEpochOf(0), offsetOf(2), leaderEpochOf(-1), 1 << 20, true);
    assert.deepEqual(partition.takeCompletedAcks(), [{ id: 1, errorCode: ErrorCode.NONE }]);
    partition.readForFollower(2, leaderEpochOf(0), offsetOf(4), leaderEpochOf(-1), 1 << 20, true);
    assert.deepEqual(partition.takeCompletedAcks(), [{ id: 2, errorCode: ErrorCode.NONE }]);
  } finally {
    remove();
  }
});

test('an ISR answer that moves the high watermark answers the waits; committed with the ISR below min.insync.replicas is NOT_ENOUGH_REPLICAS_AFTER_APPEND', () => {
  const { partition, clock, remove } = hosted({ replicas: [SELF, 2, 3], isr: [SELF, 2, 3] }, { 'min.insync.replicas': '2' });
  try {
    // Longer than the lag time the test lets pass.
    partition.appendAsLeader(producedBatch(4, 10, 1), -1, 'client', false, wait(1, 10 * LAG_MS));
    partition.updateFollower(2, offsetOf(4));
    // Follower 3 lags: the leader proposes it out, and the controller commits [1, 2].
    clock.advance(LAG_MS + 1);
    partition.updateFollower(2, offsetOf(4));
    assert.deepEqual(partition.proposeIsr()?.newIsr, [SELF, 2]);
    assert.deepEqual(partition.takeCompletedAcks(), [], 'follower 3 still holds the high watermark back until the controller answers');
    assert.deepEqual(answer(partition, { isr: [SELF, 2] }), { highWatermarkMoved: true });
    assert.deepEqual(
      partition.takeCompletedAcks(),
      [{ id: 1, errorCode: ErrorCode.NONE }],
      'the answer moved the high watermark: two in sync, enough',
    );
    partition.appendAsLeader(producedBatch(1, 10, 2), -1, 'client', false, wait(2));
    // The controller's state shrinks the ISR to the leader alone: the high watermark stops (KIP-966)...
    partition.applyState(state({ replicas: [SELF, 2, 3], isr: [SELF], partitionEpoch: 2 }), { 'min.insync.replicas': '2' });
    assert.deepEqual(partition.takeCompletedAcks(), []);
    // ...and a wait for what it committed before is answered at once, short of replicas.
    partition.awaitCommit(wait(3), leaderEpochOf(0), offsetOf(4));
    assert.deepEqual(partition.takeCompletedAcks(), [{ id: 3, errorCode: ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND }]);
    // With min.insync.replicas lowered to 1 the high watermark moves again, the ISR still the leader alone.
    partition.applyState(state({ replicas: [SELF, 2, 3], isr: [SELF], partitionEpoch: 3 }), { 'min.insync.replicas': '1' });
    assert.deepEqual(partition.takeCompletedAcks(), [], 'follower 2, caught up, about to rejoin, holds it back');
    partition.updateFollower(2, offsetOf(5));
    assert.deepEqual(partition.takeCompletedAcks(), [{ id: 2, errorCode: ErrorCode.NONE }]);
  } finally {
    remove();
  }
});

test('a replica that stops leading answers its waits NOT_LEADER_OR_FOLLOWER when the state arrives; leading again is another term', () => {
  const { partition, remove } = hosted(RF3, { 'min.insync.replicas': '2' });
  try {
    partition.appendAsLeader(producedBatch(4, 10, 1), -1, 'client', false, wait(1));
    partition.applyState(state({ leader: 2, leaderEpoch: 1, partitionEpoch: 1, ...RF3 }), {});
    assert.deepEqual(partition.takeCompletedAcks(), [{ id: 1, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER }]);
    partition.applyState(state({ leaderEpoch: 2, partitionEpoch: 2, ...RF3 }), {});
    // A wait for what the old term wrote (a coordinator's load) is answered at once: the records may have been truncated meanwhile.
    partition.awaitCommit(wait(2), leaderEpochOf(0), offsetOf(4));
    assert.deepEqual(partition.takeCompletedAcks(), [{ id: 2, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER }]);
  } finally {
    remove();
  }
});

test('awaitCommit holds a wait for records already in the log, answered at once when committed already', () => {
  const { partition, remove } = hosted({ replicas: [SELF, 2], isr: [SELF, 2] });
  try {
    partition.appendAsLeader(producedBatch(3, 10, 1), 1);
    partition.awaitCommit(wait(5), leaderEpochOf(0), offsetOf(3));
    assert.deepEqual(partition.takeCompletedAcks(), []);
    partition.updateFollower(2, offsetOf(3));
    assert.deepEqual(partition.takeCompletedAcks(), [{ id: 5, errorCode: ErrorCode.NONE }]);
    partition.awaitCommit(wait(6), leaderEpochOf(0), offsetOf(2));
    assert.deepEqual(partition.takeCompletedAcks(), [{ id: 6, errorCode: ErrorCode.NONE }]);
  } finally {
    remove();
  }
});

test('failAcksWaits answers every wait with the error (deleted, replaced, log dir offline)', () => {
  const { partition, remove } = hosted({ replicas: [SELF, 2], isr: [SELF, 2] });
  try {
    partition.appendAsLeader(producedBatch(1, 10, 1), -1, 'client', false, wait(1));
    partition.appendAsLeader(producedBatch(1, 10, 2), -1, 'client', false, wait(2));
    assert.equal(partition.acksWaiting, 2);
    partition.failAcksWaits(ErrorCode.KAFKA_STORAGE_ERROR);
    assert.deepEqual(partition.takeCompletedAcks(), [
      { id: 1, errorCode: ErrorCode.KAFKA_STORAGE_ERROR },
      { id: 2, errorCode: ErrorCode.KAFKA_STORAGE_ERROR },
    ]);
    assert.equal(partition.acksWaiting, 0);
  } finally {
    remove();
  }
});

test('an expired wait is dropped unanswered (the main thread answered REQUEST_TIMED_OUT); a stuck high watermark holds only the waits within their timeout', () => {
  const { partition, clock, remove } = hosted({ replicas: [SELF, 2], isr: [SELF, 2] });
  try {
    partition.appendAsLeader(producedBatch(1, 10, 1), -1, 'client', false, wait(1, 100));
    clock.advance(101);
    partition.updateFollower(2, offsetOf(1));
    assert.deepEqual(partition.takeCompletedAcks(), [], 'past its deadline: no answer');
    assert.equal(partition.acksWaiting, 0);
    // The follower never fetches again: every append leaves one more wait, and expired ones go.
    for (let i = 0; i < 200; i++) {
      partition.appendAsLeader(producedBatch(1, 10, 1), -1, 'client', false, wait(10 + i, 50));
      clock.advance(10);
      assert.ok(partition.acksWaiting <= 2 * 6 + 16, `${partition.acksWaiting} waits held, at most 6 within their timeout`);
    }
    clock.advance(51);
    partition.failAcksWaits(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    assert.deepEqual(partition.takeCompletedAcks(), [], 'expired waits are answered by no one');
  } finally {
    remove();
  }
});

test("a follower's fetch reads up to the log end, not the high watermark, and its offset moves the high watermark", () => {
  const { partition, remove } = hosted({ replicas: [SELF, 2], isr: [SELF, 2] });
  try {
    partition.appendAsLeader(producedBatch(3, 10, 1), 1);
    const first = partition.readForFollower(2, leaderEpochOf(0), offsetOf(0), leaderEpochOf(-1), 1 << 20, true);
    assert.ok(first.slice !== null, 'records above the high watermark go to followers');
    first.slice.release();
    assert.equal(first.highWatermarkMoved, false, 'the fetch at 0 says the follower has nothing yet');
    const second = partition.readForFollower(2, leaderEpochOf(0), offsetOf(3), leaderEpochOf(-1), 1 << 20, true);
    assert.equal(second.slice, null);
    assert.equal(second.highWatermarkMoved, true);
    assert.equal(partition.highWatermark, 3);
    assert.equal(partition.followerLogEndOffset(2), 3);
  } finally {
    remove();
  }
});

test('a fetch from a broker that is no replica: UNKNOWN_LEADER_EPOCH with an epoch (it may be one soon), NOT_LEADER_OR_FOLLOWER without', () => {
  const { partition, remove } = hosted({ leaderEpoch: 4, replicas: [SELF, 2], isr: [SELF, 2] });
  try {
    assert.equal(
      codeOf(() => partition.readForFollower(9, leaderEpochOf(4), offsetOf(0), leaderEpochOf(-1), 1024, true)),
      ErrorCode.UNKNOWN_LEADER_EPOCH,
    );
    assert.equal(
      codeOf(() => partition.readForFollower(9, leaderEpochOf(-1), offsetOf(0), leaderEpochOf(-1), 1024, true)),
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
    );
    assert.equal(
      codeOf(() => partition.readForFollower(2, leaderEpochOf(3), offsetOf(0), leaderEpochOf(-1), 1024, true)),
      ErrorCode.FENCED_LEADER_EPOCH,
    );
  } finally {
    remove();
  }
});

test('a follower whose last fetched epoch ends before its fetch offset on the leader is told where to truncate, with no records', () => {
  // Epoch 0 holds offsets 0-2, epoch 2 holds 3-4, epoch 3 (current) starts at 5.
  const { partition, remove } = hosted({ replicas: [SELF, 2], isr: [SELF, 2] });
  try {
    partition.appendAsLeader(producedBatch(3, 10, 1), 1);
    partition.applyState(state({ leaderEpoch: 2, partitionEpoch: 1, replicas: [SELF, 2], isr: [SELF, 2] }), {});
    partition.appendAsLeader(producedBatch(2, 10, 2), 1);
    partition.applyState(state({ leaderEpoch: 3, partitionEpoch: 2, replicas: [SELF, 2], isr: [SELF, 2] }), {});
    const fetch = (offset: number, lastFetchedEpoch: number) =>
      partition.readForFollower(2, leaderEpochOf(3), offsetOf(offset), leaderEpochOf(lastFetchedEpoch), 1 << 20, true);
    // A follower that wrote offsets 3.. in an epoch 1 the leader never had: back to the end of epoch 0.
    assert.deepEqual(fetch(4, 1), {
      slice: null,
      divergingEpoch: { epoch: 0, endOffset: 3 },
      highWatermarkMoved: false,
      isrCandidate: false,
    });
    assert.equal(partition.followerLogEndOffset(2), -1, 'a diverged fetch says nothing of the follower position');
    // Epoch 0 ended at 3 here: a follower with epoch-0 records up to 4 has one too many.
    assert.deepEqual(fetch(4, 0).divergingEpoch, { epoch: 0, endOffset: 3 });
    const agreeing = fetch(3, 0);
    assert.equal(agreeing.divergingEpoch, null);
    agreeing.slice?.release();
    assert.equal(fetch(5, 2).divergingEpoch, null, 'epoch 2 ends where the follower is');
    assert.equal(
      codeOf(() => fetch(5, 4)),
      ErrorCode.OFFSET_OUT_OF_RANGE,
      'an epoch later than any here has no known end',
    );
    assert.deepEqual(fetch(6, 3).divergingEpoch, { epoch: 3, endOffset: 5 }, 'a follower past the end of the current epoch');
    assert.equal(
      codeOf(() => fetch(6, -1)),
      ErrorCode.OFFSET_OUT_OF_RANGE,
      'past the log end, no epoch named',
    );
  } finally {
    remove();
  }
});

test('a follower appends whole batches with their offsets and epochs; its high watermark is the leader’s as far as its log reaches', () => {
  const { partition, remove } = hosted({ leader: 2, leaderEpoch: 5, replicas: [2, SELF], isr: [2, SELF] });
  try {
    partition.appendAsFollower(
      Buffer.concat([replicatedBatch(3, 0, 4), replicatedBatch(2, 3, 5)]),
      offsetOf(10),
      offsetOf(0),
      leaderEpochOf(5),
    );
    const log = partition.log;
    assert.equal(log.logEndOffset, 5);
    assert.equal(partition.highWatermark, 5, 'min(leader 10, own log end 5)');
    assert.deepEqual(
      log.leaderEpochCache.entries,
      [
        { epoch: 4, startOffset: 0 },
        { epoch: 5, startOffset: 3 },
      ],
      'epochs start where their batches do',
    );
    assert.equal(partition.latestEpoch, 5);
    assert.deepEqual(
      decodeBatches(log.readBuffer(offsetOf(0), 1 << 20)).map((b) => [b.baseOffset, b.lastOffset]),
      [
        [0, 2],
        [3, 4],
      ],
    );
    partition.appendAsFollower(Buffer.alloc(0), offsetOf(4), offsetOf(2), leaderEpochOf(5));
    assert.equal(partition.highWatermark, 4, "the leader's high watermark, even when lower");
    assert.equal(log.logStartOffset, 2, "the log start follows the leader's forward");
    partition.appendAsFollower(Buffer.alloc(0), offsetOf(4), offsetOf(1), leaderEpochOf(5));
    assert.equal(log.logStartOffset, 2, 'never backward');
    assert.equal(
      codeOf(() => partition.appendAsFollower(replicatedBatch(1, 5, 5), offsetOf(6), offsetOf(0), leaderEpochOf(4))),
      ErrorCode.FENCED_LEADER_EPOCH,
      'records fetched in an older epoch',
    );
    const corrupt = replicatedBatch(1, 5, 5);
    corrupt[corrupt.length - 1]! ^= 0xff;
    assert.equal(
      codeOf(() => partition.appendAsFollower(corrupt, offsetOf(6), offsetOf(0), leaderEpochOf(5))),
      ErrorCode.CORRUPT_MESSAGE,
      'CRC checked',
    );
    assert.equal(log.logEndOffset, 5);
  } finally {
    remove();
  }
});

test('a leader refuses records fetched from elsewhere, truncation and replica positions: NOT_LEADER_OR_FOLLOWER', () => {
  const { partition, remove } = hosted();
  try {
    assert.equal(
      codeOf(() => partition.appendAsFollower(replicatedBatch(1, 0, 0), offsetOf(1), offsetOf(0))),
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
    );
    assert.equal(
      codeOf(() => partition.truncate(offsetOf(0), false)),
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
    );
    assert.equal(
      codeOf(() => partition.checkFollower(leaderEpochOf(-1))),
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
    );
  } finally {
    remove();
  }
});

test('a follower truncates to an offset (diverging epoch), or restarts empty past the leader’s log start', () => {
  const { partition, remove } = hosted({ leader: 2, leaderEpoch: 5, replicas: [2, SELF], isr: [2, SELF] });
  try {
    partition.appendAsFollower(Buffer.concat([replicatedBatch(3, 0, 4), replicatedBatch(2, 3, 5)]), offsetOf(5), offsetOf(0));
    partition.truncate(offsetOf(3), false, leaderEpochOf(5));
    assert.equal(partition.log.logEndOffset, 3);
    assert.equal(partition.highWatermark, 3);
    assert.equal(partition.latestEpoch, 4, 'the epoch whose records went is forgotten');
    partition.truncate(offsetOf(100), true, leaderEpochOf(5));
    assert.deepEqual(
      [partition.log.logStartOffset, partition.log.logEndOffset, partition.highWatermark, partition.latestEpoch],
      [100, 100, 100, -1],
    );
    // The leader's log start is inside its first batch (DeleteRecords): the empty log restarts at that batch.
    partition.appendAsFollower(replicatedBatch(4, 98, 5), offsetOf(102), offsetOf(100), leaderEpochOf(5));
    assert.deepEqual([partition.log.logStartOffset, partition.log.logEndOffset, partition.highWatermark], [100, 102, 102]);
    assert.equal(
      codeOf(() => partition.truncate(offsetOf(-1), false, leaderEpochOf(5))),
      ErrorCode.OFFSET_OUT_OF_RANGE,
    );
  } finally {
    remove();
  }
});

test('an in-sync follower that has not caught up for replica.lag.time.max.ms is proposed out of the ISR; the high watermark waits for it until the controller agrees', () => {
  const { partition, clock, remove } = hosted({ replicas: [SELF, 2, 3], isr: [SELF, 2, 3] });
  try {
    partition.appendAsLeader(producedBatch(2, 10, 1), 1);
    partition.updateFollower(2, offsetOf(2));
    partition.updateFollower(3, offsetOf(0));
    assert.equal(partition.proposeIsr(), null, 'within the lag time');
    clock.advance(LAG_MS / 2);
    partition.appendAsLeader(producedBatch(2, 10, 2), 1);
    partition.updateFollower(2, offsetOf(4));
    clock.advance(LAG_MS / 2 + 1);
    assert.deepEqual(
      partition.proposeIsr(),
      { leaderEpoch: 0, partitionEpoch: 0, newIsr: [SELF, 2] },
      'broker 3 last caught up when the leader opened',
    );
    assert.deepEqual(partition.pendingIsrChange, { kind: 'shrink', isr: [SELF, 2], partitionEpoch: 0 });
    assert.equal(partition.proposeIsr(), null, 'one change in flight');
    assert.equal(partition.highWatermark, 0, 'while the shrink is pending, broker 3 still holds the high watermark back');
    const done = answer(partition, { isr: [SELF, 2] });
    assert.deepEqual(done, { highWatermarkMoved: true });
    assert.deepEqual(partition.isr, [SELF, 2]);
    assert.equal(partition.partitionEpoch, 1);
    assert.equal(partition.highWatermark, 4);
    assert.equal(partition.pendingIsrChange, null);
  } finally {
    remove();
  }
});

test('a follower that keeps fetching what the leader had at its previous fetch stays in sync under a stream of appends', () => {
  const { partition, clock, remove } = hosted({ replicas: [SELF, 2], isr: [SELF, 2] });
  try {
    for (let i = 0; i < 10; i++) {
      const end = partition.log.logEndOffset;
      partition.appendAsLeader(producedBatch(1, 10, i), 1);
      // Each fetch reaches the end the leader had at the previous fetch, never the current one.
      partition.updateFollower(2, end);
      clock.advance(LAG_MS / 4);
    }
    assert.equal(partition.proposeIsr(), null);
  } finally {
    remove();
  }
});

test('a follower outside the ISR joins once at the high watermark and within this leader epoch; the proposed ISR holds the high watermark meanwhile', () => {
  const { partition, remove } = hosted({ replicas: [SELF, 2, 3], isr: [SELF, 2] });
  try {
    partition.appendAsLeader(producedBatch(4, 10, 1), 1);
    const read = (id: number, offset: number) => {
      const r = partition.readForFollower(id, leaderEpochOf(-1), offsetOf(offset), leaderEpochOf(-1), 1 << 20, true);
      r.slice?.release();
      return r;
    };
    assert.equal(read(2, 4).highWatermarkMoved, true);
    assert.equal(read(3, 2).isrCandidate, false, 'below the high watermark');
    // A new epoch starts at offset 4: a follower at 4 is in it.
    partition.applyState(state({ leaderEpoch: 1, partitionEpoch: 1, replicas: [SELF, 2, 3], isr: [SELF, 2] }), {});
    partition.appendAsLeader(producedBatch(2, 10, 2), 1);
    assert.equal(read(3, 4).isrCandidate, true);
    assert.deepEqual(partition.proposeIsr(), { leaderEpoch: 1, partitionEpoch: 1, newIsr: [SELF, 2, 3] });
    assert.equal(read(3, 4).isrCandidate, false, 'no second proposal while one is pending');
    assert.equal(read(2, 6).highWatermarkMoved, false, 'broker 3, about to join, holds the high watermark at 4');
    assert.equal(read(3, 6).highWatermarkMoved, true);
    assert.equal(partition.highWatermark, 6);
  } finally {
    remove();
  }
});

test("the controller's errors: not applied reverts to the committed ISR, an outdated state waits for the next one, others send the same proposal again", () => {
  const { partition, remove } = hosted({ replicas: [SELF, 2], isr: [SELF] });
  try {
    partition.appendAsLeader(producedBatch(2, 10, 1), 1);
    const propose = () => {
      const r = partition.readForFollower(2, leaderEpochOf(0), offsetOf(2), leaderEpochOf(-1), 1024, true);
      r.slice?.release();
      return partition.proposeIsr();
    };
    assert.deepEqual(propose()?.newIsr, [SELF, 2]);
    assert.deepEqual(answer(partition, { errorCode: ErrorCode.OPERATION_NOT_ATTEMPTED, isr: [] }), { highWatermarkMoved: false });
    assert.equal(partition.pendingIsrChange, null);
    assert.deepEqual(partition.isr, [SELF]);
    assert.deepEqual(propose()?.newIsr, [SELF, 2]);
    assert.deepEqual(answer(partition, { errorCode: ErrorCode.INVALID_UPDATE_VERSION, isr: [] }), { highWatermarkMoved: false });
    assert.notEqual(partition.pendingIsrChange, null, 'pending until the controller sends its state');
    assert.equal(partition.proposeIsr(), null, 'waiting for the state, nothing is sent');
    assert.deepEqual(answer(partition, { errorCode: ErrorCode.REQUEST_TIMED_OUT, isr: [] }), { highWatermarkMoved: false });
    assert.deepEqual(
      partition.proposeIsr(),
      { leaderEpoch: partition.leaderEpoch, partitionEpoch: partition.partitionEpoch, newIsr: [SELF, 2] },
      'a lost request: the same proposal again',
    );
    assert.equal(partition.proposeIsr(), null, 'once');
    assert.deepEqual(
      answer(partition, { proposedPartitionEpoch: 7, isr: [SELF, 2] }),
      { highWatermarkMoved: false },
      'an answer to another proposal',
    );
    assert.deepEqual(partition.isr, [SELF]);
    assert.deepEqual(answer(partition, { isr: [SELF, 2] }), { highWatermarkMoved: false });
    assert.deepEqual(partition.isr, [SELF, 2]);
    assert.equal(partition.partitionEpoch, 1);
  } finally {
    remove();
  }
});

test("a state at the same leader epoch updates the ISR and partition epoch, keeping the followers' positions; one at an older partition epoch is ignored", () => {
  const { partition, clock, remove } = hosted({ replicas: [SELF, 2, 3], isr: [SELF, 2, 3], partitionEpoch: 4 });
  try {
    partition.appendAsLeader(producedBatch(3, 10, 1), 1);
    partition.updateFollower(2, offsetOf(3));
    partition.updateFollower(3, offsetOf(1));
    assert.equal(partition.highWatermark, 1);
    // Broker 3 lags: out of the ISR it no longer holds the high watermark.
    clock.advance(LAG_MS + 1);
    partition.applyState(state({ replicas: [SELF, 2, 3], isr: [SELF, 2], partitionEpoch: 5 }), {});
    assert.deepEqual(partition.isr, [SELF, 2]);
    assert.equal(partition.partitionEpoch, 5);
    assert.equal(partition.followerLogEndOffset(2), 3, 'positions kept');
    assert.equal(partition.highWatermark, 3, "the smaller ISR commits broker 2's position at once");
    partition.applyState(state({ replicas: [SELF, 2, 3], isr: [SELF], partitionEpoch: 4 }), {});
    assert.deepEqual(partition.isr, [SELF, 2], 'an older partition epoch does not win');
    partition.applyState(state({ leaderEpoch: 1, replicas: [SELF, 2, 3], isr: [SELF, 2], partitionEpoch: 6 }), {});
    assert.equal(partition.followerLogEndOffset(2), 3, 're-elected, the leader keeps what it learned');
  } finally {
    remove();
  }
});
