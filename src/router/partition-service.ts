/**
 * The main thread's handle on the partition workers: routes each partition operation to the
 * worker that owns the partition (by topic name and partition, see `partition-routing.ts`),
 * turns replies into typed results, and keeps the per-log-dir files consistent across workers
 * (each worker reports its share; one writes the merged checkpoint files). Implements
 * `PartitionAdmin` for the metadata handlers and the data operations for Produce, Fetch,
 * ListOffsets and friends. A dead worker answers KAFKA_STORAGE_ERROR for its partitions.
 */
import type { LogDirDescription, PartitionAdmin, TopicConfigValues, TopicRef } from '../cluster/partition-admin.js';
import type { PartitionRegistration } from '../cluster/metadata-image.js';
import { kafkaErrorCode } from '../common/kafka-error.js';
import type { Logger } from '../common/logger.js';
import type { PartitionEnd } from '../common/metrics/consumer-lag.js';
import type { WorkerScrape } from '../common/metrics/scrape.js';
import type { WorkerMetricsSnapshot } from '../common/metrics/worker-metrics.js';
import { ErrorCode } from '../protocol/errors.js';
import type { FileRegion } from '../protocol/primitives/writer.js';
import type { PartitionWorkerHost } from '../worker/partition-worker-host.js';
import {
  NO_EPOCH_CHECK,
  NO_OFFSET,
  PartitionOps,
  failedAppend,
  type AppendReply,
  type AppendRequest,
  type DescribeProducersReply,
  type OffsetReply,
  type PartitionArgCommand,
  type PartitionRef,
  type ReadBytesReply,
  type ReadCommand,
} from '../worker/partition-protocol.js';
import type { WorkerOp } from '../worker/worker-op.js';
import type { PartitionData } from './partition-data.js';

/** Upper bounds of an entry's encoded bytes besides its topic name (UTF-8, ≤ 3 bytes per UTF-16 unit) and records. */
const APPEND_HEADER_ESTIMATE = 5 + 4 + 2 + 4;
const READ_COMMAND_ESTIMATE = 5 + 4 + 4 + 8 + 4 + 1 + 1;

export interface ReadResult {
  readonly errorCode: number;
  readonly highWatermark: bigint;
  readonly lastStableOffset: bigint;
  readonly logStartOffset: bigint;
  /** The records, leased in the owner's segment file: send, then release (FileRegion.release). */
  readonly records: FileRegion | null;
}

export class PartitionService implements PartitionAdmin, PartitionData {
  /** Lease ids to release, per worker, gathered during the current turn of the event loop. */
  private readonly pendingReleases = new Map<number, number[]>();

  constructor(
    private readonly host: PartitionWorkerHost,
    private readonly log: Logger,
    /** Called when a partition's high watermark moved, so fetches waiting on it can read again. */
    private readonly onHighWatermarkMoved: (topic: string, partition: number) => void,
  ) {}

  private workerOf(topic: string, partition: number): number {
    return this.host.workerFor(topic, partition);
  }

  /** Indexes of `items` grouped by the worker that owns each item's partition, in item order. */
  private indexesByWorker(items: readonly PartitionRef[]): Map<number, number[]> {
    const groups = new Map<number, number[]>();
    items.forEach((item, i) => {
      const w = this.workerOf(item.topic, item.partition);
      const list = groups.get(w);
      if (list === undefined) groups.set(w, [i]);
      else list.push(i);
    });
    return groups;
  }

  /** One op per worker owning some of `partitions` of `topic`, each with its share. */
  private async eachWorker<T, Req>(topic: string, partitions: readonly T[], partitionOf: (item: T) => number, op: WorkerOp<Req, void>, body: (share: T[]) => Req): Promise<void> {
    const groups = this.indexesByWorker(partitions.map((item) => ({ topic, partition: partitionOf(item) })));
    await Promise.all([...groups].map(([w, indexes]) => this.host.call(w, op, body(indexes.map((i) => partitions[i]!)))));
  }

  async createPartitions(topic: TopicRef, partitions: readonly PartitionRegistration[], config: TopicConfigValues): Promise<void> {
    const settings = logSettings(config);
    await this.eachWorker(topic.name, partitions, (p) => p.partition, PartitionOps.open, (share) => ({
      topic: topic.name,
      topicId: topic.topicId,
      partitions: share.map((p) => ({ partition: p.partition, leader: p.leader, leaderEpoch: p.leaderEpoch, replicas: p.replicas, isr: p.isr })),
      config: settings,
    }));
  }

  async deleteTopic(topic: TopicRef, partitionCount: number): Promise<void> {
    await this.eachWorker(topic.name, range(partitionCount), (p) => p, PartitionOps.delete, (share) => ({ topic: topic.name, partitions: share }));
  }

  async updateTopicConfig(topic: TopicRef, partitionCount: number, config: TopicConfigValues): Promise<void> {
    const settings = logSettings(config);
    await this.eachWorker(topic.name, range(partitionCount), (p) => p, PartitionOps.updateConfig, (share) => ({ topic: topic.name, partitions: share, config: settings }));
  }

  async describeLogDirs(): Promise<LogDirDescription[]> {
    const shares = await Promise.all(this.workers().map((w) => this.host.call(w, PartitionOps.describeLogDirs, undefined)));
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

  /**
   * Appends each entry's records on its partition's owner: one ring message per worker (split
   * only where a worker's share exceeds the ring's message limit), the records copied once, into
   * the ring. Replies come back in the order of `entries`; a failure is the entry's error code.
   */
  async appendMany(entries: readonly AppendRequest[]): Promise<AppendReply[]> {
    const replies = new Array<AppendReply>(entries.length);
    const sizeOf = (i: number): number => APPEND_HEADER_ESTIMATE + entries[i]!.topic.length * 3 + entries[i]!.records.byteLength;
    await this.eachMessage(entries, sizeOf, async (worker, indexes) => {
      try {
        const answers = await this.host.call(worker, PartitionOps.append, indexes.map((i) => entries[i]!));
        indexes.forEach((i, n) => (replies[i] = answers[n]!));
      } catch (err) {
        const failure = failedAppend(kafkaErrorCode(err), (err as Error).message);
        for (const i of indexes) replies[i] = failure;
      }
    });
    entries.forEach((e, i) => {
      if (replies[i]!.highWatermarkMoved) this.onHighWatermarkMoved(e.topic, e.partition);
    });
    return replies;
  }

  /**
   * Reads each command's partition on its owner (one ring message per worker). A result's records
   * are leased in the owner's segment file: send them, then release (FileRegion.release).
   */
  async readMany(commands: readonly ReadCommand[]): Promise<ReadResult[]> {
    const results = new Array<ReadResult>(commands.length);
    const sizeOf = (i: number): number => READ_COMMAND_ESTIMATE + commands[i]!.topic.length * 3;
    await this.eachMessage(commands, sizeOf, async (worker, indexes) => {
      try {
        const replies = await this.host.call(worker, PartitionOps.read, indexes.map((i) => commands[i]!));
        indexes.forEach((i, n) => {
          const r = replies[n]!;
          const slice = r.slice;
          const records: FileRegion | null =
            slice === null ? null : { fd: slice.fd, position: slice.position, byteLength: slice.length, release: () => this.release(worker, slice.leaseId) };
          results[i] = { errorCode: r.errorCode, highWatermark: r.highWatermark, lastStableOffset: r.lastStableOffset, logStartOffset: r.logStartOffset, records };
        });
      } catch (err) {
        const failure: ReadResult = { errorCode: kafkaErrorCode(err), highWatermark: NO_OFFSET, lastStableOffset: NO_OFFSET, logStartOffset: NO_OFFSET, records: null };
        for (const i of indexes) results[i] = failure;
      }
    });
    return results;
  }

  /**
   * Groups `items` by owning worker and runs `send` once per ring message: a worker's items in
   * order, split where their estimated encoded size would pass the ring's message limit.
   */
  private async eachMessage(items: readonly PartitionRef[], sizeOf: (index: number) => number, send: (worker: number, indexes: number[]) => Promise<void>): Promise<void> {
    const limit = this.host.maxCommandBodyBytes;
    const sends: Promise<void>[] = [];
    for (const [worker, indexes] of this.indexesByWorker(items)) {
      let message: number[] = [];
      let bytes = 0;
      for (const i of indexes) {
        const size = sizeOf(i);
        if (message.length > 0 && bytes + size > limit) {
          sends.push(send(worker, message));
          message = [];
          bytes = 0;
        }
        message.push(i);
        bytes += size;
      }
      sends.push(send(worker, message));
    }
    await Promise.all(sends);
  }

  /** Reads records into memory (bounded by the worker's ring), for coordinators replaying a partition. */
  async readBytes(topic: string, partition: number, fetchOffset: bigint, maxBytes: number): Promise<ReadBytesReply> {
    try {
      const command: ReadCommand = { topic, partition, currentLeaderEpoch: NO_EPOCH_CHECK, fetchOffset, maxBytes, readCommitted: false, minOneMessage: true };
      return await this.host.call(this.workerOf(topic, partition), PartitionOps.readBytes, command);
    } catch (err) {
      return { errorCode: kafkaErrorCode(err), highWatermark: NO_OFFSET, logStartOffset: NO_OFFSET, bytes: Buffer.alloc(0) };
    }
  }

  /**
   * Leases end in batches: the ids released during one turn of the event loop go to each worker
   * as one posted command, which waits for the worker's next wake-up instead of causing one.
   */
  private release(worker: number, leaseId: number): void {
    const ids = this.pendingReleases.get(worker);
    if (ids === undefined) this.pendingReleases.set(worker, [leaseId]);
    else ids.push(leaseId);
    if (this.pendingReleases.size === 1 && ids === undefined) queueMicrotask(() => this.postReleases());
  }

  private postReleases(): void {
    for (const [worker, ids] of this.pendingReleases) {
      try {
        this.host.postOp(worker, PartitionOps.release, ids);
      } catch (err) {
        this.log.warn('releasing read leases failed', { worker, leases: ids.length, error: String(err) });
      }
    }
    this.pendingReleases.clear();
  }

  listOffset(ref: PartitionRef, currentLeaderEpoch: number, timestamp: bigint): Promise<OffsetReply> {
    return this.offsetOp(PartitionOps.listOffset, { ...ref, currentLeaderEpoch, arg: timestamp });
  }

  deleteRecords(ref: PartitionRef, offset: bigint): Promise<OffsetReply> {
    return this.offsetOp(PartitionOps.deleteRecords, { ...ref, currentLeaderEpoch: NO_EPOCH_CHECK, arg: offset });
  }

  offsetForLeaderEpoch(ref: PartitionRef, currentLeaderEpoch: number, leaderEpoch: number): Promise<OffsetReply> {
    return this.offsetOp(PartitionOps.offsetForEpoch, { ...ref, currentLeaderEpoch, arg: BigInt(leaderEpoch) });
  }

  private async offsetOp(op: WorkerOp<PartitionArgCommand, OffsetReply>, command: PartitionArgCommand): Promise<OffsetReply> {
    try {
      return await this.host.call(this.workerOf(command.topic, command.partition), op, command);
    } catch (err) {
      return { errorCode: kafkaErrorCode(err), timestamp: NO_OFFSET, offset: NO_OFFSET, leaderEpoch: -1 };
    }
  }

  async describeProducers(ref: PartitionRef): Promise<DescribeProducersReply> {
    try {
      return await this.host.call(this.workerOf(ref.topic, ref.partition), PartitionOps.describeProducers, { topic: ref.topic, partition: ref.partition });
    } catch (err) {
      return { errorCode: kafkaErrorCode(err), producers: [] };
    }
  }

  /**
   * Every worker's metrics and the high watermarks of `ends` (for a /metrics scrape): one METRICS
   * request per worker, carrying the partitions it owns. A worker that is gone or fails to answer
   * is left out, so a scrape still shows the rest; the failure is logged. Partitions that are
   * not hosted have no end.
   */
  async workerMetrics(ends: readonly PartitionRef[]): Promise<WorkerScrape> {
    const byWorker = this.indexesByWorker(ends);
    // Every worker is asked, for its snapshot, whether or not it owns one of `ends`.
    const owned = this.workers().map((w) => (byWorker.get(w) ?? []).map((i) => ends[i]!));
    const replies = await Promise.allSettled(
      owned.map((partitions, w) => this.host.call(w, PartitionOps.metrics, { partitions })),
    );
    const snapshots: WorkerMetricsSnapshot[] = [];
    const hosted: PartitionEnd[] = [];
    replies.forEach((reply, worker) => {
      if (reply.status === 'rejected') {
        this.log.debug('worker metrics unavailable', { worker, error: String(reply.reason) });
        return;
      }
      snapshots.push(reply.value.metrics);
      for (const e of reply.value.ends) {
        if (e.errorCode === ErrorCode.NONE) hosted.push({ topic: e.topic, partition: e.partition, highWatermark: BigInt(e.highWatermark) });
      }
    });
    return { snapshots, ends: hosted };
  }

  /** Writes the per-log-dir checkpoint files from every worker's share (worker 0 writes them). */
  async checkpoint(): Promise<void> {
    const shares = await Promise.all(this.workers().map((w) => this.host.call(w, PartitionOps.checkpointEntries, undefined)));
    await this.host.call(0, PartitionOps.writeCheckpoints, { shares, cleanShutdown: false });
  }

  /**
   * Clean shutdown: every worker flushes and closes its logs and reports its final share; the
   * merged checkpoints and the clean-shutdown markers are written; then the workers exit.
   */
  async close(): Promise<void> {
    const shares = await Promise.all(this.workers().map((w) => this.host.call(w, PartitionOps.closeLogs, undefined)));
    await this.host.call(0, PartitionOps.writeCheckpoints, { shares, cleanShutdown: true });
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
