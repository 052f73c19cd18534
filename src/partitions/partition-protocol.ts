/**
 * The partition ops: every command the main thread sends to a partition worker, declared once
 * (`PartitionOps`, at the end) with its request and reply types and bodies, for both ends —
 * `PartitionService` calls them, `WorkerPartitions` answers them and `partition-ops.ts` serves
 * them. The hot ones (append, read, release, offsets, the follower's) have declared bodies: one
 * schema per body, checked against its type and compiled into its codec
 * (`worker-pool/body-schema.ts`); the rare administrative ones carry JSON. Every reply that
 * concerns one partition carries a Kafka error code, so a partition's failure is an answer, not
 * a transport error.
 *
 * Partitions are named by topic name: that is what their directories are called, so a worker
 * can tell which partitions are its own when it loads the log dirs.
 */
import type { WorkerMetricsSnapshot } from '../common/metrics/worker-metrics.js';
import type { AppendOrigin, LogDirCheckpoint } from '../storage/index.js';
import { defineWorkerOp, json, NOTHING } from '../worker-pool/worker-op.js';
import {
  array,
  body,
  bool,
  bytes,
  float64,
  frameBytes,
  int16,
  int32,
  int64,
  int8,
  leaderEpoch,
  nullable,
  offset,
  oneOf,
  optional,
  ownBytes,
  string,
  struct,
  uint32,
  type Field,
} from '../worker-pool/body-schema.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';
import { NO_EPOCH, NO_OFFSET, type LeaderEpoch, type Offset } from '@sluice/protocol/common/offsets.js';
import type { IsrAnswer, PartitionStateCommand } from '../replication/partition-state.js';
import type { IsrChangeRequest } from '../metadata/replica-control.js';
import type { FollowerAppendRequest, ReplicaPositionCommand, ReplicaPositionReply, TruncateCommand } from '../replication/replica-logs.js';
import type { AcksWaitRequest, CompletedAck, IsrChangeProposal } from '../replication/partition.js';

export type { AcksWaitRequest, CompletedAck, IsrChangeProposal };

/** What the worker module is started with (`moduleOptions`, structured-cloned). */
export interface PartitionWorkerOptions {
  readonly logDirs: readonly string[];
  /** Log dirs that were shut down cleanly: their logs open without recovery. */
  readonly cleanShutdownDirs: readonly string[];
  readonly nodeId: number;
  readonly clusterId: string;
  /** Kafka's `log.retention.check.interval.ms`: how often retention and flushes run. */
  readonly maintenanceIntervalMs: number;
  /** `log.cleaner.threads`: 0 turns compaction off. */
  readonly cleanerThreads: number;
  /** `replica.lag.time.max.ms`: how long a follower may go without catching up before it leaves the ISR. */
  readonly replicaLagTimeMaxMs: number;
  /** `producer.id.expiration.ms`: how long a partition keeps an idle producer's state. */
  readonly producerIdExpirationMs: number;
  /** `producer.id.expiration.check.interval.ms`: how often idle producers are looked for. */
  readonly producerIdExpirationCheckIntervalMs: number;
  /** `replica.alter.log.dirs.io.max.bytes.per.second`: this worker's copy rate into future logs. */
  readonly logDirMoveBytesPerSecond: number;
}

export function parseWorkerOptions(raw: unknown): PartitionWorkerOptions {
  const o = raw as Partial<PartitionWorkerOptions> | null;
  const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
  if (
    o === null ||
    typeof o !== 'object' ||
    !strings(o.logDirs) ||
    !strings(o.cleanShutdownDirs) ||
    typeof o.nodeId !== 'number' ||
    typeof o.clusterId !== 'string' ||
    typeof o.maintenanceIntervalMs !== 'number' ||
    typeof o.cleanerThreads !== 'number' ||
    typeof o.replicaLagTimeMaxMs !== 'number' ||
    typeof o.producerIdExpirationMs !== 'number' ||
    typeof o.producerIdExpirationCheckIntervalMs !== 'number' ||
    typeof o.logDirMoveBytesPerSecond !== 'number'
  ) {
    throw new TypeError('partition worker options are malformed');
  }
  return o as PartitionWorkerOptions;
}

// ---- administrative commands (JSON) ----

/** Opens (creating if missing) the topic's partitions and applies their replica state. */
export interface OpenCommand {
  readonly topic: string;
  readonly topicId: string;
  readonly partitions: readonly PartitionStateCommand[];
  /** Effective topic configuration (Kafka keys). */
  readonly config: Readonly<Record<string, string>>;
}

export interface DeleteCommand {
  readonly topic: string;
  readonly partitions: readonly number[];
}

export interface UpdateConfigCommand {
  readonly topic: string;
  readonly partitions: readonly number[];
  readonly config: Readonly<Record<string, string>>;
}

export interface WorkerLogDir {
  readonly path: string;
  readonly online: boolean;
  readonly totalBytes: number;
  readonly usableBytes: number;
  readonly partitions: readonly WorkerPartitionLog[];
}

/** A partition log in a log dir: its current log, or its future log while it moves there. */
export interface WorkerPartitionLog {
  readonly topic: string;
  readonly partition: number;
  readonly sizeBytes: number;
  readonly isFuture: boolean;
  /** A future log's distance to the current log's end; 0 for a current log (Kafka's `getLogEndOffsetLag`). */
  readonly offsetLag: number;
}

/** AlterReplicaLogDirs for one partition: move it to the log dir `path` (absolute, as configured). */
export interface AlterLogDirCommand {
  readonly topic: string;
  readonly partition: number;
  readonly path: string;
}

/** One producer's state in a partition, as DescribeProducers reports it (JSON: int64s as strings). */
export interface ProducerDescription {
  readonly producerId: string;
  readonly producerEpoch: number;
  readonly lastSequence: number;
  readonly lastTimestamp: number;
  readonly coordinatorEpoch: number;
  readonly currentTxnStartOffset: number;
}

export interface DescribeProducersReply {
  readonly errorCode: number;
  readonly producers: readonly ProducerDescription[];
}

/** What writeCheckpoints carries: every worker's share of every log dir, and whether to mark a clean shutdown. */
export interface WriteCheckpointsCommand {
  readonly shares: readonly LogDirCheckpoint[][];
  readonly cleanShutdown: boolean;
}

/** takeLogDirOffline: a log dir that failed in some worker, to be given up by all of them. */
export interface TakeLogDirOfflineCommand {
  readonly path: string;
  readonly reason: string;
}

/** metrics: the partitions whose high watermarks the scrape needs (those with committed group offsets). */
export interface MetricsCommand {
  readonly partitions: readonly TopicPartition[];
}

/** A partition's high watermark as metrics answers it: a number, as the log keeps it. */
export interface PartitionEndReply extends TopicPartition {
  readonly errorCode: number;
  /** -1 with an error. */
  readonly highWatermark: Offset;
}

export interface MetricsReply {
  readonly metrics: WorkerMetricsSnapshot;
  /** One per partition of the command, in its order. */
  readonly ends: readonly PartitionEndReply[];
}

/**
 * What ops that change the partitions' state answer (open, delete): the acks=all waits the change
 * answered (a replica that stopped leading, a partition deleted here).
 */
export interface AcksReply {
  readonly completedAcks: readonly CompletedAck[];
}

export interface IsrAnswerReply {
  /** UNKNOWN_TOPIC_OR_PARTITION when the partition is not hosted here; otherwise NONE. */
  readonly errorCode: number;
  /** The committed ISR let the high watermark advance. */
  readonly highWatermarkMoved: boolean;
  /** The high watermark after the answer (-1 with an error). */
  readonly highWatermark: Offset;
  /** The acks=all waits the answer completed. */
  readonly completedAcks: readonly CompletedAck[];
}

// ---- hot commands (declared bodies, `worker-pool/body-schema.ts`) ----
//
// The hot commands carry many partitions: one append or read per worker per request, not one per
// partition, so a Produce or Fetch costs each worker one ring message, one wake-up and one reply.
// Replies come in the order of the entries. Each body is declared once, against its type.

const acksWait: Field<AcksWaitRequest> = struct({ id: uint32, timeoutMs: int32 });

const completedAck: Field<CompletedAck> = struct({ id: uint32, errorCode: int16 });

/** No acks=all wait completed. */
export const NO_COMPLETED_ACKS: readonly CompletedAck[] = [];

export interface ReadCommand extends TopicPartition {
  /** The leader epoch the client knows, checked against the partition's; NO_EPOCH_CHECK skips it. */
  readonly currentLeaderEpoch: LeaderEpoch;
  readonly fetchOffset: Offset;
  readonly maxBytes: number;
  /** read_committed: nothing at or beyond the last stable offset; otherwise the high watermark bounds the read. */
  readonly readCommitted: boolean;
  readonly minOneMessage: boolean;
  /**
   * The fetching broker's id, or CONSUMER_REPLICA_ID. A follower's fetch is bounded by the log
   * end offset instead of the high watermark, and its offset is the follower's log end.
   */
  readonly replicaId: number;
  /** The epoch of the follower's last fetched batch, checked for divergence; NO_EPOCH for none. */
  readonly lastFetchedEpoch: LeaderEpoch;
}

const readCommand: Field<ReadCommand> = struct({
  topic: string,
  partition: int32,
  currentLeaderEpoch: leaderEpoch,
  fetchOffset: offset,
  maxBytes: int32,
  readCommitted: bool,
  minOneMessage: bool,
  replicaId: int32,
  lastFetchedEpoch: leaderEpoch,
});

/**
 * One partition's records to append as its leader. On the wire: a header, then the records,
 * copied once into the ring after it — or, for a client's records that lie in a pooled request
 * frame, the frame's id, offset and length, and no copy (`shared-frames.ts`). On the worker,
 * `records` is a view over ring or frame memory, valid until the append is answered.
 */
export interface AppendRequest extends TopicPartition {
  /** Produce's acks: -1 needs `min.insync.replicas` in-sync replicas. */
  readonly requiredAcks: number;
  readonly records: Buffer;
  /** A coordinator's own append to its internal topic (default: a client's Produce). */
  readonly origin?: AppendOrigin;
  /** The transaction coordinator confirmed the batch's partition is in its producer's transaction (KIP-890). */
  readonly txnVerified?: boolean;
  /**
   * Reads for the consumer fetches parked on the partition, done right after the append if it
   * moved the high watermark and answered with it (`AppendReply.wakeReads`): a fetch woken by
   * the append then needs no read round trip of its own to the worker.
   */
  readonly wakeReads?: readonly ReadCommand[];
  /**
   * acks=all: the wait the main thread registered for this append. If the append is not
   * committed at once, its leader holds the wait and answers it in the reply of whichever op
   * commits it (or fails it), as `completedAcks`.
   */
  readonly acksWait?: AcksWaitRequest;
}

const appendRequest: Field<AppendRequest> = struct({
  topic: string,
  partition: int32,
  requiredAcks: int16,
  // A client's records in a pooled frame go as a reference; a coordinator's are copied.
  records: frameBytes((e: AppendRequest) => e.origin !== 'coordinator'),
  origin: optional(oneOf(['client', 'coordinator'])),
  txnVerified: optional(bool),
  wakeReads: optional(array(readCommand)),
  acksWait: optional(acksWait),
});

export interface RecordErrorReply {
  readonly batchIndex: number;
  readonly message: string | null;
}

/** A leased file range: valid until release names its lease id. */
export interface ReadSlice {
  readonly leaseId: number;
  readonly fd: number;
  readonly position: number;
  readonly length: number;
}

/** Where the leader's log leaves a follower's: the largest epoch not after the follower's, and where it ends. */
export interface DivergingEpoch {
  readonly epoch: LeaderEpoch;
  readonly endOffset: Offset;
}

/** An aborted transaction overlapping a read_committed read: the consumer drops its producer's records from `firstOffset`. */
export interface AbortedTransaction {
  readonly producerId: bigint;
  readonly firstOffset: Offset;
}

export interface ReadReply {
  readonly errorCode: number;
  readonly highWatermark: Offset;
  readonly lastStableOffset: Offset;
  readonly logStartOffset: Offset;
  readonly slice: ReadSlice | null;
  /** A consumer's read_committed read: the aborted transactions overlapping it ([] for none); null for other reads. */
  readonly abortedTransactions: readonly AbortedTransaction[] | null;
  /** A follower's fetch moved the high watermark: consumers waiting on it can read more. */
  readonly highWatermarkMoved: boolean;
  /** The follower's log diverged from the leader's (no records then): it truncates to `endOffset`. */
  readonly divergingEpoch: DivergingEpoch | null;
  /**
   * The fetching follower, outside the ISR, qualified to join it, and the leader proposed the
   * change (now pending, as `isrProposals` would have made it): to send to the controller.
   */
  readonly isrProposal: IsrChangeProposal | null;
  /** The acks=all waits (of any partition of the worker) a follower's fetch answered. */
  readonly completedAcks: readonly CompletedAck[];
}

const readReply: Field<ReadReply> = struct({
  errorCode: int16,
  highWatermark: offset,
  lastStableOffset: offset,
  logStartOffset: offset,
  slice: nullable(struct({ leaseId: uint32, fd: int32, position: float64, length: int32 })),
  abortedTransactions: nullable(array(struct({ producerId: int64, firstOffset: offset }))),
  highWatermarkMoved: bool,
  divergingEpoch: nullable(struct({ epoch: leaderEpoch, endOffset: offset })),
  isrProposal: nullable(struct({ leaderEpoch: int32, partitionEpoch: int32, newIsr: array(int32) })),
  completedAcks: array(completedAck),
});

export interface AppendReply {
  readonly errorCode: number;
  readonly errorMessage: string | null;
  readonly recordErrors: readonly RecordErrorReply[];
  readonly baseOffset: Offset;
  readonly logAppendTimeMs: bigint;
  readonly logStartOffset: Offset;
  readonly highWatermark: Offset;
  /** The append moved the high watermark: fetches waiting on the partition can read more. */
  readonly highWatermarkMoved: boolean;
  /** The leader epoch the records were appended at (-1 with an error). */
  readonly leaderEpoch: LeaderEpoch;
  /**
   * acks=all: the high watermark the answer waits for (the last appended offset + 1), or -1 when
   * there is nothing to wait for — the records are committed already, or acks is not all.
   */
  readonly requiredOffset: Offset;
  /**
   * Nothing was appended: the client's transactional batch would open a transaction here and must
   * first be verified with the transaction coordinator, then sent again verified (KIP-890).
   */
  readonly needsVerification: boolean;
  /** The answers to the request's `wakeReads`, in their order; none unless the append moved the high watermark. */
  readonly wakeReads: readonly ReadReply[];
  /** The acks=all waits (of any partition of the worker) answered while this entry was served. */
  readonly completedAcks: readonly CompletedAck[];
}

const appendReply: Field<AppendReply> = struct({
  errorCode: int16,
  errorMessage: nullable(string),
  recordErrors: array(struct({ batchIndex: int32, message: nullable(string) })),
  baseOffset: offset,
  logAppendTimeMs: int64,
  logStartOffset: offset,
  highWatermark: offset,
  highWatermarkMoved: bool,
  leaderEpoch: leaderEpoch,
  requiredOffset: offset,
  needsVerification: bool,
  wakeReads: array(readReply),
  completedAcks: array(completedAck),
});

/** A timestamp an answer leaves unknown. */
export const NO_TIMESTAMP = -1n;

/** An append that failed: its error, and no offsets. */
export function failedAppend(errorCode: number, errorMessage: string | null, recordErrors: readonly RecordErrorReply[] = []): AppendReply {
  return {
    errorCode,
    errorMessage,
    recordErrors,
    baseOffset: NO_OFFSET,
    logAppendTimeMs: NO_TIMESTAMP,
    logStartOffset: NO_OFFSET,
    highWatermark: NO_OFFSET,
    highWatermarkMoved: false,
    leaderEpoch: NO_EPOCH,
    requiredOffset: NO_OFFSET,
    needsVerification: false,
    wakeReads: [],
    completedAcks: NO_COMPLETED_ACKS,
  };
}

/**
 * readBytes' reply: the read's state, then the bytes themselves. A coordinator's replay read, on
 * the leader: records up to the log end, not the high watermark —
 * a new leader's high watermark lags records the old one had committed, and a coordinator loading
 * only up to it would lose them. The replay then waits for `logEndOffset` to be committed at
 * `leaderEpoch` before the coordinator serves.
 */
export interface ReadBytesReply {
  readonly errorCode: number;
  readonly highWatermark: Offset;
  readonly logEndOffset: Offset;
  readonly leaderEpoch: LeaderEpoch;
  readonly logStartOffset: Offset;
  readonly bytes: Buffer;
}

const readBytesReply: Field<ReadBytesReply> = struct({
  errorCode: int16,
  highWatermark: offset,
  logEndOffset: offset,
  leaderEpoch: leaderEpoch,
  logStartOffset: offset,
  // Decoded in the ring, kept by the caller: copied out.
  bytes: ownBytes,
});

/** A readBytes that failed: the error and no offsets, as Kafka reports a partition error. */
export function failedReadBytes(errorCode: number): ReadBytesReply {
  return {
    errorCode,
    highWatermark: NO_OFFSET,
    logEndOffset: NO_OFFSET,
    leaderEpoch: NO_EPOCH,
    logStartOffset: NO_OFFSET,
    bytes: Buffer.alloc(0),
  };
}

/** A command about one partition's offsets, fenced by the leader epoch its sender knows. */
export interface OffsetCommand extends TopicPartition {
  /** As in `ReadCommand`. */
  readonly currentLeaderEpoch: LeaderEpoch;
}

/** listOffset: the timestamp (or a special one), and the isolation level that bounds LATEST. */
export interface ListOffsetCommand extends OffsetCommand {
  readonly timestamp: bigint;
  /** read_committed: LATEST is the last stable offset; otherwise the high watermark. */
  readonly readCommitted: boolean;
}

const listOffsetCommand: Field<ListOffsetCommand> = struct({
  topic: string,
  partition: int32,
  currentLeaderEpoch: leaderEpoch,
  timestamp: int64,
  readCommitted: bool,
});

/** deleteRecords: the new log start (`NO_OFFSET`: the high watermark, as in Kafka). */
export interface DeleteRecordsCommand extends OffsetCommand {
  readonly offset: Offset;
}

const deleteRecordsCommand: Field<DeleteRecordsCommand> = struct({
  topic: string,
  partition: int32,
  currentLeaderEpoch: leaderEpoch,
  offset,
});

/** offsetForEpoch: where `leaderEpoch` ends in the leader's log. */
export interface OffsetForEpochCommand extends OffsetCommand {
  readonly leaderEpoch: LeaderEpoch;
}

const offsetForEpochCommand: Field<OffsetForEpochCommand> = struct({
  topic: string,
  partition: int32,
  currentLeaderEpoch: leaderEpoch,
  leaderEpoch,
});

export interface OffsetReply {
  readonly errorCode: number;
  readonly timestamp: bigint;
  readonly offset: Offset;
  readonly leaderEpoch: LeaderEpoch;
}

const offsetReply: Field<OffsetReply> = struct({ errorCode: int16, timestamp: int64, offset: offset, leaderEpoch: leaderEpoch });

// ---- replication (declared bodies; the types are replication's `ReplicaLogs` port's) ----

const followerAppendRequest: Field<FollowerAppendRequest> = struct({
  topic: string,
  partition: int32,
  currentLeaderEpoch: leaderEpoch,
  leaderHighWatermark: offset,
  leaderLogStartOffset: offset,
  records: bytes,
});

const truncateCommand: Field<TruncateCommand> = struct({
  topic: string,
  partition: int32,
  currentLeaderEpoch: leaderEpoch,
  kind: oneOf(['diverged', 'restart']),
  offset: offset,
  divergingEpoch: leaderEpoch,
});

const replicaPositionCommand: Field<ReplicaPositionCommand> = struct({ topic: string, partition: int32, currentLeaderEpoch: leaderEpoch });

const replicaPositionReply: Field<ReplicaPositionReply> = struct({
  errorCode: int16,
  errorMessage: nullable(string),
  logEndOffset: offset,
  highWatermark: offset,
  logStartOffset: offset,
  lastFetchedEpoch: leaderEpoch,
});

export function failedPosition(errorCode: number, errorMessage: string | null): ReplicaPositionReply {
  return {
    errorCode,
    errorMessage,
    logEndOffset: NO_OFFSET,
    highWatermark: NO_OFFSET,
    logStartOffset: NO_OFFSET,
    lastFetchedEpoch: NO_EPOCH,
  };
}

// ---- transaction markers and commit waits (declared bodies) ----

/**
 * One partition's transaction marker from a WriteTxnMarkers request, written by the partition's
 * leader as a control batch; answered like an append (acks=all: `requiredOffset`/`leaderEpoch`
 * say what to wait for in the produce purgatory).
 */
export interface TxnMarkerEntry {
  readonly topic: string;
  readonly partition: number;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly coordinatorEpoch: number;
  /** true: COMMIT, false: ABORT. */
  readonly commit: boolean;
  /** WriteTxnMarkers' TransactionVersion: 0/1 legacy, 2 = KIP-890 part 2. */
  readonly transactionVersion: number;
  /** The acks=all wait registered for the marker (see `AppendRequest.acksWait`). */
  readonly acksWait?: AcksWaitRequest;
}

const txnMarkerEntry: Field<TxnMarkerEntry> = struct({
  topic: string,
  partition: int32,
  producerId: int64,
  producerEpoch: int16,
  coordinatorEpoch: int32,
  commit: bool,
  transactionVersion: int8,
  acksWait: optional(acksWait),
});

/**
 * awaitCommit: hold an acks=all wait for records already in the log — up to `requiredOffset`,
 * written at `leaderEpoch` (a coordinator loading a partition waits for what an earlier leader
 * wrote to be committed before it serves).
 */
export interface AwaitCommitCommand extends TopicPartition {
  readonly wait: AcksWaitRequest;
  readonly leaderEpoch: LeaderEpoch;
  readonly requiredOffset: Offset;
}

const awaitCommitCommand: Field<AwaitCommitCommand> = struct({
  topic: string,
  partition: int32,
  wait: acksWait,
  leaderEpoch: leaderEpoch,
  requiredOffset: offset,
});

/** awaitCommit's answer: an error when the partition is not hosted here (the wait is not held), and the waits answered meanwhile. */
export interface AwaitCommitReply {
  readonly errorCode: number;
  readonly completedAcks: readonly CompletedAck[];
}

const awaitCommitReply: Field<AwaitCommitReply> = struct({ errorCode: int16, completedAcks: array(completedAck) });

const appendReplies = body(array(appendReply));
const positions = body(array(replicaPositionReply));

/**
 * Every partition op, by the name both ends use. Op numbers are the ring's, 0..0xfeff.
 *
 * Lanes (`worker-op.ts`): reads and the offset look-ups that consumers and followers wait on
 * go on the priority lane, so that they are not queued behind a
 * producer's appends — Kafka serves them from its request threads beside the appends. They
 * are short, read only what is there when they run, and every caller awaits an ordered op
 * before relying on its effect. A follower's read records its position, which may move the
 * high watermark: served before queued appends, it sees the log as the fetch found it, as in
 * Kafka. `release` follows the reads so that leases end promptly. `readBytes` (coordinator
 * loads, up to a ring of records) and the administrative ops stay ordered.
 */
export const PartitionOps = {
  open: defineWorkerOp(1, 'open', json<OpenCommand>(), json<AcksReply>()),
  delete: defineWorkerOp(2, 'delete', json<DeleteCommand>(), json<AcksReply>()),
  updateConfig: defineWorkerOp(3, 'updateConfig', json<UpdateConfigCommand>(), NOTHING),
  append: defineWorkerOp(10, 'append', body(array(appendRequest)), appendReplies),
  read: defineWorkerOp(11, 'read', body(array(readCommand)), body(array(readReply)), 'priority'),
  /** Posted: ends read leases once their bytes are sent. */
  release: defineWorkerOp(12, 'release', body(array(uint32)), NOTHING, 'priority'),
  listOffset: defineWorkerOp(13, 'listOffset', body(listOffsetCommand), body(offsetReply), 'priority'),
  deleteRecords: defineWorkerOp(14, 'deleteRecords', body(deleteRecordsCommand), body(offsetReply)),
  offsetForEpoch: defineWorkerOp(15, 'offsetForEpoch', body(offsetForEpochCommand), body(offsetReply), 'priority'),
  describeProducers: defineWorkerOp(16, 'describeProducers', json<TopicPartition>(), json<DescribeProducersReply>()),
  /** Records into memory, bounded by the ring, for coordinators replaying a partition. */
  readBytes: defineWorkerOp(17, 'readBytes', body(readCommand), body(readBytesReply)),
  /** WriteTxnMarkers: each entry's marker appended by its partition's leader, answered as appends are. */
  writeTxnMarkers: defineWorkerOp(18, 'writeTxnMarkers', body(array(txnMarkerEntry)), appendReplies),
  describeLogDirs: defineWorkerOp(20, 'describeLogDirs', NOTHING, json<WorkerLogDir[]>()),
  checkpointEntries: defineWorkerOp(21, 'checkpointEntries', NOTHING, json<LogDirCheckpoint[]>()),
  writeCheckpoints: defineWorkerOp(22, 'writeCheckpoints', json<WriteCheckpointsCommand>(), NOTHING),
  closeLogs: defineWorkerOp(23, 'closeLogs', NOTHING, json<LogDirCheckpoint[]>()),
  /** The worker's metrics and the high watermarks a scrape asks for, pulled when /metrics is scraped. */
  metrics: defineWorkerOp(24, 'metrics', json<MetricsCommand>(), json<MetricsReply>()),
  /** A log dir that failed in another worker goes offline in this one too (one `LogDirFailureChannel` per broker, as in Kafka). */
  takeLogDirOffline: defineWorkerOp(25, 'takeLogDirOffline', json<TakeLogDirOfflineCommand>(), NOTHING),
  /** AlterReplicaLogDirs: each partition's move to another log dir started (or cancelled, or remembered); one error code each. */
  alterLogDirs: defineWorkerOp(26, 'alterLogDirs', json<AlterLogDirCommand[]>(), json<number[]>()),
  /** A follower's fetched records, appended with their offsets and epochs; its high watermark and log start follow the leader's. */
  appendAsFollower: defineWorkerOp(30, 'appendAsFollower', body(array(followerAppendRequest)), positions),
  /** A follower's truncation (diverging epoch, KIP-101; a leader's log ending before it; a reset past the leader's log start). */
  truncate: defineWorkerOp(31, 'truncate', body(array(truncateCommand)), positions),
  /** Where follower logs stand: the fetcher's starting point. */
  replicaPosition: defineWorkerOp(32, 'replicaPosition', body(array(replicaPositionCommand)), positions),
  /** acks=all waits for records already in the log (a coordinator's load), held as an append's are. */
  awaitCommit: defineWorkerOp(36, 'awaitCommit', body(array(awaitCommitCommand)), body(array(awaitCommitReply))),
  /** The ISR changes the worker's leaders want now (shrink on lag, expand on catch-up), each then pending. */
  isrProposals: defineWorkerOp(34, 'isrProposals', NOTHING, json<IsrChangeRequest[]>()),
  /** The controller's answers to ISR proposals. */
  isrAnswers: defineWorkerOp(35, 'isrAnswers', json<IsrAnswer[]>(), json<IsrAnswerReply[]>()),
} as const;
