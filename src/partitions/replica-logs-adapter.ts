/**
 * The member's `ReplicaLogs` port over the router's `PartitionService`: names and shapes
 * translated, nothing else. Failed per-partition answers become errors where the member expects
 * a position (it cannot follow a partition whose position it cannot read).
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import type { IsrChangeRequest } from '../metadata/replica-control.js';
import type { FollowerAppend, FollowerAppendResult, IsrOutcome, ReplicaLogs, ReplicaPosition } from '../replication/replica-logs.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { PartitionService } from './partition-service.js';
import { type ReplicaPositionReply } from './partition-protocol.js';
import { NO_EPOCH } from '../replication/leader-epoch.js';

function position(topic: string, partition: number, reply: ReplicaPositionReply | undefined): ReplicaPosition {
  if (reply === undefined || reply.errorCode !== ErrorCode.NONE) {
    throw new KafkaError(
      reply?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR,
      `${topic}-${partition}: ${reply?.errorMessage ?? 'no answer from its worker'}`,
    );
  }
  return { logEndOffset: reply.logEndOffset, lastFetchedEpoch: reply.lastFetchedEpoch, logStartOffset: reply.logStartOffset };
}

export function replicaLogs(partitions: PartitionService): ReplicaLogs {
  return {
    createPartitions: (topic, registrations, config) => partitions.createPartitions(topic, registrations, config),
    deleteTopic: (topic, count) => partitions.deleteTopic(topic, count),
    deletePartitions: (topic, indexes) => partitions.deletePartitions({ name: topic, topicId: '' }, indexes),
    updateTopicConfig: (topic, count, config) => partitions.updateTopicConfig(topic, count, config),
    describeLogDirs: () => partitions.describeLogDirs(),
    alterReplicaLogDirs: (moves) => partitions.alterReplicaLogDirs(moves),
    takeLogDirOffline: (path, reason) => partitions.takeLogDirOffline(path, reason),
    async replicaPosition(topic, partition, leaderEpoch) {
      const [reply] = await partitions.replicaPositions([{ topic, partition, currentLeaderEpoch: leaderEpoch }]);
      return position(topic, partition, reply);
    },
    async appendAsFollower(entries: readonly FollowerAppend[]): Promise<FollowerAppendResult[]> {
      const replies = await partitions.appendAsFollower(
        entries.map((e) => ({
          topic: e.topic,
          partition: e.partition,
          currentLeaderEpoch: e.leaderEpoch,
          leaderHighWatermark: e.leaderHighWatermark,
          leaderLogStartOffset: e.leaderLogStartOffset,
          records: e.records,
        })),
      );
      return replies.map((r) => ({
        errorCode: r.errorCode,
        errorMessage: r.errorMessage,
        logEndOffset: r.logEndOffset,
        lastFetchedEpoch: r.lastFetchedEpoch,
        logStartOffset: r.logStartOffset,
      }));
    },
    async truncateToDivergence(topic, partition, leaderEpoch, divergingEpoch, endOffset) {
      const [reply] = await partitions.truncate([
        { topic, partition, currentLeaderEpoch: leaderEpoch, kind: 'diverged', offset: endOffset, divergingEpoch },
      ]);
      return position(topic, partition, reply);
    },
    async restartAt(topic, partition, leaderEpoch, offset) {
      const [reply] = await partitions.truncate([
        { topic, partition, currentLeaderEpoch: leaderEpoch, kind: 'restart', offset, divergingEpoch: NO_EPOCH },
      ]);
      return position(topic, partition, reply);
    },
    async isrProposals(): Promise<IsrChangeRequest[]> {
      const proposals = await partitions.isrProposals();
      return proposals.map((p) => ({
        topic: p.topic,
        partition: p.partition,
        leaderEpoch: p.leaderEpoch,
        partitionEpoch: p.partitionEpoch,
        newIsr: p.isr,
      }));
    },
    async applyIsrAnswers(outcomes: readonly IsrOutcome[]): Promise<void> {
      await partitions.isrAnswers(
        outcomes.map((o) => ({
          topic: o.proposal.topic,
          partition: o.proposal.partition,
          proposedLeaderEpoch: o.proposal.leaderEpoch,
          proposedPartitionEpoch: o.proposal.partitionEpoch,
          errorCode: o.errorCode,
          leaderEpoch: o.leaderEpoch,
          partitionEpoch: o.partitionEpoch,
          isr: o.isr,
        })),
      );
    },
  };
}
