/**
 * The commands the main thread sends to a partition worker and the replies it gets, shared by
 * both ends. The hot ones (append, read, release, list offsets) are compact binary; the rare
 * administrative ones carry JSON. Every reply that concerns one partition starts with a Kafka
 * error code, so a partition's failure is an answer, not a transport error.
 *
 * Partitions are named by topic name: that is what their directories are called, so a worker
 * can tell which partitions are its own when it loads the log dirs.
 */
import type { WorkerMetricsSnapshot } from '../common/metrics/worker-metrics.js';
import { Reader } from '../protocol/primitives/reader.js';
import { Writer } from '../protocol/primitives/writer.js';

export const PartitionOp = {
  OPEN: 1,
  DELETE: 2,
  UPDATE_CONFIG: 3,
  APPEND: 10,
  READ: 11,
  RELEASE: 12,
  LIST_OFFSET: 13,
  DELETE_RECORDS: 14,
  OFFSET_FOR_EPOCH: 15,
  DESCRIBE_PRODUCERS: 16,
  READ_BYTES: 17,
  DESCRIBE_LOG_DIRS: 20,
  CHECKPOINT_ENTRIES: 21,
  WRITE_CHECKPOINTS: 22,
  CLOSE_LOGS: 23,
  /** The worker's metrics and the high watermarks a scrape asks for (`MetricsCommand`, `MetricsReply`), pulled when /metrics is scraped. */
  METRICS: 24,
} as const;

/** What the worker module is started with (`handlerOptions`, structured-cloned). */
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

export interface OpenCommand {
  readonly topic: string;
  readonly topicId: string;
  readonly partitions: readonly number[];
  /** Effective topic configuration (Kafka keys). */
  readonly config: Readonly<Record<string, string>>;
}

export interface DeleteCommand {
  readonly topic: string;
  readonly partitions: readonly number[];
}

export type UpdateConfigCommand = OpenCommand;

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

/** METRICS: the partitions whose high watermarks the scrape needs (those with committed group offsets). */
export interface MetricsCommand {
  readonly partitions: readonly PartitionRef[];
}

/** A partition's high watermark as METRICS answers it: a number, as the log keeps it. */
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

export function encodeJson(value: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(value));
}

export function decodeJson<T>(bytes: Uint8Array): T {
  return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as T;
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

function readRef(r: Reader): PartitionRef {
  return { topic: r.compactString(), partition: r.int32() };
}

/**
 * The hot commands carry many partitions: one APPEND or READ per worker per request, not one
 * per partition, so a Produce or Fetch costs each worker one ring message, one wake-up and one
 * reply. Entries follow each other to the end of the body; replies come in the same order.
 */
function encodeEach<T>(items: readonly T[], write: (w: Writer, item: T) => void): Uint8Array {
  return finish((w) => {
    for (const item of items) write(w, item);
  });
}

function decodeEach<T>(bytes: Uint8Array, read: (r: Reader) => T): T[] {
  const r = reader(bytes);
  const out: T[] = [];
  while (r.remaining() > 0) out.push(read(r));
  return out;
}

/** One partition's append: this header, then its records (copied once into the ring after it). */
export interface AppendCommand extends PartitionRef {
  readonly leaderEpoch: number;
}

export function encodeAppendHeader(c: AppendCommand, recordsLength: number): Uint8Array {
  return finish((w) => {
    writeRef(w, c);
    w.int32(c.leaderEpoch);
    w.int32(recordsLength);
  });
}

export interface AppendEntry {
  readonly command: AppendCommand;
  /** A view over the command body (ring memory when it came through a ring). */
  readonly records: Buffer;
}

export function decodeAppends(bytes: Uint8Array): AppendEntry[] {
  return decodeEach(bytes, (r) => {
    const command = { ...readRef(r), leaderEpoch: r.int32() };
    return { command, records: r.raw(r.int32()) };
  });
}

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
}

function readAppendReply(r: Reader): AppendReply {
  const errorCode = r.int16();
  const errorMessage = r.compactNullableString();
  const recordErrors: RecordErrorReply[] = [];
  for (let n = r.unsignedVarint(); n > 0; n--) recordErrors.push({ batchIndex: r.int32(), message: r.compactNullableString() });
  return { errorCode, errorMessage, recordErrors, baseOffset: r.int64(), logAppendTimeMs: r.int64(), logStartOffset: r.int64(), highWatermark: r.int64() };
}

export function encodeAppendReplies(replies: readonly AppendReply[]): Uint8Array {
  return encodeEach(replies, writeAppendReply);
}

export function decodeAppendReplies(bytes: Uint8Array): AppendReply[] {
  return decodeEach(bytes, readAppendReply);
}

export interface ReadCommand extends PartitionRef {
  readonly fetchOffset: bigint;
  readonly maxBytes: number;
  /** Nothing at or beyond this offset is returned (the high watermark, or the last stable offset). */
  readonly readCommitted: boolean;
  readonly minOneMessage: boolean;
}

function writeReadCommand(w: Writer, c: ReadCommand): void {
  writeRef(w, c);
  w.int64(c.fetchOffset);
  w.int32(c.maxBytes);
  w.bool(c.readCommitted);
  w.bool(c.minOneMessage);
}

function readReadCommand(r: Reader): ReadCommand {
  return { ...readRef(r), fetchOffset: r.int64(), maxBytes: r.int32(), readCommitted: r.bool(), minOneMessage: r.bool() };
}

export function encodeReads(commands: readonly ReadCommand[]): Uint8Array {
  return encodeEach(commands, writeReadCommand);
}

export function decodeReads(bytes: Uint8Array): ReadCommand[] {
  return decodeEach(bytes, readReadCommand);
}

/** A leased file range: valid until RELEASE names its lease id. */
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

export function encodeReadReplies(replies: readonly ReadReply[]): Uint8Array {
  return encodeEach(replies, writeReadReply);
}

export function decodeReadReplies(bytes: Uint8Array): ReadReply[] {
  return decodeEach(bytes, readReadReply);
}

/** READ_BYTES' reply: the read's state, then the bytes themselves (for coordinators replaying a log). */
export function encodeReadBytesHeader(errorCode: number, highWatermark: bigint, logStartOffset: bigint): Uint8Array {
  return finish((w) => {
    w.int16(errorCode);
    w.int64(highWatermark);
    w.int64(logStartOffset);
  });
}

export interface ReadBytesReply {
  readonly errorCode: number;
  readonly highWatermark: bigint;
  readonly logStartOffset: bigint;
  readonly bytes: Buffer;
}

export function decodeReadBytesReply(bytes: Uint8Array): ReadBytesReply {
  const r = reader(bytes);
  return { errorCode: r.int16(), highWatermark: r.int64(), logStartOffset: r.int64(), bytes: r.raw(r.remaining()) };
}

export function encodeRelease(leaseIds: readonly number[]): Uint8Array {
  return finish((w) => {
    w.unsignedVarint(leaseIds.length);
    for (const id of leaseIds) w.uint32(id);
  });
}

export function decodeRelease(bytes: Uint8Array): number[] {
  const r = reader(bytes);
  const out: number[] = [];
  for (let n = r.unsignedVarint(); n > 0; n--) out.push(r.uint32());
  return out;
}

/** ListOffsets' special timestamps, as Kafka defines them. */
export const LATEST_TIMESTAMP = -1n;
export const EARLIEST_TIMESTAMP = -2n;
export const MAX_TIMESTAMP = -3n;

/**
 * A command about one partition with one number: the timestamp of LIST_OFFSET, the offset of
 * DELETE_RECORDS (-1: the high watermark, as in Kafka), the leader epoch of OFFSET_FOR_EPOCH.
 */
export interface PartitionArgCommand extends PartitionRef {
  readonly arg: bigint;
}

export function encodePartitionArg(c: PartitionArgCommand): Uint8Array {
  return finish((w) => {
    writeRef(w, c);
    w.int64(c.arg);
  });
}

export function decodePartitionArg(bytes: Uint8Array): PartitionArgCommand {
  const r = reader(bytes);
  return { ...readRef(r), arg: r.int64() };
}

export interface OffsetReply {
  readonly errorCode: number;
  readonly timestamp: bigint;
  readonly offset: bigint;
  readonly leaderEpoch: number;
}

export function encodeOffsetReply(a: OffsetReply): Uint8Array {
  return finish((w) => {
    w.int16(a.errorCode);
    w.int64(a.timestamp);
    w.int64(a.offset);
    w.int32(a.leaderEpoch);
  });
}

export function decodeOffsetReply(bytes: Uint8Array): OffsetReply {
  const r = reader(bytes);
  return { errorCode: r.int16(), timestamp: r.int64(), offset: r.int64(), leaderEpoch: r.int32() };
}
