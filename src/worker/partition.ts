/**
 * One hosted partition's replica: its log and everything Kafka's `Partition` keeps about it —
 * the role this broker plays (leader or follower), the leader epoch and its fencing, the replica
 * set and the in-sync replicas, each follower's log end offset and when it last caught up, the
 * high watermark and its advancement, `min.insync.replicas`, and which offset bounds a read at
 * each isolation level. Nothing else moves the high watermark or answers an epoch check.
 *
 * Owned by the partition's worker thread. The controller's state for the partition arrives as a
 * `PartitionStateCommand` (`applyState`), at open and on every leadership change. On a single
 * broker the partition is a leader whose ISR is itself, so its high watermark follows its log end.
 */
import { KafkaError } from '../common/kafka-error.js';
import { ErrorCode } from '../protocol/errors.js';
import type { AppendResult, LogSlice, PartitionLog, ReadOptions } from '../storage/index.js';
import { leaderEpochError } from './leader-epoch.js';
import { NO_EPOCH_CHECK, type PartitionStateCommand } from './partition-protocol.js';

export type ReplicaRole = 'leader' | 'follower';

/** Produce's acks=all: the in-sync replicas must hold the records. */
const ACKS_ALL = -1;

interface FollowerState {
  logEndOffset: number;
  /** When the follower last reached the leader's log end offset (Kafka's lastCaughtUpTimeMs). */
  lastCaughtUpMs: number;
}

export interface LeaderAppend {
  readonly result: AppendResult;
  readonly highWatermarkMoved: boolean;
}

export class Partition {
  private role: ReplicaRole = 'follower';
  private epoch = -1;
  private replicaIds: readonly number[] = [];
  private inSync = new Set<number>();
  private readonly followers = new Map<number, FollowerState>();
  private minInsync = 1;

  constructor(
    readonly log: PartitionLog,
    /** This broker's id (`node.id`). */
    private readonly localId: number,
    private readonly clock: () => number = Date.now,
  ) {}

  get leaderEpoch(): number {
    return this.epoch;
  }

  get isLeader(): boolean {
    return this.role === 'leader';
  }

  get isr(): readonly number[] {
    return [...this.inSync];
  }

  get highWatermark(): number {
    return this.log.highWatermark;
  }

  /** Until transactions exist, every record below the high watermark is committed. */
  get lastStableOffset(): number {
    return this.log.highWatermark;
  }

  /**
   * Applies the controller's state: role, epoch, replicas and ISR. A stale state (an older leader
   * epoch) is ignored, as Kafka's brokers ignore a LeaderAndIsr for an epoch they have passed.
   */
  applyState(state: PartitionStateCommand, config: Readonly<Record<string, string>>): void {
    this.minInsync = Number(config['min.insync.replicas'] ?? '1');
    if (state.leaderEpoch < this.epoch) return;
    this.role = state.leader === this.localId ? 'leader' : 'follower';
    this.epoch = state.leaderEpoch;
    this.replicaIds = [...state.replicas];
    this.inSync = new Set(state.isr);
    const now = this.clock();
    for (const id of this.replicaIds) {
      if (id !== this.localId && !this.followers.has(id)) this.followers.set(id, { logEndOffset: -1, lastCaughtUpMs: now });
    }
    for (const id of this.followers.keys()) if (!this.replicaIds.includes(id)) this.followers.delete(id);
    if (this.isLeader) this.maybeAdvanceHighWatermark();
  }

  updateConfig(config: Readonly<Record<string, string>>): void {
    this.minInsync = Number(config['min.insync.replicas'] ?? '1');
  }

  /** The error for a client that names `currentLeaderEpoch` (see `leaderEpochError`). */
  epochError(currentLeaderEpoch: number): number {
    return leaderEpochError(currentLeaderEpoch, this.epoch);
  }

  /** Throws the epoch error, or NOT_LEADER_OR_FOLLOWER when this replica does not lead. */
  checkLeader(currentLeaderEpoch: number): void {
    const epochError = this.epochError(currentLeaderEpoch);
    if (epochError !== ErrorCode.NONE) throw new KafkaError(epochError, `leader epoch ${currentLeaderEpoch} is not the current ${this.epoch}`);
    if (!this.isLeader) throw new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER, `this broker does not lead ${this.log.topicPartition.topic}-${this.log.topicPartition.partition}`);
  }

  /**
   * Appends a producer's records as leader, stamped with this replica's leader epoch. acks=all
   * is refused up front while the ISR is smaller than `min.insync.replicas`, as Kafka does.
   */
  appendAsLeader(records: Buffer, requiredAcks: number): LeaderAppend {
    this.checkLeader(NO_EPOCH_CHECK);
    if (requiredAcks === ACKS_ALL && this.inSync.size < this.minInsync) {
      throw new KafkaError(
        ErrorCode.NOT_ENOUGH_REPLICAS,
        `The size of the current ISR ${this.inSync.size} is insufficient to satisfy the min.isr requirement of ${this.minInsync}`,
      );
    }
    const result = this.log.append(records, { leaderEpoch: this.epoch });
    return { result, highWatermarkMoved: this.maybeAdvanceHighWatermark() };
  }

  /**
   * Records a follower's fetch position: the leader's view of its log end offset, which can move
   * the high watermark and lets a caught-up follower back into the ISR's reckoning.
   */
  updateFollower(replicaId: number, logEndOffset: number): boolean {
    const follower = this.followers.get(replicaId);
    if (follower === undefined) throw new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER, `broker ${replicaId} is not a replica`);
    follower.logEndOffset = logEndOffset;
    if (logEndOffset >= this.log.logEndOffset) follower.lastCaughtUpMs = this.clock();
    return this.maybeAdvanceHighWatermark();
  }

  /** The lowest log end offset among the in-sync replicas: what every one of them holds. */
  private maybeAdvanceHighWatermark(): boolean {
    if (!this.isLeader) return false;
    let committed: number = this.log.logEndOffset;
    for (const id of this.inSync) {
      if (id === this.localId) continue;
      committed = Math.min(committed, this.followers.get(id)?.logEndOffset ?? -1);
    }
    if (committed <= this.log.highWatermark) return false;
    this.log.highWatermark = committed;
    return true;
  }

  /** The bound of a consumer's read: the last stable offset for read_committed, else the high watermark. */
  readBound(readCommitted: boolean): number {
    return readCommitted ? this.lastStableOffset : this.highWatermark;
  }

  /** A consumer's read, as leader: fenced by epoch, bounded by its isolation level. */
  read(currentLeaderEpoch: number, fetchOffset: number, maxBytes: number, options: { readCommitted: boolean } & Pick<ReadOptions, 'minOneMessage'>): LogSlice | null {
    this.checkLeader(currentLeaderEpoch);
    return this.log.read(fetchOffset, maxBytes, { maxOffsetExclusive: this.readBound(options.readCommitted), minOneMessage: options.minOneMessage });
  }
}
