/**
 * What a cluster member needs from the partition owners beyond `PartitionAdmin`: a follower's
 * position, its appends of the leader's batches, truncation, and the leader's ISR proposals. The
 * composition root adapts the router's `PartitionService` to it, so this layer never sees the
 * workers.
 */
import type { PartitionAdmin } from '../metadata/admin/partition-admin.js';
import type { IsrChangeRequest } from '../metadata/replica-control.js';

export interface ReplicaPosition {
  readonly logEndOffset: bigint;
  /** The epoch of the last batch in the log (-1 when empty): a Fetch's `last_fetched_epoch`. */
  readonly lastFetchedEpoch: number;
  readonly logStartOffset: bigint;
}

export interface FollowerAppend {
  readonly topic: string;
  readonly partition: number;
  /** The leader epoch the records were fetched at: a replica that has moved past it refuses them. */
  readonly leaderEpoch: number;
  /** Whole batches as the leader returned them (may be empty: the leader's HW still moves the follower's). */
  readonly records: Buffer;
  readonly leaderHighWatermark: bigint;
  readonly leaderLogStartOffset: bigint;
}

export interface FollowerAppendResult extends ReplicaPosition {
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

/** The controller's answer to one proposal: the committed state, or the error that drops the proposal. */
export interface IsrOutcome {
  readonly proposal: IsrChangeRequest;
  readonly errorCode: number;
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
  readonly isr: readonly number[];
}

export interface ReplicaLogs extends PartitionAdmin {
  /** Deletes these partitions' logs (StopReplica with deletion: a deleted topic, or a replica moved away). */
  deletePartitions(topic: string, partitions: readonly number[]): Promise<void>;
  replicaPosition(topic: string, partition: number, leaderEpoch: number): Promise<ReplicaPosition>;
  appendAsFollower(entries: readonly FollowerAppend[]): Promise<FollowerAppendResult[]>;
  /**
   * A follower that diverged from its leader, whose epoch `divergingEpoch` ends at `endOffset`:
   * its log is cut where the two agree, as far as its own epochs tell (the next Fetch checks
   * again from there).
   */
  truncateToDivergence(
    topic: string,
    partition: number,
    leaderEpoch: number,
    divergingEpoch: number,
    endOffset: bigint,
  ): Promise<ReplicaPosition>;
  /** Empties the log and starts it at `offset` (the leader's log starts past this one). */
  restartAt(topic: string, partition: number, leaderEpoch: number, offset: bigint): Promise<ReplicaPosition>;
  /** Takes a failed log dir offline on every partition owner (its partitions then answer KAFKA_STORAGE_ERROR). */
  takeLogDirOffline(path: string, reason: string): Promise<void>;
  /** The ISR each led partition wants now (each marked pending until `applyIsrAnswers`). */
  isrProposals(): Promise<IsrChangeRequest[]>;
  applyIsrAnswers(outcomes: readonly IsrOutcome[]): Promise<void>;
}
