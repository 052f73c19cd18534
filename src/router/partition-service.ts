/**
 * The main thread's handle on the partition workers: routes each partition operation to the
 * worker that owns the partition (by topic name and partition, see `partition-routing.ts`),
 * turns replies into typed results, and keeps the per-log-dir files consistent across workers
 * (each worker reports its share; one writes the merged checkpoint files). Implements
 * `PartitionAdmin` for the metadata handlers and the data operations for Produce, Fetch,
 * ListOffsets and friends. A dead worker answers KAFKA_STORAGE_ERROR for its partitions.
 */
import { KafkaError } from '../common/kafka-error.js';
import type { Logger } from '../common/logger.js';
import type { WorkerMetricsSnapshot } from '../common/metrics/worker-metrics.js';
import { ErrorCode } from '../protocol/errors.js';
import type { FileRegion } from '../protocol/primitives/writer.js';
import type { PartitionWorkerHost } from '../worker/partition-worker-host.js';
import {
  PartitionOp,
  decodeAppendReply,
  decodeJson,
  decodeOffsetReply,
  decodeReadBytesReply,
  decodeReadReply,
  encodeAppendHeader,
  encodeJson,
  encodePartitionArg,
  encodeRead,
  encodeRelease,
  type AppendReply,
  type DescribeProducersReply,
  type OffsetReply,
  type ReadBytesReply,
  type ReadCommand,
  type WorkerLogDir,
} from '../worker/partition-protocol.js';
import type { LogDirDescription, PartitionAdmin, TopicConfigValues, TopicRef } from './partition-admin.js';
import type { PartitionData } from './partition-data.js';

const NO_OFFSET = -1n;

export interface ReadResult {
  readonly errorCode: number;
  readonly highWatermark: bigint;
  readonly lastStableOffset: bigint;
  readonly logStartOffset: bigint;
  /** The records, leased in the owner's segment file: send, then release (FileRegion.release). */
  readonly records: FileRegion | null;
}

function transportErrorCode(err: unknown): number {
  if (err instanceof KafkaError) return err.code;
  throw err;
}

export class PartitionService implements PartitionAdmin, PartitionData {
  constructor(
    private readonly host: PartitionWorkerHost,
    private readonly log: Logger,
    /** Called after every successful append, so waiting fetches can read again. */
    private readonly onAppend: (topic: string, partition: number) => void,
  ) {}

  private workerOf(topic: string, partition: number): number {
    return this.host.workerFor(topic, partition);
  }

  /** Partitions of a topic grouped by owning worker. */
  private byWorker(topic: string, partitions: readonly number[]): Map<number, number[]> {
    const groups = new Map<number, number[]>();
    for (const p of partitions) {
      const w = this.workerOf(topic, p);
      groups.set(w, [...(groups.get(w) ?? []), p]);
    }
    return groups;
  }

  private async eachWorker(topic: string, partitions: readonly number[], op: number, body: (ps: number[]) => unknown): Promise<void> {
    await Promise.all([...this.byWorker(topic, partitions)].map(([w, ps]) => this.host.request(w, op, { payloads: [encodeJson(body(ps))] })));
  }

  async createPartitions(topic: TopicRef, partitions: readonly number[], config: TopicConfigValues): Promise<void> {
    const settings = logSettings(config);
    await this.eachWorker(topic.name, partitions, PartitionOp.OPEN, (ps) => ({ topic: topic.name, topicId: topic.topicId, partitions: ps, config: settings }));
  }

  async deleteTopic(topic: TopicRef, partitionCount: number): Promise<void> {
    await this.eachWorker(topic.name, range(partitionCount), PartitionOp.DELETE, (ps) => ({ topic: topic.name, partitions: ps }));
  }

  async updateTopicConfig(topic: TopicRef, partitionCount: number, config: TopicConfigValues): Promise<void> {
    const settings = logSettings(config);
    await this.eachWorker(topic.name, range(partitionCount), PartitionOp.UPDATE_CONFIG, (ps) => ({
      topic: topic.name,
      topicId: topic.topicId,
      partitions: ps,
      config: settings,
    }));
  }

  async describeLogDirs(): Promise<LogDirDescription[]> {
    const shares = await Promise.all(this.workers().map(async (w) => decodeJson<WorkerLogDir[]>(await this.host.request(w, PartitionOp.DESCRIBE_LOG_DIRS))));
    const byPath = new Map<string, { online: boolean; totalBytes: number; usableBytes: number; partitions: LogDirDescription['partitions'][number][] }>();
    for (const dir of shares.flat()) {
      const entry = byPath.get(dir.path) ?? { online: true, totalBytes: dir.totalBytes, usableBytes: dir.usableBytes, partitions: [] };
      entry.online &&= dir.online;
      entry.partitions.push(...dir.partitions.map((p) => ({ topic: p.topic, partition: p.partition, sizeBytes: BigInt(p.sizeBytes), offsetLag: 0n })));
      byPath.set(dir.path, entry);
    }
    return [...byPath].map(([path, d]) => ({
      path,
      errorCode: d.online ? ErrorCode.NONE : ErrorCode.KAFKA_STORAGE_ERROR,
      totalBytes: BigInt(d.totalBytes),
      usableBytes: BigInt(d.usableBytes),
      partitions: d.partitions,
    }));
  }

  /** Appends one Produce partition's records (copied once, into the owner's ring). */
  async append(topic: string, partition: number, leaderEpoch: number, records: Uint8Array): Promise<AppendReply> {
    try {
      const header = encodeAppendHeader({ topic, partition, leaderEpoch });
      const reply = decodeAppendReply(await this.host.request(this.workerOf(topic, partition), PartitionOp.APPEND, { payloads: [header, records] }));
      if (reply.errorCode === ErrorCode.NONE) this.onAppend(topic, partition);
      return reply;
    } catch (err) {
      const errorCode = transportErrorCode(err);
      return { errorCode, errorMessage: (err as Error).message, recordErrors: [], baseOffset: NO_OFFSET, logAppendTimeMs: NO_OFFSET, logStartOffset: NO_OFFSET, highWatermark: NO_OFFSET };
    }
  }

  async read(c: ReadCommand): Promise<ReadResult> {
    const worker = this.workerOf(c.topic, c.partition);
    try {
      const reply = decodeReadReply(await this.host.request(worker, PartitionOp.READ, { payloads: [encodeRead(c)] }));
      const slice = reply.slice;
      const records: FileRegion | null =
        slice === null
          ? null
          : { fd: slice.fd, position: slice.position, byteLength: slice.length, release: () => this.release(worker, slice.leaseId) };
      return { errorCode: reply.errorCode, highWatermark: reply.highWatermark, lastStableOffset: reply.lastStableOffset, logStartOffset: reply.logStartOffset, records };
    } catch (err) {
      return { errorCode: transportErrorCode(err), highWatermark: NO_OFFSET, lastStableOffset: NO_OFFSET, logStartOffset: NO_OFFSET, records: null };
    }
  }

  /** Reads records into memory (bounded by the worker's ring), for coordinators replaying a partition. */
  async readBytes(topic: string, partition: number, fetchOffset: bigint, maxBytes: number): Promise<ReadBytesReply> {
    try {
      const command = encodeRead({ topic, partition, fetchOffset, maxBytes, readCommitted: false, minOneMessage: true });
      return decodeReadBytesReply(await this.host.request(this.workerOf(topic, partition), PartitionOp.READ_BYTES, { payloads: [command] }));
    } catch (err) {
      return { errorCode: transportErrorCode(err), highWatermark: NO_OFFSET, logStartOffset: NO_OFFSET, bytes: Buffer.alloc(0) };
    }
  }

  private release(worker: number, leaseId: number): void {
    this.host.request(worker, PartitionOp.RELEASE, { payloads: [encodeRelease([leaseId])] }).catch((err: unknown) => {
      // A worker that is gone has closed its files already; anything else is worth knowing.
      if (!(err instanceof KafkaError && err.code === ErrorCode.KAFKA_STORAGE_ERROR)) {
        this.log.warn('releasing a read lease failed', { worker, leaseId, error: String(err) });
      }
    });
  }

  listOffset(topic: string, partition: number, timestamp: bigint): Promise<OffsetReply> {
    return this.offsetRequest(topic, partition, PartitionOp.LIST_OFFSET, encodePartitionArg({ topic, partition, arg: timestamp }));
  }

  deleteRecords(topic: string, partition: number, offset: bigint): Promise<OffsetReply> {
    return this.offsetRequest(topic, partition, PartitionOp.DELETE_RECORDS, encodePartitionArg({ topic, partition, arg: offset }));
  }

  offsetForLeaderEpoch(topic: string, partition: number, leaderEpoch: number): Promise<OffsetReply> {
    return this.offsetRequest(topic, partition, PartitionOp.OFFSET_FOR_EPOCH, encodePartitionArg({ topic, partition, arg: BigInt(leaderEpoch) }));
  }

  private async offsetRequest(topic: string, partition: number, op: number, body: Uint8Array): Promise<OffsetReply> {
    try {
      return decodeOffsetReply(await this.host.request(this.workerOf(topic, partition), op, { payloads: [body] }));
    } catch (err) {
      return { errorCode: transportErrorCode(err), timestamp: NO_OFFSET, offset: NO_OFFSET, leaderEpoch: -1 };
    }
  }

  async describeProducers(topic: string, partition: number): Promise<DescribeProducersReply> {
    try {
      const reply = await this.host.request(this.workerOf(topic, partition), PartitionOp.DESCRIBE_PRODUCERS, { payloads: [encodeJson({ topic, partition })] });
      return decodeJson<DescribeProducersReply>(reply);
    } catch (err) {
      return { errorCode: transportErrorCode(err), producers: [] };
    }
  }

  /**
   * Every worker's metrics (for a /metrics scrape). A worker that is gone or fails to answer is
   * left out, so a scrape still shows the rest; the failure is logged.
   */
  async workerMetrics(): Promise<WorkerMetricsSnapshot[]> {
    const replies = await Promise.allSettled(this.workers().map(async (w) => decodeJson<WorkerMetricsSnapshot>(await this.host.request(w, PartitionOp.METRICS))));
    const snapshots: WorkerMetricsSnapshot[] = [];
    replies.forEach((reply, worker) => {
      if (reply.status === 'fulfilled') snapshots.push(reply.value);
      else this.log.debug('worker metrics unavailable', { worker, error: String(reply.reason) });
    });
    return snapshots;
  }

  /** Writes the per-log-dir checkpoint files from every worker's share (worker 0 writes them). */
  async checkpoint(): Promise<void> {
    const shares = await Promise.all(this.workers().map(async (w) => decodeJson<unknown[]>(await this.host.request(w, PartitionOp.CHECKPOINT_ENTRIES))));
    await this.host.request(0, PartitionOp.WRITE_CHECKPOINTS, { payloads: [encodeJson({ shares, cleanShutdown: false })] });
  }

  /**
   * Clean shutdown: every worker flushes and closes its logs and reports its final share; the
   * merged checkpoints and the clean-shutdown markers are written; then the workers exit.
   */
  async close(): Promise<void> {
    const shares = await Promise.all(this.workers().map(async (w) => decodeJson<unknown[]>(await this.host.request(w, PartitionOp.CLOSE_LOGS))));
    await this.host.request(0, PartitionOp.WRITE_CHECKPOINTS, { payloads: [encodeJson({ shares, cleanShutdown: true })] });
    await this.host.close();
  }

  private workers(): number[] {
    return range(this.host.size);
  }
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

/** Effective topic settings as the logs take them; keys without a value are left to the log's defaults. */
function logSettings(config: TopicConfigValues): Record<string, string> {
  return Object.fromEntries([...config].filter(([, v]) => v !== ''));
}
