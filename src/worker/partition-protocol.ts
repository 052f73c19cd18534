/**
 * The partition ops: every command the main thread sends to a partition worker, declared once
 * (`PartitionOps`, at the end) with its request and reply types and codecs, for both ends —
 * `PartitionService` calls them, `partition-ops.ts` serves them. The hot ones (append, read,
 * release, list offsets) are compact binary; the rare administrative ones carry JSON. Every reply
 * that concerns one partition starts with a Kafka error code, so a partition's failure is an
 * answer, not a transport error.
 *
 * Partitions are named by topic name: that is what their directories are called, so a worker
 * can tell which partitions are its own when it loads the log dirs.
 */
import type { WorkerMetricsSnapshot } from '../common/metrics/worker-metrics.js';
import { Reader } from '../protocol/primitives/reader.js';
import { Writer } from '../protocol/primitives/writer.js';
import type { LogDirCheckpoint } from '../storage/index.js';
import { binary, defineWorkerOp, json, NOTHING, type BodyCodec } from './worker-op.js';

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
    typeof o.cleanerThreads !== 'number'
  ) {
    throw new TypeError('partition worker options are malformed');
  }
  return o as PartitionWorkerOptions;
}

// ---- administrative commands (JSON) ----

/**
 * A partition's replica state as the controller assigns it (Kafka's LeaderAndIsr for one
 * partition): which broker leads, at which epoch, with which replicas and in-sync replicas.
 */
export interface PartitionStateCommand {
  readonly partition: number;
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
}

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
  readonly partitions: ReadonlyArray<{ readonly topic: string; readonly partition: number; readonly sizeBytes: number }>;
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

/** metrics: the partitions whose high watermarks the scrape needs (those with committed group offsets). */
export interface MetricsCommand {
  readonly partitions: readonly PartitionRef[];
}

/** A partition's high watermark as metrics answers it: a number, as the log keeps it. */
export interface PartitionEndReply extends PartitionRef {
  readonly errorCode: number;
  /** -1 with an error. */
  readonly highWatermark: number;
}

export interface MetricsReply {
  readonly metrics: WorkerMetricsSnapshot;
  /** One per partition of the command, in its order. */
  readonly ends: readonly PartitionEndReply[];
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

export interface PartitionRef {
  readonly topic: string;
  readonly partition: number;
}

function writeRef(w: Writer, ref: PartitionRef): void {
  w.compactString(ref.topic);
  w.int32(ref.partition);
}

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
    (bytes) => {
      const r = reader(bytes);
      const out: T[] = [];
      while (r.remaining() > 0) out.push(read(r));
      return out;
    },
  );
}

/** The leader epoch a client names for a partition, or this: "do not check". */
export const NO_EPOCH_CHECK = -1;

/**
 * One partition's records to append as its leader. On the wire: a header, then the records,
 * copied once into the ring after it; on the worker, `records` is a view over ring memory.
 */
export interface AppendRequest extends PartitionRef {
  /** Produce's acks: -1 needs `min.insync.replicas` in-sync replicas. */
  readonly requiredAcks: number;
  readonly records: Buffer;
}

const appends: BodyCodec<readonly AppendRequest[]> = {
  encode: (entries) => ({
    payloads: entries.flatMap((e) => [
      finish((w) => {
        writeRef(w, e);
        w.int16(e.requiredAcks);
        w.int32(e.records.byteLength);
      }),
      e.records,
    ]),
  }),
  decode: (bytes) => {
    const r = reader(bytes);
    const out: AppendRequest[] = [];
    while (r.remaining() > 0) {
      // Fields one by one into a literal: this runs per partition of every Produce, and spreading
      // a decoded ref into the entry cost V8 four times the rest of the decode (measured).
      const topic = r.compactString();
      const partition = r.int32();
      const requiredAcks = r.int16();
      out.push({ topic, partition, requiredAcks, records: r.raw(r.int32()) });
    }
    return out;
  },
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
}

/** An int64 offset, timestamp or watermark that an error answer leaves unknown. */
export const NO_OFFSET = -1n;

/** An append that failed: its error, and no offsets. */
export function failedAppend(errorCode: number, errorMessage: string | null, recordErrors: readonly RecordErrorReply[] = []): AppendReply {
  return { errorCode, errorMessage, recordErrors, baseOffset: NO_OFFSET, logAppendTimeMs: NO_OFFSET, logStartOffset: NO_OFFSET, highWatermark: NO_OFFSET, highWatermarkMoved: false };
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
  };
}

export interface ReadCommand extends PartitionRef {
  /** The leader epoch the client knows, checked against the partition's; NO_EPOCH_CHECK skips it. */
  readonly currentLeaderEpoch: number;
  readonly fetchOffset: bigint;
  readonly maxBytes: number;
  /** read_committed: nothing at or beyond the last stable offset; otherwise the high watermark bounds the read. */
  readonly readCommitted: boolean;
  readonly minOneMessage: boolean;
}

function writeReadCommand(w: Writer, c: ReadCommand): void {
  writeRef(w, c);
  w.int32(c.currentLeaderEpoch);
  w.int64(c.fetchOffset);
  w.int32(c.maxBytes);
  w.bool(c.readCommitted);
  w.bool(c.minOneMessage);
}

function readReadCommand(r: Reader): ReadCommand {
  // In wire order into one literal (see the append decoder on spreads).
  const topic = r.compactString();
  const partition = r.int32();
  return { topic, partition, currentLeaderEpoch: r.int32(), fetchOffset: r.int64(), maxBytes: r.int32(), readCommitted: r.bool(), minOneMessage: r.bool() };
}

/** A leased file range: valid until release names its lease id. */
export interface ReadSlice {
  readonly leaseId: number;
  readonly fd: number;
  readonly position: number;
  readonly length: number;
}

export interface ReadReply {
  readonly errorCode: number;
  readonly highWatermark: bigint;
  readonly lastStableOffset: bigint;
  readonly logStartOffset: bigint;
  readonly slice: ReadSlice | null;
}

function writeReadReply(w: Writer, a: ReadReply): void {
  w.int16(a.errorCode);
  w.int64(a.highWatermark);
  w.int64(a.lastStableOffset);
  w.int64(a.logStartOffset);
  w.bool(a.slice !== null);
  if (a.slice !== null) {
    w.uint32(a.slice.leaseId);
    w.int32(a.slice.fd);
    w.float64(a.slice.position);
    w.int32(a.slice.length);
  }
}

function readReadReply(r: Reader): ReadReply {
  const errorCode = r.int16();
  const highWatermark = r.int64();
  const lastStableOffset = r.int64();
  const logStartOffset = r.int64();
  const slice = r.bool() ? { leaseId: r.uint32(), fd: r.int32(), position: r.float64(), length: r.int32() } : null;
  return { errorCode, highWatermark, lastStableOffset, logStartOffset, slice };
}

/** readBytes' reply: the read's state, then the bytes themselves (for coordinators replaying a log). */
export interface ReadBytesReply {
  readonly errorCode: number;
  readonly highWatermark: bigint;
  readonly logStartOffset: bigint;
  readonly bytes: Buffer;
}

const readBytesReply: BodyCodec<ReadBytesReply> = {
  encode: (a) => ({
    payloads: [
      finish((w) => {
        w.int16(a.errorCode);
        w.int64(a.highWatermark);
        w.int64(a.logStartOffset);
      }),
      a.bytes,
    ],
  }),
  decode: (bytes) => {
    const r = reader(bytes);
    // The reply is decoded in the ring: the bytes are copied out, as the caller keeps them.
    return { errorCode: r.int16(), highWatermark: r.int64(), logStartOffset: r.int64(), bytes: Buffer.from(r.raw(r.remaining())) };
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

/** ListOffsets' special timestamps, as Kafka defines them. */
export const LATEST_TIMESTAMP = -1n;
export const EARLIEST_TIMESTAMP = -2n;
export const MAX_TIMESTAMP = -3n;

/**
 * A command about one partition with one number: the timestamp of listOffset, the offset of
 * deleteRecords (-1: the high watermark, as in Kafka), the leader epoch of offsetForEpoch.
 */
export interface PartitionArgCommand extends PartitionRef {
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

const appendReplies = each(writeAppendReply, readAppendReply);
const reads = each(writeReadCommand, readReadCommand);
const readReplies = each(writeReadReply, readReadReply);
const singleRead: BodyCodec<ReadCommand> = binary(
  (c) => finish((w) => writeReadCommand(w, c)),
  (bytes) => readReadCommand(reader(bytes)),
);

/** Every partition op, by the name both ends use. Op numbers are the ring's, 0..0xfeff. */
export const PartitionOps = {
  open: defineWorkerOp(1, 'open', json<OpenCommand>(), NOTHING),
  delete: defineWorkerOp(2, 'delete', json<DeleteCommand>(), NOTHING),
  updateConfig: defineWorkerOp(3, 'updateConfig', json<UpdateConfigCommand>(), NOTHING),
  append: defineWorkerOp(10, 'append', appends, appendReplies),
  read: defineWorkerOp(11, 'read', reads, readReplies),
  /** Posted: ends read leases once their bytes are sent. */
  release: defineWorkerOp(12, 'release', leaseIds, NOTHING),
  listOffset: defineWorkerOp(13, 'listOffset', partitionArg, offsetReply),
  deleteRecords: defineWorkerOp(14, 'deleteRecords', partitionArg, offsetReply),
  offsetForEpoch: defineWorkerOp(15, 'offsetForEpoch', partitionArg, offsetReply),
  describeProducers: defineWorkerOp(16, 'describeProducers', json<PartitionRef>(), json<DescribeProducersReply>()),
  /** Records into memory, bounded by the ring, for coordinators replaying a partition. */
  readBytes: defineWorkerOp(17, 'readBytes', singleRead, readBytesReply),
  describeLogDirs: defineWorkerOp(20, 'describeLogDirs', NOTHING, json<WorkerLogDir[]>()),
  checkpointEntries: defineWorkerOp(21, 'checkpointEntries', NOTHING, json<LogDirCheckpoint[]>()),
  writeCheckpoints: defineWorkerOp(22, 'writeCheckpoints', json<WriteCheckpointsCommand>(), NOTHING),
  closeLogs: defineWorkerOp(23, 'closeLogs', NOTHING, json<LogDirCheckpoint[]>()),
  /** The worker's metrics and the high watermarks a scrape asks for, pulled when /metrics is scraped. */
  metrics: defineWorkerOp(24, 'metrics', json<MetricsCommand>(), json<MetricsReply>()),
} as const;
