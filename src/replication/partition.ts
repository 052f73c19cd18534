/**
 * One hosted partition's replica: its log and everything Kafka's `Partition` keeps about it —
 * the role this broker plays (leader or follower), the leader epoch and its fencing, the replica
 * set and the in-sync replicas with the ISR change proposed to the controller, each follower's
 * log end offset and when it last caught up, the high watermark and its advancement,
 * `min.insync.replicas`, and which offset bounds a read at each isolation level (the last stable
 * offset, held back by open transactions, for read_committed). It writes the transaction markers
 * of WriteTxnMarkers as leader. Nothing else moves the high watermark or answers an epoch check.
 *
 * Owned by the partition's worker thread. The controller's state for the partition arrives as a
 * `PartitionStateCommand` (`applyState`), at open and on every leadership or ISR change; the
 * controller's answers to this leader's ISR proposals arrive with `answerIsr`. On a single broker
 * the partition is a leader whose ISR is itself, so its high watermark follows its log end.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { BatchLayout } from '@sluice/protocol/records/index.js';
import type {
  AbortedTxn,
  AppendOrigin,
  AppendResult,
  EpochEndOffset,
  LogSlice,
  PartitionLog,
  ReadOptions,
  TxnMarkerRequest,
} from '../storage/index.js';
import { FollowerReplica } from './follower-replica.js';
import { leaderEpochError } from './leader-epoch.js';
import {
  earliest,
  latest,
  leaderEpochOf,
  nextOffset,
  NO_EPOCH,
  NO_EPOCH_CHECK,
  NO_OFFSET,
  offsetOf,
  type LeaderEpoch,
  type Offset,
} from '@sluice/protocol/common/offsets.js';
import { type IsrAnswer, type PartitionStateCommand } from './partition-state.js';
import type { IsrChangeRequest } from '../metadata/replica-control.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

export type ReplicaRole = 'leader' | 'follower';

/** Produce's acks=all: the in-sync replicas must hold the records. */
const ACKS_ALL = -1;
/** Kafka's `replica.lag.time.max.ms` default. */
export const DEFAULT_REPLICA_LAG_TIME_MAX_MS = 30_000;
/** Below this many waits, expired ones are dropped only as completions pass them. */
const MIN_WAIT_SWEEP = 16;

/** An acks=all wait as the main thread names it: its id (unique per broker) and how long its request waits. */
export interface AcksWaitRequest {
  readonly id: number;
  readonly timeoutMs: number;
}

/** The answer to an acks=all wait: NONE, NOT_ENOUGH_REPLICAS_AFTER_APPEND, NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR. */
export interface CompletedAck {
  readonly id: number;
  readonly errorCode: number;
}

/** An acks=all wait held by its leader (Kafka's `DelayedProduce` for one partition). */
interface AcksWait {
  readonly id: number;
  /** The leader epoch the records were appended at. */
  readonly leaderEpoch: LeaderEpoch;
  /** The high watermark that commits them. */
  readonly requiredOffset: Offset;
  /** When the main thread answers REQUEST_TIMED_OUT: past it, the wait is dropped unanswered. */
  readonly deadline: number;
}

const NO_COMPLETIONS: readonly CompletedAck[] = [];

export interface PartitionOptions {
  /** `replica.lag.time.max.ms`: a follower not caught up for this long leaves the ISR. */
  readonly replicaLagTimeMaxMs?: number;
  readonly clock?: () => number;
}

export interface LeaderAppend {
  readonly result: AppendResult;
  readonly highWatermarkMoved: boolean;
  /** acks=all: the high watermark the producer's answer waits for, or NO_OFFSET (committed already, or acks is not all). */
  readonly requiredOffset: Offset;
}

/** A follower's fetch as its leader serves it. */
export interface FollowerRead {
  /** Up to the log end offset; null when there is nothing to send or the logs diverged. */
  readonly slice: LogSlice | null;
  /** Where the follower's log left the leader's: it truncates there and fetches again. */
  readonly divergingEpoch: EpochEndOffset | null;
  readonly highWatermarkMoved: boolean;
  /** The follower, outside the ISR, qualifies to join it. */
  readonly isrCandidate: boolean;
}

/** The change of ISR this leader asked the controller for (Kafka's PendingExpandIsr / PendingShrinkIsr). */
interface PendingIsrChange {
  readonly kind: 'expand' | 'shrink';
  readonly isr: readonly number[];
  /** The partition epoch the proposal was made at: an answer names it. */
  readonly partitionEpoch: number;
}

/** What the leader proposes, from the state it holds: the partition's AlterPartition entry, its name left to the caller. */
export type IsrChangeProposal = Omit<IsrChangeRequest, keyof TopicPartition>;

/** The controller's errors after which the proposal stays pending until its next state arrives (Kafka's `handleAlterPartitionError`). */
const AWAIT_STATE_ERRORS: ReadonlySet<number> = new Set([
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.UNKNOWN_TOPIC_ID,
  ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.INVALID_UPDATE_VERSION,
  ErrorCode.INVALID_REQUEST,
  ErrorCode.NEW_LEADER_ELECTED,
]);
/** The controller's errors that say the proposal was not applied: the committed ISR stands. */
const NOT_APPLIED_ERRORS: ReadonlySet<number> = new Set([ErrorCode.OPERATION_NOT_ATTEMPTED, ErrorCode.INELIGIBLE_REPLICA]);

export class Partition {
  private role: ReplicaRole = 'follower';
  private epoch: LeaderEpoch = NO_EPOCH;
  private partitionEpochValue = -1;
  /** The leader epoch at which this replica last took over leadership: acks=all waits from an earlier term end. */
  private leaderSince: LeaderEpoch = NO_EPOCH;
  /** Where the current leader epoch starts in this leader's log (Kafka's leaderEpochStartOffsetOpt); -1 when following. */
  private epochStartOffset: Offset = NO_OFFSET;
  private replicaIds: readonly number[] = [];
  /** The ISR as the controller last committed it. */
  private committedIsr: ReadonlySet<number> = new Set();
  private pendingIsr: PendingIsrChange | null = null;
  /**
   * The pending change's answer was an error Kafka's leader retries (a lost request, a timeout):
   * the next `proposeIsr` sends the same proposal again. Without it the change would stay pending
   * until a LeaderAndIsr that the controller, having seen nothing, never sends.
   */
  private resendPendingIsr = false;
  /**
   * What the high watermark waits for (KIP-497's maximal ISR): with an expansion pending, the
   * proposed ISR — in case the controller commits it; with a shrink pending, the current one — in
   * case it does not.
   */
  private maximalIsr: ReadonlySet<number> = this.committedIsr;
  private readonly followers = new Map<number, FollowerReplica>();
  private minInsync = 1;
  private readonly lagTimeMaxMs: number;
  private readonly clock: () => number;
  /** acks=all appends waiting for the high watermark, in the order they were made. */
  private waits: AcksWait[] = [];
  /** Waits answered since `takeCompletedAcks` last took them. */
  private completed: CompletedAck[] = [];
  /** When `waits` reaches this size, expired waits are swept out wherever they are. */
  private sweepAt = MIN_WAIT_SWEEP;

  constructor(
    private currentLog: PartitionLog,
    /** This broker's id (`node.id`). */
    private readonly localId: number,
    options: PartitionOptions = {},
  ) {
    this.lagTimeMaxMs = options.replicaLagTimeMaxMs ?? DEFAULT_REPLICA_LAG_TIME_MAX_MS;
    this.clock = options.clock ?? Date.now;
  }

  get log(): PartitionLog {
    return this.currentLog;
  }

  /** The partition's log moved to another log dir (AlterReplicaLogDirs): the swapped-in copy serves from now on. */
  replaceLog(log: PartitionLog): void {
    this.currentLog = log;
  }

  get leaderEpoch(): LeaderEpoch {
    return this.epoch;
  }

  /** The version of the controller's state this replica holds. */
  get partitionEpoch(): number {
    return this.partitionEpochValue;
  }

  get isLeader(): boolean {
    return this.role === 'leader';
  }

  /** The committed ISR. */
  get isr(): readonly number[] {
    return [...this.committedIsr];
  }

  /** The ISR change awaiting the controller's answer, if any. */
  get pendingIsrChange(): { readonly kind: 'expand' | 'shrink'; readonly isr: readonly number[] } | null {
    return this.pendingIsr;
  }

  get highWatermark(): Offset {
    return this.log.highWatermark;
  }

  /** Below the high watermark, up to the first transaction still open or whose marker is not replicated yet. */
  get lastStableOffset(): Offset {
    return this.log.lastStableOffset;
  }

  /** The latest leader epoch in the log: a follower's next Fetch names it as its last fetched epoch. */
  get latestEpoch(): LeaderEpoch {
    return this.log.leaderEpochCache.latestEpoch;
  }

  /** The log end offset this leader has seen a follower at; -1 before its first fetch or for a non-replica. */
  followerLogEndOffset(replicaId: number): number {
    return this.followers.get(replicaId)?.logEndOffset ?? -1;
  }

  /**
   * Applies the controller's state: role, epochs, replicas and ISR. A stale state (an older leader
   * epoch, or the same one at an older partition epoch) is ignored, as Kafka's brokers ignore a
   * LeaderAndIsr they have passed. A state at the current leader epoch only replaces the replica
   * set and ISR (dropping a pending ISR change): the followers' positions stand. A new leader epoch
   * on a leader starts a new epoch in its log at its log end and resets the followers' lag clocks.
   */
  applyState(state: PartitionStateCommand, config: Readonly<Record<string, string>>): void {
    this.updateConfig(config);
    // The controller's state enters the replica here: its leader epoch becomes a `LeaderEpoch`.
    const leaderEpoch = leaderEpochOf(state.leaderEpoch);
    if (leaderEpoch < this.epoch || (leaderEpoch === this.epoch && state.partitionEpoch < this.partitionEpochValue)) return;
    const wasLeader = this.isLeader;
    const newEpoch = leaderEpoch > this.epoch;
    this.epoch = leaderEpoch;
    this.partitionEpochValue = state.partitionEpoch;
    this.replicaIds = [...state.replicas];
    this.setCommittedIsr(new Set(state.isr));
    if (state.leader !== this.localId) {
      this.role = 'follower';
      this.followers.clear();
      this.epochStartOffset = NO_OFFSET;
      this.completeAcksWaits();
      return;
    }
    this.role = 'leader';
    for (const id of this.replicaIds) if (id !== this.localId && !this.followers.has(id)) this.followers.set(id, new FollowerReplica(id));
    for (const id of this.followers.keys()) if (!this.replicaIds.includes(id)) this.followers.delete(id);
    if (newEpoch || !wasLeader) {
      const start = this.log.logEndOffset;
      // A follower may hold batches of a later epoch than any in this log after quick successive
      // elections: caching this epoch's start lets OffsetForLeaderEpoch and diverging-epoch checks
      // send it back to here.
      this.log.leaderEpochCache.assign(this.epoch, start);
      this.epochStartOffset = start;
      if (!wasLeader) this.leaderSince = this.epoch;
      const now = this.clock();
      for (const f of this.followers.values()) f.reset(now, start, !wasLeader, this.committedIsr.has(f.brokerId));
    }
    this.maybeAdvanceHighWatermark();
    this.completeAcksWaits();
  }

  updateConfig(config: Readonly<Record<string, string>>): void {
    this.minInsync = Number(config['min.insync.replicas'] ?? '1');
  }

  /** The error for a client that names `currentLeaderEpoch` (see `leaderEpochError`). */
  epochError(currentLeaderEpoch: LeaderEpoch): number {
    return leaderEpochError(currentLeaderEpoch, this.epoch);
  }

  /** Throws the epoch error, or NOT_LEADER_OR_FOLLOWER when this replica does not lead. */
  checkLeader(currentLeaderEpoch: LeaderEpoch): void {
    this.checkEpoch(currentLeaderEpoch);
    if (!this.isLeader) throw new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER, `this broker does not lead ${this.name}`);
  }

  /** Throws the epoch error, or NOT_LEADER_OR_FOLLOWER when this replica leads: only a follower takes a leader's records. */
  checkFollower(currentLeaderEpoch: LeaderEpoch): void {
    this.checkEpoch(currentLeaderEpoch);
    if (this.isLeader) throw new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER, `this broker leads ${this.name}: it replicates from no one`);
  }

  private checkEpoch(currentLeaderEpoch: LeaderEpoch): void {
    const epochError = this.epochError(currentLeaderEpoch);
    if (epochError !== ErrorCode.NONE)
      throw new KafkaError(epochError, `leader epoch ${currentLeaderEpoch} is not the current ${this.epoch}`);
  }

  private get name(): string {
    return `${this.log.topicPartition.topic}-${this.log.topicPartition.partition}`;
  }

  /**
   * Kafka's effective `min.insync.replicas`: never more than the replicas there are, so a topic
   * configured above its replication factor still commits.
   */
  private get effectiveMinIsr(): number {
    return Math.min(this.minInsync, this.replicaIds.length);
  }

  /**
   * Appends a producer's records as leader, stamped with this replica's leader epoch. acks=all
   * is refused up front while the ISR is smaller than `min.insync.replicas`, as Kafka does. With
   * `wait`, an acks=all append that is not committed at once is held until it is (see
   * `takeCompletedAcks`).
   */
  appendAsLeader(
    records: Buffer,
    requiredAcks: number,
    origin: AppendOrigin = 'client',
    txnVerified = false,
    wait?: AcksWaitRequest,
  ): LeaderAppend {
    return this.leaderAppend(requiredAcks, () => this.log.append(records, { leaderEpoch: this.epoch, origin, txnVerified }), wait);
  }

  /**
   * Writes a transaction marker as leader (WriteTxnMarkers), with acks=all as Kafka's coordinator
   * asks: refused while the ISR is below `min.insync.replicas`, answered once the high watermark
   * passes it. The producer state checks are the log's (`appendTxnMarker`).
   */
  writeTxnMarker(marker: TxnMarkerRequest, wait?: AcksWaitRequest): LeaderAppend {
    return this.leaderAppend(ACKS_ALL, () => this.log.appendTxnMarker(marker, { leaderEpoch: this.epoch }), wait);
  }

  private leaderAppend(requiredAcks: number, append: () => AppendResult, wait: AcksWaitRequest | undefined): LeaderAppend {
    this.checkLeader(NO_EPOCH_CHECK);
    if (requiredAcks === ACKS_ALL && this.committedIsr.size < this.effectiveMinIsr) {
      throw new KafkaError(
        ErrorCode.NOT_ENOUGH_REPLICAS,
        `The size of the current ISR ${this.committedIsr.size} is insufficient to satisfy the min.isr requirement of ${this.effectiveMinIsr}`,
      );
    }
    const result = append();
    const highWatermarkMoved = this.maybeAdvanceHighWatermark();
    const committed = this.log.highWatermark > result.lastOffset;
    const requiredOffset = requiredAcks === ACKS_ALL && !committed ? nextOffset(result.lastOffset) : NO_OFFSET;
    if (requiredOffset !== NO_OFFSET && wait !== undefined) this.holdAcksWait(wait, this.epoch, requiredOffset);
    else if (highWatermarkMoved) this.completeAcksWaits();
    return { result, highWatermarkMoved, requiredOffset };
  }

  /**
   * Holds an acks=all wait for records appended at `leaderEpoch` until the high watermark reaches
   * `requiredOffset` (or answers it at once if it can): a coordinator's wait for what an earlier
   * leader wrote, or an append's own.
   */
  awaitCommit(wait: AcksWaitRequest, leaderEpoch: LeaderEpoch, requiredOffset: Offset): void {
    this.holdAcksWait(wait, leaderEpoch, requiredOffset);
  }

  private holdAcksWait(wait: AcksWaitRequest, leaderEpoch: LeaderEpoch, requiredOffset: Offset): void {
    this.waits.push({ id: wait.id, leaderEpoch, requiredOffset, deadline: this.clock() + wait.timeoutMs });
    this.completeAcksWaits();
    if (this.waits.length >= this.sweepAt) {
      const now = this.clock();
      this.waits = this.waits.filter((w) => w.deadline > now);
      this.sweepAt = Math.max(MIN_WAIT_SWEEP, 2 * this.waits.length);
    }
  }

  /**
   * The acks=all waits answered since the last call, each once: the op that answered them
   * carries them to the main thread. Waits whose deadline passed are dropped unanswered — the
   * main thread has answered REQUEST_TIMED_OUT.
   */
  takeCompletedAcks(): readonly CompletedAck[] {
    if (this.completed.length === 0) return NO_COMPLETIONS;
    const out = this.completed;
    this.completed = [];
    return out;
  }

  /** Acks=all waits held (for tests and metrics). */
  get acksWaiting(): number {
    return this.waits.length;
  }

  /**
   * Answers every wait with `errorCode`: the partition is deleted or closed here
   * (NOT_LEADER_OR_FOLLOWER) or its log dir went offline (KAFKA_STORAGE_ERROR).
   */
  failAcksWaits(errorCode: number): void {
    const now = this.clock();
    for (const w of this.waits) if (w.deadline > now) this.completed.push({ id: w.id, errorCode });
    this.waits = [];
  }

  /**
   * Answers the waits whose outcome is known (Kafka's `checkEnoughReplicasReachOffset`, run where
   * the high watermark, the ISR or the leadership can change): once the high watermark reaches a
   * wait's offset, NONE, or NOT_ENOUGH_REPLICAS_AFTER_APPEND when the ISR is below
   * `min.insync.replicas` by then; NOT_LEADER_OR_FOLLOWER as soon as this replica has stopped
   * leading since the append, even if it leads again: its log may have been truncated meanwhile.
   */
  private completeAcksWaits(): void {
    if (this.waits.length === 0) return;
    const now = this.clock();
    const kept: AcksWait[] = [];
    for (const w of this.waits) {
      if (w.deadline <= now) continue;
      const errorCode = this.acksOutcome(w);
      if (errorCode === null) kept.push(w);
      else this.completed.push({ id: w.id, errorCode });
    }
    this.waits = kept;
  }

  private acksOutcome(w: AcksWait): number | null {
    if (!this.isLeader || w.leaderEpoch < this.leaderSince) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    if (this.log.highWatermark < w.requiredOffset) return null;
    return this.maximalIsr.size >= this.effectiveMinIsr ? ErrorCode.NONE : ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND;
  }

  /**
   * Records a follower's fetch position: the leader's view of its log end offset, which can move
   * the high watermark. Returns whether it did.
   */
  updateFollower(replicaId: number, logEndOffset: Offset): boolean {
    const follower = this.followers.get(replicaId);
    if (follower === undefined)
      throw new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER, `broker ${replicaId} is not a replica of ${this.name}`);
    follower.updateFetchState(logEndOffset, this.clock(), this.log.logEndOffset);
    const moved = this.maybeAdvanceHighWatermark();
    if (moved) this.completeAcksWaits();
    return moved;
  }

  /**
   * The high watermark: the lowest log end offset among the maximal ISR and the followers caught
   * up enough to be about to join it (so that one catching up is not left behind by a high
   * watermark that runs ahead of it). It never moves while the ISR is below
   * `min.insync.replicas` — else a last replica standing that fails would lose records the
   * producers were told were committed (KIP-966).
   */
  private maybeAdvanceHighWatermark(): boolean {
    if (!this.isLeader || this.committedIsr.size < this.effectiveMinIsr) return false;
    const leaderEnd = this.log.logEndOffset;
    let committed: Offset = leaderEnd;
    if (this.followers.size > 0) {
      const now = this.clock();
      for (const f of this.followers.values()) {
        if (f.logEndOffset < committed && (this.maximalIsr.has(f.brokerId) || f.isCaughtUp(leaderEnd, now, this.lagTimeMaxMs)))
          committed = f.logEndOffset;
      }
    }
    if (committed <= this.log.highWatermark) return false;
    this.log.highWatermark = committed;
    return true;
  }

  /** The bound of a consumer's read: the last stable offset for read_committed, else the high watermark. */
  readBound(readCommitted: boolean): Offset {
    return readCommitted ? this.lastStableOffset : this.highWatermark;
  }

  /** A consumer's read, as leader: fenced by epoch, bounded by its isolation level. */
  read(
    currentLeaderEpoch: LeaderEpoch,
    fetchOffset: Offset,
    maxBytes: number,
    options: { readCommitted: boolean } & Pick<ReadOptions, 'minOneMessage'>,
  ): LogSlice | null {
    this.checkLeader(currentLeaderEpoch);
    return this.log.read(fetchOffset, maxBytes, {
      maxOffsetExclusive: this.readBound(options.readCommitted),
      minOneMessage: options.minOneMessage,
    });
  }

  /**
   * The aborted transactions a read_committed read from `fetchOffset` must tell the consumer
   * about: those overlapping [fetchOffset, last stable offset) — the read's bound, so they cover
   * whatever part of it the read returns.
   */
  abortedTransactions(fetchOffset: Offset): AbortedTxn[] {
    return this.log.collectAbortedTransactions(fetchOffset, this.lastStableOffset);
  }

  /**
   * A follower's fetch (Kafka's `fetchRecords` for a replica): fenced by epoch, from a replica of
   * the partition, bounded by the log end offset. With a last fetched epoch, the follower's log
   * is first checked against this leader's epochs: when that epoch ends here before the fetch
   * offset (or is not in this log, a later one taking its place), the logs diverged and the
   * answer is where, with no records. Otherwise the fetch offset is the follower's log end, which
   * can move the high watermark and qualify the follower for the ISR.
   */
  readForFollower(
    replicaId: number,
    currentLeaderEpoch: LeaderEpoch,
    fetchOffset: Offset,
    lastFetchedEpoch: LeaderEpoch,
    maxBytes: number,
    minOneMessage: boolean,
  ): FollowerRead {
    this.checkLeader(currentLeaderEpoch);
    const follower = this.followers.get(replicaId);
    if (follower === undefined) {
      // Kafka's answer: with an epoch the pair (replica, epoch) is not known yet here and the
      // follower retries; without one it cannot be told whose state is stale.
      const code = currentLeaderEpoch === NO_EPOCH_CHECK ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.UNKNOWN_LEADER_EPOCH;
      throw new KafkaError(code, `broker ${replicaId} is not a replica of ${this.name} at leader epoch ${this.epoch}`);
    }
    if (lastFetchedEpoch !== NO_EPOCH) {
      const divergingEpoch = this.divergence(fetchOffset, lastFetchedEpoch);
      if (divergingEpoch !== null) return { slice: null, divergingEpoch, highWatermarkMoved: false, isrCandidate: false };
    }
    const slice = this.log.read(fetchOffset, maxBytes, { maxOffsetExclusive: this.log.logEndOffset, minOneMessage });
    follower.updateFetchState(fetchOffset, this.clock(), this.log.logEndOffset);
    const highWatermarkMoved = this.maybeAdvanceHighWatermark();
    if (highWatermarkMoved) this.completeAcksWaits();
    return { slice, divergingEpoch: null, highWatermarkMoved, isrCandidate: this.pendingIsr === null && this.mayJoinIsr(follower) };
  }

  /** Where a follower at `fetchOffset` with `lastFetchedEpoch` diverged from this log, or null if it has not. */
  private divergence(fetchOffset: Offset, lastFetchedEpoch: LeaderEpoch): EpochEndOffset | null {
    const end = this.log.leaderEpochCache.endOffsetFor(lastFetchedEpoch, this.log.logEndOffset);
    if (end.epoch === NO_EPOCH || end.endOffset < 0) {
      throw new KafkaError(ErrorCode.OFFSET_OUT_OF_RANGE, `the end of epoch ${lastFetchedEpoch} is not known in ${this.name}`);
    }
    if (fetchOffset < this.log.logStartOffset) {
      throw new KafkaError(
        ErrorCode.OFFSET_OUT_OF_RANGE,
        `offset ${fetchOffset} is before the log start ${this.log.logStartOffset} of ${this.name}`,
      );
    }
    return end.epoch < lastFetchedEpoch || end.endOffset < fetchOffset ? end : null;
  }

  /**
   * Kafka's `isFollowerInSync` for expansion: outside the ISR, at or past the high watermark, and
   * caught up into this leader's epoch — one that has only records of earlier epochs could become
   * leader without the committed records this epoch added between the high watermark and the end.
   */
  private mayJoinIsr(follower: FollowerReplica): boolean {
    return (
      !this.committedIsr.has(follower.brokerId) &&
      this.epochStartOffset >= 0 &&
      follower.logEndOffset >= this.log.highWatermark &&
      follower.logEndOffset >= this.epochStartOffset
    );
  }

  /**
   * The ISR this leader wants now, marked pending until the controller answers (Kafka's
   * `maybeShrinkIsr` / `maybeExpandIsr`): without the followers that have not caught up within
   * `replica.lag.time.max.ms`, else with one follower that qualifies to join. Null while another
   * change is pending (unless its answer asked for it again), when not leading, or when the ISR
   * is as it should be.
   */
  proposeIsr(): IsrChangeProposal | null {
    if (!this.isLeader) return null;
    if (this.pendingIsr !== null) {
      if (!this.resendPendingIsr) return null;
      this.resendPendingIsr = false;
      return { leaderEpoch: this.epoch, partitionEpoch: this.pendingIsr.partitionEpoch, newIsr: this.pendingIsr.isr };
    }
    const leaderEnd = this.log.logEndOffset;
    const now = this.clock();
    const current = [...this.committedIsr];
    const outOfSync = current.filter(
      (id) => id !== this.localId && !(this.followers.get(id)?.isCaughtUp(leaderEnd, now, this.lagTimeMaxMs) ?? false),
    );
    let change: PendingIsrChange | null = null;
    if (outOfSync.length > 0) {
      change = { kind: 'shrink', isr: current.filter((id) => !outOfSync.includes(id)), partitionEpoch: this.partitionEpochValue };
    } else {
      for (const f of this.followers.values()) {
        if (this.mayJoinIsr(f)) {
          change = { kind: 'expand', isr: [...current, f.brokerId], partitionEpoch: this.partitionEpochValue };
          break;
        }
      }
    }
    if (change === null) return null;
    this.pendingIsr = change;
    this.maximalIsr = change.kind === 'expand' ? new Set(change.isr) : this.committedIsr;
    return { leaderEpoch: this.epoch, partitionEpoch: this.partitionEpochValue, newIsr: change.isr };
  }

  /**
   * The controller's answer to the pending proposal (Kafka's `handleAlterPartitionUpdate` and
   * `handleAlterPartitionError`). An answer to another proposal, or from another leader epoch, is
   * ignored. A committed state at this leader epoch and no older partition epoch becomes the ISR.
   * An error that says the proposal was not applied reverts to the committed ISR; one that says
   * this replica's state is outdated leaves the change pending until the controller's next state;
   * any other leaves it pending and sends the same proposal again.
   */
  answerIsr(answer: IsrAnswer): { highWatermarkMoved: boolean } {
    const none = { highWatermarkMoved: false };
    const pending = this.pendingIsr;
    if (pending === null || answer.proposedLeaderEpoch !== this.epoch || answer.proposedPartitionEpoch !== pending.partitionEpoch)
      return none;
    if (answer.errorCode !== ErrorCode.NONE) {
      if (NOT_APPLIED_ERRORS.has(answer.errorCode)) this.setCommittedIsr(this.committedIsr);
      else if (!AWAIT_STATE_ERRORS.has(answer.errorCode)) this.resendPendingIsr = true;
      return none;
    }
    if (answer.leaderEpoch !== this.epoch || answer.partitionEpoch < this.partitionEpochValue) return none;
    this.partitionEpochValue = answer.partitionEpoch;
    this.setCommittedIsr(new Set(answer.isr));
    const highWatermarkMoved = this.maybeAdvanceHighWatermark();
    this.completeAcksWaits();
    return { highWatermarkMoved };
  }

  /** A committed ISR, with no change pending. */
  private setCommittedIsr(isr: ReadonlySet<number>): void {
    this.committedIsr = isr;
    this.maximalIsr = isr;
    this.pendingIsr = null;
    this.resendPendingIsr = false;
  }

  /**
   * Appends records fetched from the leader, as a follower: whole batches keeping their offsets
   * and leader epochs (which also record, batch by batch, where each epoch starts in this log),
   * CRC checked. Then the high watermark is the leader's, as far as this log reaches, and the log
   * start follows the leader's forward (Kafka's `maybeIncrementLogStartOffset`), never past the
   * high watermark.
   */
  appendAsFollower(
    records: Buffer,
    leaderHighWatermark: Offset,
    leaderLogStartOffset: Offset,
    currentLeaderEpoch: LeaderEpoch = NO_EPOCH_CHECK,
  ): void {
    this.checkFollower(currentLeaderEpoch);
    const log = this.log;
    const first = firstBatchRange(records);
    // An empty log starting inside the leader's first batch (the leader's log start is inside it,
    // after DeleteRecords): Kafka restarts the log at that batch rather than refusing it.
    if (
      first !== null &&
      log.logEndOffset === log.logStartOffset &&
      first.baseOffset < log.logEndOffset &&
      first.lastOffset >= log.logEndOffset
    ) {
      log.truncateFullyAndStartAt(first.baseOffset);
    }
    if (records.byteLength > 0) log.appendAsFollower(records);
    log.highWatermark = earliest(latest(leaderHighWatermark, log.logStartOffset), log.logEndOffset);
    if (leaderLogStartOffset > log.logStartOffset) log.deleteRecordsTo(earliest(leaderLogStartOffset, log.highWatermark));
  }

  /**
   * A follower's truncation after its leader answered a diverging epoch (Kafka's
   * `getOffsetTruncationState`): the leader's `epoch` (the largest it has at or below this log's
   * last) ends at `endOffset` there. If this log holds that epoch too, they agree up to the
   * smaller of the two ends of it. If not, this log's records after its own last epoch below it
   * were written in an epoch the leader never had: they go, and the next fetch checks again from
   * the earlier epoch (KIP-279: after quick successive elections one step is not enough). Never
   * to the high watermark alone (KIP-101). Returns the offset the log now ends at.
   */
  truncateToDivergence(diverging: EpochEndOffset, currentLeaderEpoch: LeaderEpoch): Offset {
    this.checkFollower(currentLeaderEpoch);
    const end = this.log.logEndOffset;
    const own = this.log.leaderEpochCache.endOffsetFor(diverging.epoch, end);
    let target: Offset;
    if (own.endOffset < 0) target = earliest(diverging.endOffset, end);
    else if (own.epoch !== diverging.epoch) target = earliest(own.endOffset, end);
    else target = earliest(own.endOffset, diverging.endOffset, end);
    this.truncate(target, false, currentLeaderEpoch);
    return this.log.logEndOffset;
  }

  /**
   * A follower's truncation: to `offset` (a leader whose log ends before this one), or with
   * `fully`, to nothing, the log restarting at `offset` (behind the leader's log start).
   */
  truncate(offset: Offset, fully: boolean, currentLeaderEpoch: LeaderEpoch = NO_EPOCH_CHECK): void {
    this.checkFollower(currentLeaderEpoch);
    if (offset < 0) throw new KafkaError(ErrorCode.OFFSET_OUT_OF_RANGE, `cannot truncate ${this.name} to ${offset}`);
    if (fully) this.log.truncateFullyAndStartAt(offset);
    else this.log.truncateTo(offset);
  }
}

/** The offsets of the first whole batch header in `records`, or null if there is none. */
function firstBatchRange(records: Buffer): { baseOffset: Offset; lastOffset: number } | null {
  if (records.byteLength < BatchLayout.RECORDS_OFFSET) return null;
  const baseOffset = offsetOf(records.readBigInt64BE(BatchLayout.BASE_OFFSET_OFFSET));
  return { baseOffset, lastOffset: baseOffset + records.readInt32BE(BatchLayout.LAST_OFFSET_DELTA_OFFSET) };
}
