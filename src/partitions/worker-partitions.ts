/**
 * What a partition worker hosts, and every op it serves, as one object: the LogManager over the
 * partitions routed to this worker, a `Partition` replica for each partition the controller's
 * state has reached (`open`), the read leases, the worker's metrics and its log dir moves. One
 * method per `PartitionOps` op, taking the op's request and returning its reply; the ticks
 * (`advanceMoves`, `maintain`) and `closeLogs` complete it. `partition-ops.ts` binds it to the
 * rings; nothing here knows of them, so a test builds one over a temporary log dir and calls it.
 *
 * Runs in the worker thread; nothing here is shared with another thread except the leased file
 * descriptors, which stay open until the main thread posts `release` after its sendfile.
 */
import type { FollowerAppendRequest, ReplicaPositionCommand, ReplicaPositionReply, TruncateCommand } from '../replication/replica-logs.js';
import { performance } from 'node:perf_hooks';
import { KafkaError, kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { WorkerMetrics } from '../common/metrics/worker-metrics.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { RecordValidationError } from '@sluice/protocol/records/index.js';
import {
  LogManager,
  StorageError,
  VerificationRequired,
  writeCleanShutdownMarker,
  writeLogDirCheckpoints,
  type LogDirCheckpoint,
  type LogSlice,
  type TimestampOffset,
} from '../storage/index.js';
import { EARLIEST_LOCAL_TIMESTAMP, EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, MAX_TIMESTAMP } from '@sluice/protocol/offset-requests.js';
import { logDirSpace } from './log-dir-space.js';
import { Partition, type CompletedAck, type LeaderAppend } from '../replication/partition.js';
import {
  NO_COMPLETED_ACKS,
  NO_TIMESTAMP,
  failedAppend,
  failedPosition,
  failedReadBytes,
  type AcksReply,
  type AlterLogDirCommand,
  type AppendReply,
  type AppendRequest,
  type AwaitCommitCommand,
  type AwaitCommitReply,
  type DeleteCommand,
  type DescribeProducersReply,
  type IsrAnswerReply,
  type ListOffsetCommand,
  type MetricsCommand,
  type MetricsReply,
  type OffsetReply,
  type OpenCommand,
  type DeleteRecordsCommand,
  type OffsetCommand,
  type OffsetForEpochCommand,
  type PartitionEndReply,
  type PartitionWorkerOptions,
  type ReadBytesReply,
  type ReadCommand,
  type ReadReply,
  type TakeLogDirOfflineCommand,
  type TxnMarkerEntry,
  type UpdateConfigCommand,
  type WorkerLogDir,
  type WriteCheckpointsCommand,
} from './partition-protocol.js';
import { workerForPartition } from '../worker-pool/partition-routing.js';
import type { IsrAnswer } from '../replication/partition-state.js';
import type { IsrChangeRequest } from '../metadata/replica-control.js';
import { NO_EPOCH, NO_OFFSET, type Offset } from '@sluice/protocol/common/offsets.js';
import { type TopicPartition, topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';

/** Append errors Kafka answers without the partition's log start offset. */
const NO_LOG_START_ERRORS: ReadonlySet<number> = new Set([
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.MESSAGE_TOO_LARGE,
  ErrorCode.RECORD_LIST_TOO_LARGE,
  ErrorCode.CORRUPT_MESSAGE,
  ErrorCode.KAFKA_STORAGE_ERROR,
  ErrorCode.UNKNOWN_TOPIC_ID,
]);
/** How many bytes at most moving partitions copy into their future logs each tick. */
const LOG_MOVE_BYTES_PER_TICK = 4 * 1024 * 1024;
/** Kafka refuses a move whose future directory name would not fit a file name (KAFKA-4893). */
const MAX_DIR_NAME_LENGTH = 255;
const FUTURE_DIR_NAME_EXTRA = '.'.length + 32 + '-future'.length;

/** Kafka's -5 (LATEST_TIERED_TIMESTAMP). */
const LATEST_TIERED_TIMESTAMP = -5n;

function failedOffset(errorCode: number): OffsetReply {
  return { errorCode, timestamp: NO_TIMESTAMP, offset: NO_OFFSET, leaderEpoch: NO_EPOCH };
}

export interface WorkerPartitionsOptions {
  /** This worker's index among `workerCount`: it hosts the partitions routed to it. */
  readonly workerIndex: number;
  readonly workerCount: number;
  readonly options: PartitionWorkerOptions;
  /** Monotonic milliseconds (`performance.now` by default): paces log dir moves, times appends and maintenance. */
  readonly now?: () => number;
}

export class WorkerPartitions {
  private readonly options: PartitionWorkerOptions;
  private readonly now: () => number;
  private readonly manager: LogManager;
  private readonly workerMetrics: WorkerMetrics;
  /** The replicas this worker hosts: a log becomes one when the controller's state for it arrives (open). */
  private readonly partitions = new Map<string, Partition>();
  private readonly leases = new Map<number, LogSlice>();
  private nextLeaseId = 1;
  private closed = false;
  /**
   * acks=all waits answered outside any partition's own op (a partition deleted or replaced, a log
   * dir gone offline): the next reply that carries completions takes them.
   */
  private unsentAcks: CompletedAck[] = [];
  // The copy rate, the broker's shared evenly by its workers: a byte allowance that grows with
  // time (a second's worth at most) and pays for each copy.
  private readonly moveRate: number;
  private moveAllowance = 0;
  private lastMoveTick: number;

  constructor({ workerIndex, workerCount, options, now = () => performance.now() }: WorkerPartitionsOptions) {
    this.options = options;
    this.now = now;
    const owns = (tp: TopicPartition): boolean => workerForPartition(tp.topic, tp.partition, workerCount) === workerIndex;
    this.manager = LogManager.open({
      logDirs: options.logDirs,
      owns,
      shared: { cleanShutdownDirs: new Set(options.cleanShutdownDirs) },
      nodeId: options.nodeId,
      clusterId: options.clusterId,
      cleaner: options.cleanerThreads > 0 ? { threads: options.cleanerThreads } : false,
      producerIdExpirationMs: options.producerIdExpirationMs,
      producerIdExpirationCheckIntervalMs: options.producerIdExpirationCheckIntervalMs,
    });
    this.workerMetrics = new WorkerMetrics(workerIndex);
    for (const dir of this.manager.logDirs) {
      dir.onOffline(() => {
        for (const partition of this.partitions.values())
          if (partition.log.logDir === dir) this.dropWaits(partition, ErrorCode.KAFKA_STORAGE_ERROR);
      });
    }
    this.moveRate = options.logDirMoveBytesPerSecond / workerCount;
    this.lastMoveTick = now();
  }

  // ---- partition state ----

  open(c: OpenCommand): AcksReply {
    for (const state of c.partitions) {
      const ref = { topic: c.topic, partition: state.partition };
      const log = this.manager.getOrCreateLog(ref, { topicId: c.topicId, config: c.config });
      log.updateConfig(c.config);
      let partition = this.partitions.get(topicPartitionKey(ref.topic, ref.partition));
      if (partition === undefined || partition.log !== log) {
        if (partition !== undefined) this.dropWaits(partition, ErrorCode.NOT_LEADER_OR_FOLLOWER);
        partition = new Partition(log, this.options.nodeId, { replicaLagTimeMaxMs: this.options.replicaLagTimeMaxMs });
        this.partitions.set(topicPartitionKey(ref.topic, ref.partition), partition);
      }
      partition.applyState(state, c.config);
      for (const done of partition.takeCompletedAcks()) this.unsentAcks.push(done);
    }
    return { completedAcks: this.completedAcks(undefined) };
  }

  delete(c: DeleteCommand): AcksReply {
    for (const index of c.partitions) {
      const ref = { topic: c.topic, partition: index };
      const partition = this.partitions.get(topicPartitionKey(ref.topic, ref.partition));
      if (partition !== undefined) this.dropWaits(partition, ErrorCode.NOT_LEADER_OR_FOLLOWER);
      this.partitions.delete(topicPartitionKey(ref.topic, ref.partition));
      this.manager.deleteLog(ref);
    }
    return { completedAcks: this.completedAcks(undefined) };
  }

  updateConfig(c: UpdateConfigCommand): void {
    for (const p of c.partitions) {
      const partition = this.partitions.get(topicPartitionKey(c.topic, p));
      partition?.log.updateConfig(c.config);
      partition?.updateConfig(c.config);
    }
  }

  // ---- leaders' writes ----

  /** The records are views on ring memory: each append validates and writes them from there. */
  append(entries: readonly AppendRequest[]): AppendReply[] {
    return entries.map((e) => this.appendOne(e));
  }

  writeTxnMarkers(entries: readonly TxnMarkerEntry[]): AppendReply[] {
    return entries.map((e): AppendReply => {
      try {
        const partition = this.partitionOf(e);
        return this.appendReply(partition, partition.writeTxnMarker(e, e.acksWait));
      } catch (err) {
        return { ...failedAppend(kafkaErrorCode(err), (err as Error).message), completedAcks: this.completedAcks(undefined) };
      }
    });
  }

  awaitCommit(commands: readonly AwaitCommitCommand[]): AwaitCommitReply[] {
    return commands.map((c): AwaitCommitReply => {
      try {
        const partition = this.partitionOf(c);
        partition.awaitCommit(c.wait, c.leaderEpoch, c.requiredOffset);
        return { errorCode: ErrorCode.NONE, completedAcks: this.completedAcks(partition) };
      } catch (err) {
        return { errorCode: kafkaErrorCode(err), completedAcks: this.completedAcks(undefined) };
      }
    });
  }

  // ---- reads ----

  read(commands: readonly ReadCommand[]): ReadReply[] {
    return commands.map((c) => this.readOne(c));
  }

  readBytes(c: ReadCommand): ReadBytesReply {
    try {
      const partition = this.partitionOf(c);
      partition.checkLeader(c.currentLeaderEpoch);
      const log = partition.log;
      const bytes = log.readBuffer(c.fetchOffset, c.maxBytes, {
        maxOffsetExclusive: log.logEndOffset,
        minOneMessage: c.minOneMessage,
      });
      return {
        errorCode: ErrorCode.NONE,
        highWatermark: log.highWatermark,
        logEndOffset: log.logEndOffset,
        leaderEpoch: partition.leaderEpoch,
        logStartOffset: log.logStartOffset,
        bytes,
      };
    } catch (err) {
      return failedReadBytes(kafkaErrorCode(err));
    }
  }

  release(ids: readonly number[]): void {
    for (const id of ids) {
      this.leases.get(id)?.release();
      this.leases.delete(id);
    }
  }

  // ---- one partition's offsets ----

  listOffset(c: ListOffsetCommand): OffsetReply {
    return this.offsetOp(c, (partition) => {
      const timestamp = c.timestamp;
      const log = partition.log;
      const none: OffsetReply = { errorCode: ErrorCode.NONE, timestamp: NO_TIMESTAMP, offset: NO_OFFSET, leaderEpoch: NO_EPOCH };
      const at = (offset: Offset): OffsetReply => ({ ...none, offset, leaderEpoch: partition.leaderEpoch });
      const hit = (found: TimestampOffset | null): OffsetReply =>
        found === null ? none : { ...none, timestamp: BigInt(found.timestamp), offset: found.offset, leaderEpoch: partition.leaderEpoch };
      if (timestamp === EARLIEST_TIMESTAMP || timestamp === EARLIEST_LOCAL_TIMESTAMP) return at(log.logStartOffset);
      if (timestamp === LATEST_TIMESTAMP) return at(partition.readBound(c.readCommitted));
      if (timestamp === LATEST_TIERED_TIMESTAMP) return none;
      if (timestamp === MAX_TIMESTAMP) return hit(log.offsetOfMaxTimestamp());
      if (timestamp < 0n) return failedOffset(ErrorCode.INVALID_REQUEST);
      // Kafka: a record found by time counts only below what the isolation level may read.
      const found = log.offsetForTimestamp(Number(timestamp));
      return hit(found !== null && found.offset < partition.readBound(c.readCommitted) ? found : null);
    });
  }

  deleteRecords(c: DeleteRecordsCommand): OffsetReply {
    return this.offsetOp(c, (partition) => {
      const target = c.offset === NO_OFFSET ? partition.highWatermark : c.offset;
      if (target < 0 || target > partition.highWatermark) return failedOffset(ErrorCode.OFFSET_OUT_OF_RANGE);
      const lowWatermark = partition.log.deleteRecordsTo(target);
      return { errorCode: ErrorCode.NONE, timestamp: NO_TIMESTAMP, offset: lowWatermark, leaderEpoch: partition.leaderEpoch };
    });
  }

  offsetForEpoch(c: OffsetForEpochCommand): OffsetReply {
    return this.offsetOp(c, (partition) => {
      const { epoch, endOffset } = partition.log.leaderEpochCache.endOffsetFor(c.leaderEpoch, partition.log.logEndOffset);
      return { errorCode: ErrorCode.NONE, timestamp: NO_TIMESTAMP, offset: endOffset, leaderEpoch: epoch };
    });
  }

  describeProducers(ref: TopicPartition): DescribeProducersReply {
    try {
      const producers = [...this.partitionOf(ref).log.activeProducers().values()].map((p) => ({
        producerId: p.producerId.toString(),
        producerEpoch: p.producerEpoch,
        lastSequence: p.lastSeq,
        lastTimestamp: p.lastTimestamp,
        coordinatorEpoch: p.coordinatorEpoch,
        currentTxnStartOffset: p.currentTxnFirstOffset,
      }));
      return { errorCode: ErrorCode.NONE, producers };
    } catch (err) {
      return { errorCode: kafkaErrorCode(err), producers: [] };
    }
  }

  // ---- followers ----

  /** As with append, the records are views on ring memory, written from there. */
  appendAsFollower(entries: readonly FollowerAppendRequest[]): ReplicaPositionReply[] {
    return entries.map((e) =>
      this.followerOp(e, (partition) => {
        const started = this.now();
        partition.appendAsFollower(e.records, e.leaderHighWatermark, e.leaderLogStartOffset, e.currentLeaderEpoch);
        if (e.records.byteLength > 0)
          this.workerMetrics.appended(
            e.records.byteLength,
            (this.now() - started) / 1000,
            partition.log.flushState.unflushedMessages === 0,
          );
      }),
    );
  }

  truncate(commands: readonly TruncateCommand[]): ReplicaPositionReply[] {
    return commands.map((c) =>
      this.followerOp(c, (partition) => {
        if (c.kind === 'restart') partition.truncate(c.offset, true, c.currentLeaderEpoch);
        else partition.truncateToDivergence({ epoch: c.divergingEpoch, endOffset: c.offset }, c.currentLeaderEpoch);
      }),
    );
  }

  replicaPosition(commands: readonly ReplicaPositionCommand[]): ReplicaPositionReply[] {
    return commands.map((c) => this.followerOp(c, (partition) => partition.checkFollower(c.currentLeaderEpoch)));
  }

  // ---- ISR ----

  /** The ISR changes this worker's leaders want now (see `Partition.proposeIsr`). */
  isrProposals(): IsrChangeRequest[] {
    const proposals: IsrChangeRequest[] = [];
    for (const partition of this.partitions.values()) {
      if (partition.log.closed) continue;
      const proposal = partition.proposeIsr();
      if (proposal !== null) proposals.push({ ...partition.log.topicPartition, ...proposal });
    }
    return proposals;
  }

  isrAnswers(answers: readonly IsrAnswer[]): IsrAnswerReply[] {
    return answers.map((a): IsrAnswerReply => {
      try {
        const partition = this.partitionOf(a);
        const { highWatermarkMoved } = partition.answerIsr(a);
        return {
          errorCode: ErrorCode.NONE,
          highWatermarkMoved,
          highWatermark: partition.highWatermark,
          completedAcks: this.completedAcks(partition),
        };
      } catch (err) {
        return {
          errorCode: kafkaErrorCode(err),
          highWatermarkMoved: false,
          highWatermark: NO_OFFSET,
          completedAcks: this.completedAcks(undefined),
        };
      }
    });
  }

  // ---- log dirs ----

  describeLogDirs(): WorkerLogDir[] {
    const manager = this.manager;
    return manager.logDirs.map((dir): WorkerLogDir => {
      const current = [...manager.logs()].map((log) => ({ log, isFuture: false, offsetLag: 0 }));
      const futures = [...manager.futureLogs()].map(({ log, lag }) => ({ log, isFuture: true, offsetLag: lag }));
      const hosted = [...current, ...futures]
        .filter(({ log }) => log.logDir === dir)
        .map(({ log, isFuture, offsetLag }) => ({
          topic: log.topicPartition.topic,
          partition: log.topicPartition.partition,
          sizeBytes: log.size,
          isFuture,
          offsetLag,
        }));
      return { path: dir.path, online: dir.online, ...logDirSpace(dir.path), partitions: hosted };
    });
  }

  takeLogDirOffline(c: TakeLogDirOfflineCommand): void {
    this.manager.logDirs.find((dir) => dir.path === c.path)?.markOffline(new StorageError(`log dir ${c.path} failed: ${c.reason}`));
  }

  alterLogDirs(commands: readonly AlterLogDirCommand[]): number[] {
    return commands.map((c) => this.alterLogDir(c));
  }

  checkpointEntries(): LogDirCheckpoint[] {
    return this.manager.checkpointEntries();
  }

  writeCheckpoints(c: WriteCheckpointsCommand): void {
    const byDir = new Map<string, LogDirCheckpoint[]>();
    for (const share of c.shares.flat()) byDir.set(share.path, [...(byDir.get(share.path) ?? []), share]);
    for (const [path, shares] of byDir) {
      if (!shares.every((s) => s.online)) continue;
      writeLogDirCheckpoints(...shares);
      if (c.cleanShutdown) writeCleanShutdownMarker(path);
    }
  }

  /** Releases the leases and closes every log, once; answers the checkpoints as they then stand. */
  closeLogs(): LogDirCheckpoint[] {
    if (!this.closed) {
      this.closed = true;
      for (const slice of this.leases.values()) slice.release();
      this.leases.clear();
      this.manager.close();
    }
    return this.manager.checkpointEntries();
  }

  async metrics(c: MetricsCommand): Promise<MetricsReply> {
    let hostedCount = 0;
    let segments = 0;
    if (!this.closed) {
      for (const log of this.manager.logs()) {
        hostedCount++;
        segments += log.segmentCount;
      }
    }
    const ends = c.partitions.map((ref): PartitionEndReply => {
      const partition = this.closed ? undefined : this.partitions.get(topicPartitionKey(ref.topic, ref.partition));
      return partition === undefined
        ? { topic: ref.topic, partition: ref.partition, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, highWatermark: NO_OFFSET }
        : { topic: ref.topic, partition: ref.partition, errorCode: ErrorCode.NONE, highWatermark: partition.highWatermark };
    });
    return { metrics: await this.workerMetrics.snapshot({ partitions: hostedCount, segments }), ends };
  }

  // ---- ticks ----

  /** Copies moving partitions into their future logs, as much as the rate allows, and swaps those done. */
  advanceMoves(): void {
    const now = this.now();
    this.moveAllowance = Math.min(this.moveAllowance + ((now - this.lastMoveTick) / 1000) * this.moveRate, this.moveRate);
    this.lastMoveTick = now;
    if (this.closed || this.moveAllowance <= 0) return;
    const { swapped, copiedBytes } = this.manager.advanceMoves(Math.min(this.moveAllowance, LOG_MOVE_BYTES_PER_TICK));
    this.moveAllowance -= copiedBytes;
    for (const tp of swapped) {
      const moved = this.manager.getLog(tp);
      if (moved !== undefined) this.partitions.get(topicPartitionKey(tp.topic, tp.partition))?.replaceLog(moved);
    }
  }

  /** The log manager's periodic work (retention, flushes, producer expiry), timed. */
  maintain(): void {
    if (this.closed) return;
    const started = this.now();
    this.manager.maintain();
    this.workerMetrics.maintained((this.now() - started) / 1000);
  }

  // ---- helpers ----

  /** The waits `partition` answered during this op, with any left unsent: for the op's reply. */
  private completedAcks(partition: Partition | undefined): readonly CompletedAck[] {
    const own = partition === undefined ? NO_COMPLETED_ACKS : partition.takeCompletedAcks();
    if (this.unsentAcks.length === 0) return own;
    const all = own.length === 0 ? this.unsentAcks : this.unsentAcks.concat(own);
    this.unsentAcks = [];
    return all;
  }

  /** A replica that goes away here answers its waits as a partition not led here. */
  private dropWaits(partition: Partition, errorCode: number): void {
    partition.failAcksWaits(errorCode);
    for (const c of partition.takeCompletedAcks()) this.unsentAcks.push(c);
  }

  private partitionOf(ref: TopicPartition): Partition {
    const partition = this.partitions.get(topicPartitionKey(ref.topic, ref.partition));
    if (partition === undefined || partition.log.closed)
      throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `${ref.topic}-${ref.partition} is not hosted here`);
    return partition;
  }

  private appendReply(partition: Partition, { result, highWatermarkMoved, requiredOffset }: LeaderAppend): AppendReply {
    return {
      completedAcks: this.completedAcks(partition),
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      recordErrors: [],
      baseOffset: result.baseOffset,
      logAppendTimeMs: BigInt(result.logAppendTimeMs),
      logStartOffset: result.logStartOffset,
      highWatermark: partition.highWatermark,
      highWatermarkMoved,
      leaderEpoch: partition.leaderEpoch,
      requiredOffset,
      needsVerification: false,
      wakeReads: [],
    };
  }

  private appendOne({
    topic,
    partition: index,
    requiredAcks,
    records,
    origin,
    txnVerified,
    wakeReads,
    acksWait,
  }: AppendRequest): AppendReply {
    try {
      const partition = this.partitionOf({ topic, partition: index });
      const started = this.now();
      const appended = partition.appendAsLeader(records, requiredAcks, origin, txnVerified, acksWait);
      // An append leaves unflushed messages behind unless it reached flush.messages and flushed.
      this.workerMetrics.appended(records.byteLength, (this.now() - started) / 1000, partition.log.flushState.unflushedMessages === 0);
      const reply = this.appendReply(partition, appended);
      // Parked consumers can read only what the high watermark has passed.
      return wakeReads === undefined || !appended.highWatermarkMoved
        ? reply
        : { ...reply, wakeReads: wakeReads.map((r) => this.readOne(r)) };
    } catch (err) {
      // Not a failure: the handler verifies the batch with the transaction coordinator and sends it again.
      if (err instanceof VerificationRequired)
        return {
          ...failedAppend(ErrorCode.INVALID_TXN_STATE, err.message),
          needsVerification: true,
          completedAcks: this.completedAcks(undefined),
        };
      const errorCode = kafkaErrorCode(err);
      // A failed write can take its log dir offline, which answers that dir's waits.
      const failed = {
        ...failedAppend(errorCode, (err as Error).message, err instanceof RecordValidationError ? err.recordErrors : []),
        completedAcks: this.completedAcks(undefined),
      };
      // As Kafka's ReplicaManager: a batch the log refuses (sequence, epoch, record validation)
      // is answered with the partition's log start offset; one refused before it, or by a
      // partition not hosted here, with none.
      const hosted = NO_LOG_START_ERRORS.has(errorCode) ? undefined : this.partitions.get(topicPartitionKey(topic, index));
      return hosted === undefined || hosted.log.closed ? failed : { ...failed, logStartOffset: hosted.log.logStartOffset };
    }
  }

  private lease(slice: LogSlice | null): ReadReply['slice'] {
    if (slice === null) return null;
    const leaseId = this.nextLeaseId++;
    if (this.nextLeaseId > 0xffffffff) this.nextLeaseId = 1;
    this.leases.set(leaseId, slice);
    return { leaseId, fd: slice.fd, position: slice.position, length: slice.length };
  }

  /** A consumer's read bounded by its isolation level, a follower's by the log end (see `Partition.readForFollower`). */
  private readOne(c: ReadCommand): ReadReply {
    try {
      const partition = this.partitionOf(c);
      let slice: LogSlice | null;
      let highWatermarkMoved = false;
      let divergingEpoch: ReadReply['divergingEpoch'] = null;
      let isrProposal: ReadReply['isrProposal'] = null;
      let abortedTransactions: ReadReply['abortedTransactions'] = null;
      if (c.replicaId < 0) {
        slice = partition.read(c.currentLeaderEpoch, c.fetchOffset, c.maxBytes, {
          readCommitted: c.readCommitted,
          minOneMessage: c.minOneMessage,
        });
        if (c.readCommitted) {
          const aborted = slice === null ? [] : partition.abortedTransactions(c.fetchOffset);
          abortedTransactions = aborted.map((t) => ({ producerId: t.producerId, firstOffset: t.firstOffset }));
        }
      } else {
        const r = partition.readForFollower(
          c.replicaId,
          c.currentLeaderEpoch,
          c.fetchOffset,
          c.lastFetchedEpoch,
          c.maxBytes,
          c.minOneMessage,
        );
        slice = r.slice;
        highWatermarkMoved = r.highWatermarkMoved;
        // Proposed here, so that the main thread sends it without asking for it (`isrProposals`).
        if (r.isrCandidate) isrProposal = partition.proposeIsr();
        divergingEpoch = r.divergingEpoch;
      }
      return {
        errorCode: ErrorCode.NONE,
        highWatermark: partition.highWatermark,
        lastStableOffset: partition.lastStableOffset,
        logStartOffset: partition.log.logStartOffset,
        slice: this.lease(slice),
        abortedTransactions,
        highWatermarkMoved,
        divergingEpoch,
        isrProposal,
        completedAcks: this.completedAcks(partition),
      };
    } catch (err) {
      // Kafka reports no offsets alongside a partition error.
      return {
        errorCode: kafkaErrorCode(err),
        highWatermark: NO_OFFSET,
        lastStableOffset: NO_OFFSET,
        logStartOffset: NO_OFFSET,
        slice: null,
        abortedTransactions: null,
        highWatermarkMoved: false,
        divergingEpoch: null,
        isrProposal: null,
        completedAcks: this.completedAcks(undefined),
      };
    }
  }

  /** The ops about one partition's offsets: answered by its leader, fenced by the client's epoch. */
  private offsetOp(c: OffsetCommand, answer: (partition: Partition) => OffsetReply): OffsetReply {
    try {
      const partition = this.partitionOf(c);
      partition.checkLeader(c.currentLeaderEpoch);
      return answer(partition);
    } catch (err) {
      return failedOffset(kafkaErrorCode(err));
    }
  }

  /** The replication ops on a follower's log answer where the log then stands. */
  private followerOp(c: TopicPartition, apply: (partition: Partition) => void): ReplicaPositionReply {
    try {
      const partition = this.partitionOf(c);
      apply(partition);
      const log = partition.log;
      return {
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        logEndOffset: log.logEndOffset,
        highWatermark: log.highWatermark,
        logStartOffset: log.logStartOffset,
        lastFetchedEpoch: partition.latestEpoch,
      };
    } catch (err) {
      return failedPosition(kafkaErrorCode(err), (err as Error).message);
    }
  }

  /** Kafka's `ReplicaManager.alterReplicaLogDirs`, for one partition of this worker. */
  private alterLogDir(c: AlterLogDirCommand): number {
    try {
      const manager = this.manager;
      const ref = { topic: c.topic, partition: c.partition };
      if (`${c.topic}-${c.partition}`.length + FUTURE_DIR_NAME_EXTRA > MAX_DIR_NAME_LENGTH) return ErrorCode.INVALID_TOPIC_EXCEPTION;
      const dir = manager.logDir(c.path);
      if (dir === undefined) return ErrorCode.LOG_DIR_NOT_FOUND;
      if (!dir.online) return ErrorCode.KAFKA_STORAGE_ERROR;
      const partition = this.partitions.get(topicPartitionKey(ref.topic, ref.partition));
      const hosted = partition !== undefined && !partition.log.closed;
      if (hosted && !partition.log.logDir.online) return ErrorCode.KAFKA_STORAGE_ERROR;
      // A move elsewhere is cancelled; one to this dir goes on.
      if (hosted && manager.futureLog(ref)?.logDir !== dir) manager.deleteFutureLog(ref);
      manager.setPreferredLogDir(ref, c.path);
      if (!hosted) return ErrorCode.REPLICA_NOT_AVAILABLE;
      if (partition.log.logDir !== dir) manager.createFutureLog(ref, c.path);
      return ErrorCode.NONE;
    } catch (err) {
      return kafkaErrorCode(err);
    }
  }
}
