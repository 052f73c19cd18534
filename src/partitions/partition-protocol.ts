/**
 * The partition ops: every command the main thread sends to a partition worker, declared once
 * (`PartitionOps`, at the end) with its request and reply types and codecs, for both ends —
 * `PartitionService` calls them, `WorkerPartitions` answers them and `partition-ops.ts` serves them. The hot ones (append, read,
 * release, list offsets) are compact binary; the rare administrative ones carry JSON. Every reply
 * that concerns one partition starts with a Kafka error code, so a partition's failure is an
 * answer, not a transport error.
 *
 * Partitions are named by topic name: that is what their directories are called, so a worker
 * can tell which partitions are its own when it loads the log dirs.
 */
import type { WorkerMetricsSnapshot } from '../common/metrics/worker-metrics.js';
import { holdSharedFrame, type SharedFrameHold } from '@sluice/protocol/frame-buffer-pool.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import { Writer } from '@sluice/protocol/primitives/writer.js';
import type { AppendOrigin, LogDirCheckpoint } from '../storage/index.js';
import { sharedFrameView } from '../worker-pool/shared-frames.js';
import { binary, defineWorkerOp, json, NOTHING, type BodyCodec } from '../worker-pool/worker-op.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';
import { NO_EPOCH } from '../replication/leader-epoch.js';
import type { IsrAnswer, PartitionStateCommand } from '../replication/partition-state.js';
import type { IsrChangeRequest } from '../metadata/replica-control.js';
import type {
  FollowerAppendRequest,
  ReplicaPositionCommand,
  ReplicaPositionReply,
  TruncateCommand,
  TruncationKind,
} from '../replication/replica-logs.js';
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
  readonly highWatermark: number;
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
  readonly highWatermark: number;
  /** The acks=all waits the answer completed. */
  readonly completedAcks: readonly CompletedAck[];
}

// ---- hot commands (binary) ----

function reader(bytes: Uint8Array): Reader {
  return new Reader(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

function finish(build: (w: Writer) => void): Uint8Array {
  const w = new Writer(64);
  build(w);
  return w.finish();
}

function writeRef(w: Writer, ref: TopicPartition): void {
  w.compactString(ref.topic);
  w.int32(ref.partition);
}

function writeAcksWait(w: Writer, wait: AcksWaitRequest): void {
  w.uint32(wait.id);
  w.int32(wait.timeoutMs);
}

function readAcksWait(r: Reader): AcksWaitRequest {
  return { id: r.uint32(), timeoutMs: r.int32() };
}

/** A count (one byte when none), then each wait's id and answer. */
function writeCompletedAcks(w: Writer, completed: readonly CompletedAck[]): void {
  w.unsignedVarint(completed.length);
  for (const c of completed) {
    w.uint32(c.id);
    w.int16(c.errorCode);
  }
}

function readCompletedAcks(r: Reader): readonly CompletedAck[] {
  const n = r.unsignedVarint();
  if (n === 0) return NO_COMPLETED_ACKS;
  const out: CompletedAck[] = [];
  for (let i = 0; i < n; i++) out.push({ id: r.uint32(), errorCode: r.int16() });
  return out;
}

/** No acks=all wait completed. */
export const NO_COMPLETED_ACKS: readonly CompletedAck[] = [];

/**
 * The hot commands carry many partitions: one append or read per worker per request, not one
 * per partition, so a Produce or Fetch costs each worker one ring message, one wake-up and one
 * reply. Entries follow each other to the end of the body; replies come in the same order.
 */
function each<T>(write: (w: Writer, item: T) => void, read: (r: Reader) => T): BodyCodec<readonly T[]> {
  return binary(
    (items) =>
      finish((w) => {
        for (const item of items) write(w, item);
      }),
    readEach(read),
  );
}

function readEach<T>(read: (r: Reader) => T): (body: Uint8Array) => T[] {
  return (bytes) => {
    const r = reader(bytes);
    const out: T[] = [];
    while (r.remaining() > 0) out.push(read(r));
    return out;
  };
}

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

const FROM_COORDINATOR = 1;
const TXN_VERIFIED = 2;
/** The records are not in the ring: the header ends with a shared frame's id, offset and length. */
const SHARED_RECORDS = 4;
/** The header carries wake reads (a count, then read commands) before the records. */
const WAKE_READS = 8;
/** The header carries an acks=all wait (id, timeout). */
const ACKS_WAIT = 16;

/**
 * Entries that each carry records: a header (ending with the records' length), then the records
 * as they are, so they are copied once, into the ring. On the worker, `records` views ring memory.
 */
function withRecords<T extends { readonly records: Buffer }>(
  writeHeader: (w: Writer, entry: T) => void,
  read: (r: Reader) => T,
): BodyCodec<readonly T[]> {
  return {
    encode: (entries) => ({
      payloads: entries.flatMap((e) => [
        finish((w) => {
          writeHeader(w, e);
          w.int32(e.records.byteLength);
        }),
        e.records,
      ]),
    }),
    decode: readEach(read),
  };
}

function writeAppendHeader(w: Writer, e: AppendRequest, flags: number): void {
  writeRef(w, e);
  w.int16(e.requiredAcks);
  const wakeReads = e.wakeReads ?? [];
  w.int8(
    (e.origin === 'coordinator' ? FROM_COORDINATOR : 0) |
      (e.txnVerified === true ? TXN_VERIFIED : 0) |
      (wakeReads.length > 0 ? WAKE_READS : 0) |
      (e.acksWait !== undefined ? ACKS_WAIT : 0) |
      flags,
  );
  if (e.acksWait !== undefined) writeAcksWait(w, e.acksWait);
  if (wakeReads.length === 0) return;
  w.unsignedVarint(wakeReads.length);
  for (const c of wakeReads) writeReadCommand(w, c);
}

function readWakeReads(r: Reader): ReadCommand[] {
  const out: ReadCommand[] = [];
  for (let n = r.unsignedVarint(); n > 0; n--) out.push(readReadCommand(r));
  return out;
}

/**
 * A client's records in a pooled frame go as a reference, each held until the worker answers;
 * the rest (coordinators' records, records outside pooled memory) are copied into the ring.
 */
const appends: BodyCodec<readonly AppendRequest[]> = {
  encode: (entries) => {
    const payloads: Uint8Array[] = [];
    const sharedFrames: SharedFrameHold[] = [];
    for (const e of entries) {
      const hold = e.origin === 'coordinator' ? null : holdSharedFrame(e.records);
      if (hold === null) {
        payloads.push(
          finish((w) => {
            writeAppendHeader(w, e, 0);
            w.int32(e.records.byteLength);
          }),
          e.records,
        );
        continue;
      }
      sharedFrames.push(hold);
      payloads.push(
        finish((w) => {
          writeAppendHeader(w, e, SHARED_RECORDS);
          w.int32(hold.id);
          w.int32(e.records.byteOffset);
          w.int32(e.records.byteLength);
        }),
      );
    }
    return sharedFrames.length === 0 ? { payloads } : { payloads, sharedFrames };
  },
  decode: readEach((r) => {
    // Fields one by one into a literal: this runs per partition of every Produce, and spreading
    // a decoded ref into the entry cost V8 four times the rest of the decode (measured).
    const topic = r.compactString();
    const partition = r.int32();
    const requiredAcks = r.int16();
    const flags = r.int8();
    const origin: AppendOrigin = (flags & FROM_COORDINATOR) !== 0 ? 'coordinator' : 'client';
    const acksWait = (flags & ACKS_WAIT) !== 0 ? readAcksWait(r) : undefined;
    const wakeReads = (flags & WAKE_READS) !== 0 ? readWakeReads(r) : undefined;
    const records = (flags & SHARED_RECORDS) !== 0 ? sharedFrameView(r.int32(), r.int32(), r.int32()) : r.raw(r.int32());
    return { topic, partition, requiredAcks, origin, txnVerified: (flags & TXN_VERIFIED) !== 0, records, wakeReads, acksWait };
  }),
};

export interface RecordErrorReply {
  readonly batchIndex: number;
  readonly message: string | null;
}

export interface AppendReply {
  readonly errorCode: number;
  readonly errorMessage: string | null;
  readonly recordErrors: readonly RecordErrorReply[];
  readonly baseOffset: bigint;
  readonly logAppendTimeMs: bigint;
  readonly logStartOffset: bigint;
  readonly highWatermark: bigint;
  /** The append moved the high watermark: fetches waiting on the partition can read more. */
  readonly highWatermarkMoved: boolean;
  /** The leader epoch the records were appended at (-1 with an error). */
  readonly leaderEpoch: number;
  /**
   * acks=all: the high watermark the answer waits for (the last appended offset + 1), or -1 when
   * there is nothing to wait for — the records are committed already, or acks is not all.
   */
  readonly requiredOffset: bigint;
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

/** An int64 offset, timestamp or watermark that an error answer leaves unknown. */
export const NO_OFFSET = -1n;

/** An append that failed: its error, and no offsets. */
export function failedAppend(errorCode: number, errorMessage: string | null, recordErrors: readonly RecordErrorReply[] = []): AppendReply {
  return {
    errorCode,
    errorMessage,
    recordErrors,
    baseOffset: NO_OFFSET,
    logAppendTimeMs: NO_OFFSET,
    logStartOffset: NO_OFFSET,
    highWatermark: NO_OFFSET,
    highWatermarkMoved: false,
    leaderEpoch: -1,
    requiredOffset: NO_OFFSET,
    needsVerification: false,
    wakeReads: [],
    completedAcks: NO_COMPLETED_ACKS,
  };
}

function writeAppendReply(w: Writer, a: AppendReply): void {
  w.int16(a.errorCode);
  w.compactNullableString(a.errorMessage);
  w.unsignedVarint(a.recordErrors.length);
  for (const e of a.recordErrors) {
    w.int32(e.batchIndex);
    w.compactNullableString(e.message);
  }
  w.int64(a.baseOffset);
  w.int64(a.logAppendTimeMs);
  w.int64(a.logStartOffset);
  w.int64(a.highWatermark);
  w.bool(a.highWatermarkMoved);
  w.int32(a.leaderEpoch);
  w.int64(a.requiredOffset);
  w.bool(a.needsVerification);
  w.unsignedVarint(a.wakeReads.length);
  for (const read of a.wakeReads) writeReadReply(w, read);
  writeCompletedAcks(w, a.completedAcks);
}

function readAppendReply(r: Reader): AppendReply {
  const errorCode = r.int16();
  const errorMessage = r.compactNullableString();
  const recordErrors: RecordErrorReply[] = [];
  for (let n = r.unsignedVarint(); n > 0; n--) recordErrors.push({ batchIndex: r.int32(), message: r.compactNullableString() });
  return {
    errorCode,
    errorMessage,
    recordErrors,
    baseOffset: r.int64(),
    logAppendTimeMs: r.int64(),
    logStartOffset: r.int64(),
    highWatermark: r.int64(),
    highWatermarkMoved: r.bool(),
    leaderEpoch: r.int32(),
    requiredOffset: r.int64(),
    needsVerification: r.bool(),
    wakeReads: readWakeReplies(r),
    completedAcks: readCompletedAcks(r),
  };
}

function readWakeReplies(r: Reader): ReadReply[] {
  const out: ReadReply[] = [];
  for (let n = r.unsignedVarint(); n > 0; n--) out.push(readReadReply(r));
  return out;
}

export interface ReadCommand extends TopicPartition {
  /** The leader epoch the client knows, checked against the partition's; NO_EPOCH_CHECK skips it. */
  readonly currentLeaderEpoch: number;
  readonly fetchOffset: bigint;
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
  readonly lastFetchedEpoch: number;
}

function writeReadCommand(w: Writer, c: ReadCommand): void {
  writeRef(w, c);
  w.int32(c.currentLeaderEpoch);
  w.int64(c.fetchOffset);
  w.int32(c.maxBytes);
  w.bool(c.readCommitted);
  w.bool(c.minOneMessage);
  w.int32(c.replicaId);
  w.int32(c.lastFetchedEpoch);
}

function readReadCommand(r: Reader): ReadCommand {
  // In wire order into one literal (see the append decoder on spreads).
  const topic = r.compactString();
  const partition = r.int32();
  return {
    topic,
    partition,
    currentLeaderEpoch: r.int32(),
    fetchOffset: r.int64(),
    maxBytes: r.int32(),
    readCommitted: r.bool(),
    minOneMessage: r.bool(),
    replicaId: r.int32(),
    lastFetchedEpoch: r.int32(),
  };
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
  readonly epoch: number;
  readonly endOffset: bigint;
}

/** An aborted transaction overlapping a read_committed read: the consumer drops its producer's records from `firstOffset`. */
export interface AbortedTransaction {
  readonly producerId: bigint;
  readonly firstOffset: bigint;
}

export interface ReadReply {
  readonly errorCode: number;
  readonly highWatermark: bigint;
  readonly lastStableOffset: bigint;
  readonly logStartOffset: bigint;
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

/** Which optional parts a read reply carries, in one byte. */
const HAS_SLICE = 1;
const HW_MOVED = 2;
const HAS_DIVERGING_EPOCH = 4;
const HAS_ISR_PROPOSAL = 8;
const HAS_ABORTED_TRANSACTIONS = 16;
const HAS_COMPLETED_ACKS = 32;

function writeReadReply(w: Writer, a: ReadReply): void {
  w.int16(a.errorCode);
  w.int64(a.highWatermark);
  w.int64(a.lastStableOffset);
  w.int64(a.logStartOffset);
  w.int8(
    (a.slice !== null ? HAS_SLICE : 0) |
      (a.highWatermarkMoved ? HW_MOVED : 0) |
      (a.divergingEpoch !== null ? HAS_DIVERGING_EPOCH : 0) |
      (a.isrProposal !== null ? HAS_ISR_PROPOSAL : 0) |
      (a.abortedTransactions !== null ? HAS_ABORTED_TRANSACTIONS : 0) |
      (a.completedAcks.length > 0 ? HAS_COMPLETED_ACKS : 0),
  );
  if (a.slice !== null) {
    w.uint32(a.slice.leaseId);
    w.int32(a.slice.fd);
    w.float64(a.slice.position);
    w.int32(a.slice.length);
  }
  if (a.divergingEpoch !== null) {
    w.int32(a.divergingEpoch.epoch);
    w.int64(a.divergingEpoch.endOffset);
  }
  if (a.abortedTransactions !== null) {
    w.unsignedVarint(a.abortedTransactions.length);
    for (const t of a.abortedTransactions) {
      w.int64(t.producerId);
      w.int64(t.firstOffset);
    }
  }
  if (a.isrProposal !== null) {
    w.int32(a.isrProposal.leaderEpoch);
    w.int32(a.isrProposal.partitionEpoch);
    w.unsignedVarint(a.isrProposal.newIsr.length);
    for (const id of a.isrProposal.newIsr) w.int32(id);
  }
  if (a.completedAcks.length > 0) writeCompletedAcks(w, a.completedAcks);
}

function readIsrProposal(r: Reader): IsrChangeProposal {
  const leaderEpoch = r.int32();
  const partitionEpoch = r.int32();
  const newIsr: number[] = [];
  for (let n = r.unsignedVarint(); n > 0; n--) newIsr.push(r.int32());
  return { leaderEpoch, partitionEpoch, newIsr };
}

function readAbortedTransactions(r: Reader): AbortedTransaction[] {
  const out: AbortedTransaction[] = [];
  for (let n = r.unsignedVarint(); n > 0; n--) out.push({ producerId: r.int64(), firstOffset: r.int64() });
  return out;
}

function readReadReply(r: Reader): ReadReply {
  const errorCode = r.int16();
  const highWatermark = r.int64();
  const lastStableOffset = r.int64();
  const logStartOffset = r.int64();
  const flags = r.int8();
  const slice = (flags & HAS_SLICE) !== 0 ? { leaseId: r.uint32(), fd: r.int32(), position: r.float64(), length: r.int32() } : null;
  const divergingEpoch = (flags & HAS_DIVERGING_EPOCH) !== 0 ? { epoch: r.int32(), endOffset: r.int64() } : null;
  const abortedTransactions = (flags & HAS_ABORTED_TRANSACTIONS) !== 0 ? readAbortedTransactions(r) : null;
  const isrProposal = (flags & HAS_ISR_PROPOSAL) !== 0 ? readIsrProposal(r) : null;
  const completedAcks = (flags & HAS_COMPLETED_ACKS) !== 0 ? readCompletedAcks(r) : NO_COMPLETED_ACKS;
  return {
    errorCode,
    highWatermark,
    lastStableOffset,
    logStartOffset,
    slice,
    abortedTransactions,
    highWatermarkMoved: (flags & HW_MOVED) !== 0,
    divergingEpoch,
    isrProposal,
    completedAcks,
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
  readonly highWatermark: bigint;
  readonly logEndOffset: bigint;
  readonly leaderEpoch: number;
  readonly logStartOffset: bigint;
  readonly bytes: Buffer;
}

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

const readBytesReply: BodyCodec<ReadBytesReply> = {
  encode: (a) => ({
    payloads: [
      finish((w) => {
        w.int16(a.errorCode);
        w.int64(a.highWatermark);
        w.int64(a.logEndOffset);
        w.int32(a.leaderEpoch);
        w.int64(a.logStartOffset);
      }),
      a.bytes,
    ],
  }),
  decode: (bytes) => {
    const r = reader(bytes);
    // The reply is decoded in the ring: the bytes are copied out, as the caller keeps them.
    return {
      errorCode: r.int16(),
      highWatermark: r.int64(),
      logEndOffset: r.int64(),
      leaderEpoch: r.int32(),
      logStartOffset: r.int64(),
      bytes: Buffer.from(r.raw(r.remaining())),
    };
  },
};

const leaseIds: BodyCodec<readonly number[]> = binary(
  (ids) =>
    finish((w) => {
      w.unsignedVarint(ids.length);
      for (const id of ids) w.uint32(id);
    }),
  (bytes) => {
    const r = reader(bytes);
    const out: number[] = [];
    for (let n = r.unsignedVarint(); n > 0; n--) out.push(r.uint32());
    return out;
  },
);

/**
 * A command about one partition with one number: the timestamp of listOffset, the offset of
 * deleteRecords (-1: the high watermark, as in Kafka), the leader epoch of offsetForEpoch.
 */
export interface PartitionArgCommand extends TopicPartition {
  /** As in `ReadCommand`. */
  readonly currentLeaderEpoch: number;
  readonly arg: bigint;
}

const partitionArg: BodyCodec<PartitionArgCommand> = binary(
  (c) =>
    finish((w) => {
      writeRef(w, c);
      w.int32(c.currentLeaderEpoch);
      w.int64(c.arg);
    }),
  (bytes) => {
    const r = reader(bytes);
    const topic = r.compactString();
    const partition = r.int32();
    return { topic, partition, currentLeaderEpoch: r.int32(), arg: r.int64() };
  },
);

/** listOffset: a partition, the timestamp (or a special one), and the isolation level that bounds LATEST. */
export interface ListOffsetCommand extends PartitionArgCommand {
  /** read_committed: LATEST is the last stable offset; otherwise the high watermark. */
  readonly readCommitted: boolean;
}

const listOffsetCommand: BodyCodec<ListOffsetCommand> = binary(
  (c) =>
    finish((w) => {
      writeRef(w, c);
      w.int32(c.currentLeaderEpoch);
      w.int64(c.arg);
      w.bool(c.readCommitted);
    }),
  (bytes) => {
    const r = reader(bytes);
    const topic = r.compactString();
    const partition = r.int32();
    return { topic, partition, currentLeaderEpoch: r.int32(), arg: r.int64(), readCommitted: r.bool() };
  },
);

export interface OffsetReply {
  readonly errorCode: number;
  readonly timestamp: bigint;
  readonly offset: bigint;
  readonly leaderEpoch: number;
}

const offsetReply: BodyCodec<OffsetReply> = binary(
  (a) =>
    finish((w) => {
      w.int16(a.errorCode);
      w.int64(a.timestamp);
      w.int64(a.offset);
      w.int32(a.leaderEpoch);
    }),
  (bytes) => {
    const r = reader(bytes);
    return { errorCode: r.int16(), timestamp: r.int64(), offset: r.int64(), leaderEpoch: r.int32() };
  },
);

// ---- replication (binary, many partitions per message like append and read) ----

const followerAppends = withRecords<FollowerAppendRequest>(
  (w, e) => {
    writeRef(w, e);
    w.int32(e.currentLeaderEpoch);
    w.int64(e.leaderHighWatermark);
    w.int64(e.leaderLogStartOffset);
  },
  (r) => {
    const topic = r.compactString();
    const partition = r.int32();
    const currentLeaderEpoch = r.int32();
    const leaderHighWatermark = r.int64();
    const leaderLogStartOffset = r.int64();
    return { topic, partition, currentLeaderEpoch, leaderHighWatermark, leaderLogStartOffset, records: r.raw(r.int32()) };
  },
);

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

function writeTruncate(w: Writer, c: TruncateCommand): void {
  writeRef(w, c);
  w.int32(c.currentLeaderEpoch);
  w.bool(c.kind === 'restart');
  w.int64(c.offset);
  w.int32(c.divergingEpoch);
}

function readTruncate(r: Reader): TruncateCommand {
  const topic = r.compactString();
  const partition = r.int32();
  const currentLeaderEpoch = r.int32();
  const kind: TruncationKind = r.bool() ? 'restart' : 'diverged';
  return { topic, partition, currentLeaderEpoch, kind, offset: r.int64(), divergingEpoch: r.int32() };
}

function writePositionCommand(w: Writer, c: ReplicaPositionCommand): void {
  writeRef(w, c);
  w.int32(c.currentLeaderEpoch);
}

function readPositionCommand(r: Reader): ReplicaPositionCommand {
  const topic = r.compactString();
  const partition = r.int32();
  return { topic, partition, currentLeaderEpoch: r.int32() };
}

function writePosition(w: Writer, a: ReplicaPositionReply): void {
  w.int16(a.errorCode);
  w.compactNullableString(a.errorMessage);
  w.int64(a.logEndOffset);
  w.int64(a.highWatermark);
  w.int64(a.logStartOffset);
  w.int32(a.lastFetchedEpoch);
}

function readPosition(r: Reader): ReplicaPositionReply {
  const errorCode = r.int16();
  const errorMessage = r.compactNullableString();
  return {
    errorCode,
    errorMessage,
    logEndOffset: r.int64(),
    highWatermark: r.int64(),
    logStartOffset: r.int64(),
    lastFetchedEpoch: r.int32(),
  };
}

// ---- transaction markers (binary, many partitions per message like append) ----

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

function writeTxnMarker(w: Writer, e: TxnMarkerEntry): void {
  writeRef(w, e);
  w.int64(e.producerId);
  w.int16(e.producerEpoch);
  w.int32(e.coordinatorEpoch);
  w.bool(e.commit);
  w.int8(e.transactionVersion);
  w.bool(e.acksWait !== undefined);
  if (e.acksWait !== undefined) writeAcksWait(w, e.acksWait);
}

function readTxnMarker(r: Reader): TxnMarkerEntry {
  const topic = r.compactString();
  const partition = r.int32();
  const marker = {
    topic,
    partition,
    producerId: r.int64(),
    producerEpoch: r.int16(),
    coordinatorEpoch: r.int32(),
    commit: r.bool(),
    transactionVersion: r.int8(),
  };
  return r.bool() ? { ...marker, acksWait: readAcksWait(r) } : marker;
}

/**
 * awaitCommit: hold an acks=all wait for records already in the log — up to `requiredOffset`,
 * written at `leaderEpoch` (a coordinator loading a partition waits for what an earlier leader
 * wrote to be committed before it serves).
 */
export interface AwaitCommitCommand extends TopicPartition {
  readonly wait: AcksWaitRequest;
  readonly leaderEpoch: number;
  readonly requiredOffset: bigint;
}

function writeAwaitCommit(w: Writer, c: AwaitCommitCommand): void {
  writeRef(w, c);
  writeAcksWait(w, c.wait);
  w.int32(c.leaderEpoch);
  w.int64(c.requiredOffset);
}

function readAwaitCommit(r: Reader): AwaitCommitCommand {
  const topic = r.compactString();
  const partition = r.int32();
  return { topic, partition, wait: readAcksWait(r), leaderEpoch: r.int32(), requiredOffset: r.int64() };
}

/** awaitCommit's answer: an error when the partition is not hosted here (the wait is not held), and the waits answered meanwhile. */
export interface AwaitCommitReply {
  readonly errorCode: number;
  readonly completedAcks: readonly CompletedAck[];
}

const appendReplies = each(writeAppendReply, readAppendReply);
const reads = each(writeReadCommand, readReadCommand);
const readReplies = each(writeReadReply, readReadReply);
const positions = each(writePosition, readPosition);
const awaitCommitReplies = each<AwaitCommitReply>(
  (w, a) => {
    w.int16(a.errorCode);
    writeCompletedAcks(w, a.completedAcks);
  },
  (r) => ({ errorCode: r.int16(), completedAcks: readCompletedAcks(r) }),
);
const singleRead: BodyCodec<ReadCommand> = binary(
  (c) => finish((w) => writeReadCommand(w, c)),
  (bytes) => readReadCommand(reader(bytes)),
);

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
  append: defineWorkerOp(10, 'append', appends, appendReplies),
  read: defineWorkerOp(11, 'read', reads, readReplies, 'priority'),
  /** Posted: ends read leases once their bytes are sent. */
  release: defineWorkerOp(12, 'release', leaseIds, NOTHING, 'priority'),
  listOffset: defineWorkerOp(13, 'listOffset', listOffsetCommand, offsetReply, 'priority'),
  deleteRecords: defineWorkerOp(14, 'deleteRecords', partitionArg, offsetReply),
  offsetForEpoch: defineWorkerOp(15, 'offsetForEpoch', partitionArg, offsetReply, 'priority'),
  describeProducers: defineWorkerOp(16, 'describeProducers', json<TopicPartition>(), json<DescribeProducersReply>()),
  /** Records into memory, bounded by the ring, for coordinators replaying a partition. */
  readBytes: defineWorkerOp(17, 'readBytes', singleRead, readBytesReply),
  /** WriteTxnMarkers: each entry's marker appended by its partition's leader, answered as appends are. */
  writeTxnMarkers: defineWorkerOp(18, 'writeTxnMarkers', each(writeTxnMarker, readTxnMarker), appendReplies),
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
  appendAsFollower: defineWorkerOp(30, 'appendAsFollower', followerAppends, positions),
  /** A follower's truncation (diverging epoch, KIP-101; a leader's log ending before it; a reset past the leader's log start). */
  truncate: defineWorkerOp(31, 'truncate', each(writeTruncate, readTruncate), positions),
  /** Where follower logs stand: the fetcher's starting point. */
  replicaPosition: defineWorkerOp(32, 'replicaPosition', each(writePositionCommand, readPositionCommand), positions),
  /** acks=all waits for records already in the log (a coordinator's load), held as an append's are. */
  awaitCommit: defineWorkerOp(36, 'awaitCommit', each(writeAwaitCommit, readAwaitCommit), awaitCommitReplies),
  /** The ISR changes the worker's leaders want now (shrink on lag, expand on catch-up), each then pending. */
  isrProposals: defineWorkerOp(34, 'isrProposals', NOTHING, json<IsrChangeRequest[]>()),
  /** The controller's answers to ISR proposals. */
  isrAnswers: defineWorkerOp(35, 'isrAnswers', json<IsrAnswer[]>(), json<IsrAnswerReply[]>()),
} as const;
