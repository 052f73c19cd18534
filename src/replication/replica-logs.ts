/**
 * What a cluster member needs from the partition owners beyond `PartitionAdmin`: a follower's
 * position, its appends of the leader's batches, truncation, and the leader's ISR proposals and
 * the controller's answers. The shapes are the ones the partition workers' rings carry, so the
 * router's `PartitionService` is this port as it is and no layer copies them field by field;
 * this layer still never sees the workers. Every answer concerns one partition and carries its
 * Kafka error code, in the order of the request.
 */
import type { PartitionAdmin } from '../metadata/admin/partition-admin.js';
import type { IsrChangeRequest } from '../metadata/replica-control.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';
import type { IsrAnswer } from './partition-state.js';
import type { LeaderEpoch, Offset } from '@sluice/protocol/common/offsets.js';

/** replicaPositions: where a follower's log stands, for its fetcher's first Fetch. */
export interface ReplicaPositionCommand extends TopicPartition {
  /** The leader epoch this broker follows at: a replica that has moved past it refuses. NO_EPOCH_CHECK skips the check. */
  readonly currentLeaderEpoch: LeaderEpoch;
}

/**
 * A follower's records from its leader's Fetch answer, appended as they are (offsets and leader
 * epochs kept).
 */
export interface FollowerAppendRequest extends ReplicaPositionCommand {
  /** The leader's high watermark and log start offset from the same answer. */
  readonly leaderHighWatermark: Offset;
  readonly leaderLogStartOffset: Offset;
  /** Whole batches as the leader returned them; may be empty (the answer then only moves the high watermark). */
  readonly records: Buffer;
}

/**
 * How a follower's log is cut: `diverged`, the leader answered that its epoch `divergingEpoch`
 * ends at `offset` there, and the owner finds from its own epochs where the logs agree (KIP-101);
 * `restart`, every record goes and the log restarts empty at `offset` (Kafka's
 * `truncateFullyAndStartAt`, for a follower behind the leader's log start).
 */
export type TruncationKind = 'diverged' | 'restart';

export interface TruncateCommand extends ReplicaPositionCommand {
  readonly kind: TruncationKind;
  readonly offset: Offset;
  /** The leader's epoch that ends at `offset` (`diverged`); NO_EPOCH for `restart`. */
  readonly divergingEpoch: LeaderEpoch;
}

/** What a follower's append, truncation and position answer: its log as it now stands. */
export interface ReplicaPositionReply {
  readonly errorCode: number;
  readonly errorMessage: string | null;
  readonly logEndOffset: Offset;
  readonly highWatermark: Offset;
  readonly logStartOffset: Offset;
  /** The latest leader epoch in the log: what the next Fetch names as its last fetched epoch (NO_EPOCH for none). */
  readonly lastFetchedEpoch: LeaderEpoch;
}

export interface ReplicaLogs extends PartitionAdmin {
  /** Deletes these partitions' logs (StopReplica with deletion: a deleted topic, or a replica moved away). */
  deletePartitions(topic: string, partitions: readonly number[]): Promise<void>;
  replicaPositions(commands: readonly ReplicaPositionCommand[]): Promise<ReplicaPositionReply[]>;
  appendAsFollower(entries: readonly FollowerAppendRequest[]): Promise<ReplicaPositionReply[]>;
  truncate(commands: readonly TruncateCommand[]): Promise<ReplicaPositionReply[]>;
  /** Takes a failed log dir offline on every partition owner (its partitions then answer KAFKA_STORAGE_ERROR). */
  takeLogDirOffline(path: string, reason: string): Promise<void>;
  /**
   * The ISR changes the leaders want now, each then pending until `applyIsrAnswers`: shrinks
   * (followers that fell behind for `replica.lag.time.max.ms`) and proposals to send again after
   * a retriable answer. An expansion needs no asking: the follower's fetch that qualifies it
   * brings it (`IsrChangeSender.offer`).
   */
  isrProposals(): Promise<IsrChangeRequest[]>;
  applyIsrAnswers(answers: readonly IsrAnswer[]): Promise<void>;
}
