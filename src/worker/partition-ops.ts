/**
 * The handler module of a partition worker: it owns a LogManager over the partitions routed to
 * this worker and serves the commands of `partition-protocol.ts`. Runs in the worker thread;
 * nothing here is shared with another thread except the leased file descriptors, which stay
 * open until the main thread sends RELEASE after its sendfile.
 */
import { statfsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { KafkaError } from '../common/kafka-error.js';
import { WorkerMetrics } from '../common/metrics/worker-metrics.js';
import { ErrorCode } from '../protocol/errors.js';
import { RecordValidationError } from '../protocol/records/index.js';
import {
  LogManager,
  writeCleanShutdownMarker,
  writeLogDirCheckpoints,
  type LogDirCheckpoint,
  type LogSlice,
  type PartitionLog,
} from '../storage/index.js';
import type { RegisterHandlers } from './handler-module.js';
import {
  EARLIEST_TIMESTAMP,
  LATEST_TIMESTAMP,
  MAX_TIMESTAMP,
  PartitionOp,
  decodeAppends,
  decodeJson,
  decodePartitionArg,
  decodeReads,
  decodeRelease,
  encodeAppendReplies,
  encodeJson,
  encodeOffsetReply,
  encodeReadBytesHeader,
  encodeReadReplies,
  parseWorkerOptions,
  type AppendEntry,
  type AppendReply,
  type ReadCommand,
  type ReadReply,
  type DeleteCommand,
  type DescribeProducersReply,
  type MetricsCommand,
  type MetricsReply,
  type OpenCommand,
  type PartitionEndReply,
  type PartitionRef,
  type UpdateConfigCommand,
  type WorkerLogDir,
} from './partition-protocol.js';
import { workerForPartition } from './partition-routing.js';

/** Kafka's -4 (EARLIEST_LOCAL_TIMESTAMP) and -5 (LATEST_TIERED_TIMESTAMP). */
const EARLIEST_LOCAL_TIMESTAMP = -4n;
const LATEST_TIERED_TIMESTAMP = -5n;
const NO_OFFSET = -1n;
/** A single broker never changes leader: every partition is at epoch 0. */
const LEADER_EPOCH = 0;

/** What WRITE_CHECKPOINTS carries: every worker's share of every log dir, and whether to mark a clean shutdown. */
export interface WriteCheckpointsCommand {
  readonly shares: readonly LogDirCheckpoint[][];
  readonly cleanShutdown: boolean;
}

function errorCodeOf(err: unknown): number {
  if (err instanceof KafkaError) return err.code;
  throw err;
}

export const registerHandlers: RegisterHandlers = (setup) => {
  const options = parseWorkerOptions(setup.options);
  const owns = (tp: PartitionRef): boolean => workerForPartition(tp.topic, tp.partition, setup.workerCount) === setup.workerIndex;
  const manager = LogManager.open({
    logDirs: options.logDirs,
    owns,
    shared: { cleanShutdownDirs: new Set(options.cleanShutdownDirs) },
    nodeId: options.nodeId,
    clusterId: options.clusterId,
    cleaner: options.cleanerThreads > 0 ? { threads: options.cleanerThreads } : false,
  });
  const metrics = new WorkerMetrics(setup.workerIndex);
  const leases = new Map<number, LogSlice>();
  let nextLeaseId = 1;
  let closed = false;

  const logOf = (ref: PartitionRef): PartitionLog => {
    const log = manager.getLog(ref);
    if (log === undefined) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `${ref.topic}-${ref.partition} is not hosted here`);
    return log;
  };

  const closeLogs = (): LogDirCheckpoint[] => {
    if (!closed) {
      closed = true;
      for (const slice of leases.values()) slice.release();
      leases.clear();
      manager.close();
    }
    return manager.checkpointEntries();
  };

  setup.handle(PartitionOp.OPEN, ({ body }) => {
    const c = decodeJson<OpenCommand>(body);
    for (const partition of c.partitions) {
      const log = manager.getOrCreateLog({ topic: c.topic, partition }, { topicId: c.topicId, config: c.config });
      log.updateConfig(c.config);
    }
  });

  setup.handle(PartitionOp.DELETE, ({ body }) => {
    const c = decodeJson<DeleteCommand>(body);
    for (const partition of c.partitions) manager.deleteLog({ topic: c.topic, partition });
  });

  setup.handle(PartitionOp.UPDATE_CONFIG, ({ body }) => {
    const c = decodeJson<UpdateConfigCommand>(body);
    for (const partition of c.partitions) manager.getLog({ topic: c.topic, partition })?.updateConfig(c.config);
  });

  const append = ({ command, records }: AppendEntry): AppendReply => {
    try {
      const log = logOf(command);
      const started = performance.now();
      const result = log.append(records, { leaderEpoch: command.leaderEpoch });
      // An append leaves unflushed messages behind unless it reached flush.messages and flushed.
      metrics.appended(records.byteLength, (performance.now() - started) / 1000, log.flushState.unflushedMessages === 0);
      log.highWatermark = log.logEndOffset;
      return {
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        recordErrors: [],
        baseOffset: BigInt(result.baseOffset),
        logAppendTimeMs: BigInt(result.logAppendTimeMs),
        logStartOffset: BigInt(result.logStartOffset),
        highWatermark: BigInt(log.highWatermark),
      };
    } catch (err) {
      return {
        errorCode: errorCodeOf(err),
        errorMessage: (err as Error).message,
        recordErrors: err instanceof RecordValidationError ? err.recordErrors : [],
        baseOffset: NO_OFFSET,
        logAppendTimeMs: NO_OFFSET,
        logStartOffset: NO_OFFSET,
        highWatermark: NO_OFFSET,
      };
    }
  };

  // The records are views on ring memory: each append validates and writes them from there.
  setup.handle(PartitionOp.APPEND, ({ body }) => encodeAppendReplies(decodeAppends(body).map(append)));

  const read = (c: ReadCommand): ReadReply => {
    const failed = (errorCode: number): ReadReply => ({ errorCode, highWatermark: NO_OFFSET, lastStableOffset: NO_OFFSET, logStartOffset: NO_OFFSET, slice: null });
    let log: PartitionLog;
    try {
      log = logOf(c);
    } catch (err) {
      return failed(errorCodeOf(err));
    }
    const state = {
      highWatermark: BigInt(log.highWatermark),
      // No transactions yet: every record below the high watermark is committed.
      lastStableOffset: BigInt(log.highWatermark),
      logStartOffset: BigInt(log.logStartOffset),
    };
    try {
      const slice = log.read(Number(c.fetchOffset), c.maxBytes, { maxOffsetExclusive: log.highWatermark, minOneMessage: c.minOneMessage });
      if (slice === null) return { errorCode: ErrorCode.NONE, ...state, slice: null };
      const leaseId = nextLeaseId++;
      if (nextLeaseId > 0xffffffff) nextLeaseId = 1;
      leases.set(leaseId, slice);
      return { errorCode: ErrorCode.NONE, ...state, slice: { leaseId, fd: slice.fd, position: slice.position, length: slice.length } };
    } catch (err) {
      // Kafka reports no offsets alongside a partition error.
      return failed(errorCodeOf(err));
    }
  };

  setup.handle(PartitionOp.READ, ({ body }) => encodeReadReplies(decodeReads(body).map(read)));

  setup.handle(PartitionOp.READ_BYTES, ({ body }) => {
    const [c, ...more] = decodeReads(body);
    if (c === undefined || more.length > 0) throw new KafkaError(ErrorCode.INVALID_REQUEST, 'READ_BYTES reads exactly one partition');
    try {
      const log = logOf(c);
      const bytes = log.readBuffer(Number(c.fetchOffset), c.maxBytes, { maxOffsetExclusive: log.highWatermark, minOneMessage: c.minOneMessage });
      return { payloads: [encodeReadBytesHeader(ErrorCode.NONE, BigInt(log.highWatermark), BigInt(log.logStartOffset)), bytes] };
    } catch (err) {
      return encodeReadBytesHeader(errorCodeOf(err), NO_OFFSET, NO_OFFSET);
    }
  });

  setup.handle(PartitionOp.RELEASE, ({ body }) => {
    for (const id of decodeRelease(body)) {
      leases.get(id)?.release();
      leases.delete(id);
    }
  });

  setup.handle(PartitionOp.LIST_OFFSET, ({ body }) => {
    const c = decodePartitionArg(body);
    const timestamp = c.arg;
    const none = { timestamp: NO_OFFSET, offset: NO_OFFSET, leaderEpoch: -1 };
    try {
      const log = logOf(c);
      const at = (offset: number): { timestamp: bigint; offset: bigint; leaderEpoch: number } => ({ timestamp: NO_OFFSET, offset: BigInt(offset), leaderEpoch: LEADER_EPOCH });
      let found: { timestamp: bigint; offset: bigint; leaderEpoch: number };
      if (timestamp === EARLIEST_TIMESTAMP || timestamp === EARLIEST_LOCAL_TIMESTAMP) found = at(log.logStartOffset);
      else if (timestamp === LATEST_TIMESTAMP) found = at(log.highWatermark);
      else if (timestamp === LATEST_TIERED_TIMESTAMP) found = none;
      else if (timestamp === MAX_TIMESTAMP) {
        const max = log.offsetOfMaxTimestamp();
        found = max === null ? none : { timestamp: BigInt(max.timestamp), offset: BigInt(max.offset), leaderEpoch: LEADER_EPOCH };
      } else if (timestamp < 0n) {
        return encodeOffsetReply({ errorCode: ErrorCode.INVALID_REQUEST, ...none });
      } else {
        const hit = log.offsetForTimestamp(Number(timestamp));
        found = hit === null ? none : { timestamp: BigInt(hit.timestamp), offset: BigInt(hit.offset), leaderEpoch: LEADER_EPOCH };
      }
      return encodeOffsetReply({ errorCode: ErrorCode.NONE, ...found });
    } catch (err) {
      return encodeOffsetReply({ errorCode: errorCodeOf(err), ...none });
    }
  });

  setup.handle(PartitionOp.DELETE_RECORDS, ({ body }) => {
    const c = decodePartitionArg(body);
    try {
      const log = logOf(c);
      const target = c.arg === -1n ? BigInt(log.highWatermark) : c.arg;
      if (target < 0n || target > BigInt(log.highWatermark)) {
        return encodeOffsetReply({ errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, timestamp: NO_OFFSET, offset: NO_OFFSET, leaderEpoch: -1 });
      }
      const lowWatermark = log.deleteRecordsTo(Number(target));
      return encodeOffsetReply({ errorCode: ErrorCode.NONE, timestamp: NO_OFFSET, offset: BigInt(lowWatermark), leaderEpoch: LEADER_EPOCH });
    } catch (err) {
      return encodeOffsetReply({ errorCode: errorCodeOf(err), timestamp: NO_OFFSET, offset: NO_OFFSET, leaderEpoch: -1 });
    }
  });

  setup.handle(PartitionOp.OFFSET_FOR_EPOCH, ({ body }) => {
    const c = decodePartitionArg(body);
    try {
      const log = logOf(c);
      const { epoch, endOffset } = log.leaderEpochCache.endOffsetFor(Number(c.arg), log.logEndOffset);
      return encodeOffsetReply({ errorCode: ErrorCode.NONE, timestamp: NO_OFFSET, offset: BigInt(endOffset), leaderEpoch: epoch });
    } catch (err) {
      return encodeOffsetReply({ errorCode: errorCodeOf(err), timestamp: NO_OFFSET, offset: NO_OFFSET, leaderEpoch: -1 });
    }
  });

  setup.handle(PartitionOp.DESCRIBE_PRODUCERS, ({ body }) => {
    const ref = decodeJson<PartitionRef>(body);
    let reply: DescribeProducersReply;
    try {
      const producers = [...logOf(ref).activeProducers().values()].map((p) => ({
        producerId: p.producerId.toString(),
        producerEpoch: p.producerEpoch,
        lastSequence: p.lastSeq,
        lastTimestamp: p.lastTimestamp,
        coordinatorEpoch: p.coordinatorEpoch,
        currentTxnStartOffset: p.currentTxnFirstOffset,
      }));
      reply = { errorCode: ErrorCode.NONE, producers };
    } catch (err) {
      reply = { errorCode: errorCodeOf(err), producers: [] };
    }
    return encodeJson(reply);
  });

  setup.handle(PartitionOp.DESCRIBE_LOG_DIRS, () => {
    const dirs: WorkerLogDir[] = manager.logDirs.map((dir) => {
      let totalBytes = -1;
      let usableBytes = -1;
      try {
        const fs = statfsSync(dir.path);
        totalBytes = fs.blocks * fs.bsize;
        usableBytes = fs.bavail * fs.bsize;
      } catch {
        // An unreadable log dir is reported offline below; its sizes stay unknown (-1), as in Kafka.
      }
      const partitions = [...manager.logs()]
        .filter((log) => log.logDir === dir)
        .map((log) => ({ topic: log.topicPartition.topic, partition: log.topicPartition.partition, sizeBytes: log.size }));
      return { path: dir.path, online: dir.online, totalBytes, usableBytes, partitions };
    });
    return encodeJson(dirs);
  });

  setup.handle(PartitionOp.CHECKPOINT_ENTRIES, () => encodeJson(manager.checkpointEntries()));

  setup.handle(PartitionOp.WRITE_CHECKPOINTS, ({ body }) => {
    const c = decodeJson<WriteCheckpointsCommand>(body);
    const byDir = new Map<string, LogDirCheckpoint[]>();
    for (const share of c.shares.flat()) byDir.set(share.path, [...(byDir.get(share.path) ?? []), share]);
    for (const [path, shares] of byDir) {
      if (!shares.every((s) => s.online)) continue;
      writeLogDirCheckpoints(...shares);
      if (c.cleanShutdown) writeCleanShutdownMarker(path);
    }
  });

  setup.handle(PartitionOp.CLOSE_LOGS, () => encodeJson(closeLogs()));

  setup.handle(PartitionOp.METRICS, async ({ body }) => {
    const c = decodeJson<MetricsCommand>(body);
    let partitions = 0;
    let segments = 0;
    if (!closed) {
      for (const log of manager.logs()) {
        partitions++;
        segments += log.segmentCount;
      }
    }
    const ends = c.partitions.map((ref): PartitionEndReply => {
      const log = closed ? undefined : manager.getLog(ref);
      return log === undefined
        ? { topic: ref.topic, partition: ref.partition, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, highWatermark: Number(NO_OFFSET) }
        : { topic: ref.topic, partition: ref.partition, errorCode: ErrorCode.NONE, highWatermark: log.highWatermark };
    });
    const reply: MetricsReply = { metrics: await metrics.snapshot({ partitions, segments }), ends };
    return encodeJson(reply);
  });

  setup.every(options.maintenanceIntervalMs, () => {
    if (closed) return;
    const started = performance.now();
    manager.maintain();
    metrics.maintained((performance.now() - started) / 1000);
  });
  setup.onClose(() => {
    closeLogs();
  });
};
