/**
 * The op module of a partition worker: it owns a LogManager over the partitions routed to
 * this worker, a `Partition` replica for each partition the controller's state has reached
 * (`open`), and serves `PartitionOps`. Runs in the worker thread; nothing here is shared with
 * another thread except the leased file descriptors, which stay open until the main thread
 * posts `release` after its sendfile.
 */
import { performance } from 'node:perf_hooks';
import { KafkaError, kafkaErrorCode } from '../common/kafka-error.js';
import { WorkerMetrics } from '../common/metrics/worker-metrics.js';
import { ErrorCode } from '../protocol/errors.js';
import { RecordValidationError } from '../protocol/records/index.js';
import {
  LogManager,
  StorageError,
  VerificationRequired,
  writeCleanShutdownMarker,
  writeLogDirCheckpoints,
  type LogDirCheckpoint,
  type LogSlice,
} from '../storage/index.js';
import { EARLIEST_LOCAL_TIMESTAMP, EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, MAX_TIMESTAMP } from '../protocol/offset-requests.js';
import { logDirSpace } from './log-dir-space.js';
import type { RegisterOps } from '../worker-pool/op-module.js';
import { Partition, type CompletedAck, type LeaderAppend } from '../replication/partition.js';
import {
  NO_COMPLETED_ACKS,
  NO_OFFSET,
  PartitionOps,
  failedAppend,
  failedPosition,
  parseWorkerOptions,
  type AlterLogDirCommand,
  type AppendReply,
  type AwaitCommitCommand,
  type AwaitCommitReply,
  type AppendRequest,
  type IsrAnswerReply,
  type ListOffsetCommand,
  type OffsetReply,
  type PartitionArgCommand,
  type PartitionEndReply,
  type ReadCommand,
  type ReadReply,
  type ReplicaPositionReply,
  type TxnMarkerEntry,
  type WorkerLogDir,
} from './partition-protocol.js';
import { workerForPartition } from '../worker-pool/partition-routing.js';
import { type IsrAnswer, type IsrProposal } from '../replication/partition-state.js';
import { NO_EPOCH } from '../replication/leader-epoch.js';
import { type TopicPartition, topicPartitionKey } from '../common/topic-partition.js';

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
/** How often, and how many bytes at most each time, moving partitions copy into their future logs. */
const LOG_MOVE_INTERVAL_MS = 20;
const LOG_MOVE_BYTES_PER_TICK = 4 * 1024 * 1024;
/** Kafka refuses a move whose future directory name would not fit a file name (KAFKA-4893). */
const MAX_DIR_NAME_LENGTH = 255;
const FUTURE_DIR_NAME_EXTRA = '.'.length + 32 + '-future'.length;

/** Kafka's -5 (LATEST_TIERED_TIMESTAMP). */
const LATEST_TIERED_TIMESTAMP = -5n;

function failedOffset(errorCode: number): OffsetReply {
  return { errorCode, timestamp: NO_OFFSET, offset: NO_OFFSET, leaderEpoch: NO_EPOCH };
}

export const registerOps: RegisterOps = (setup) => {
  const options = parseWorkerOptions(setup.options);
  const owns = (tp: TopicPartition): boolean => workerForPartition(tp.topic, tp.partition, setup.workerCount) === setup.workerIndex;
  const manager = LogManager.open({
    logDirs: options.logDirs,
    owns,
    shared: { cleanShutdownDirs: new Set(options.cleanShutdownDirs) },
    nodeId: options.nodeId,
    clusterId: options.clusterId,
    cleaner: options.cleanerThreads > 0 ? { threads: options.cleanerThreads } : false,
    producerIdExpirationMs: options.producerIdExpirationMs,
    producerIdExpirationCheckIntervalMs: options.producerIdExpirationCheckIntervalMs,
  });
  const metrics = new WorkerMetrics(setup.workerIndex);
  /** The replicas this worker hosts: a log becomes one when the controller's state for it arrives (open). */
  const partitions = new Map<string, Partition>();
  const leases = new Map<number, LogSlice>();
  let nextLeaseId = 1;
  let closed = false;
  /**
   * acks=all waits answered outside any partition's own op (a partition deleted or replaced, a log
   * dir gone offline): the next reply that carries completions takes them.
   */
  let unsentAcks: CompletedAck[] = [];

  /** The waits `partition` answered during this op, with any left unsent: for the op's reply. */
  const completedAcks = (partition: Partition | undefined): readonly CompletedAck[] => {
    const own = partition === undefined ? NO_COMPLETED_ACKS : partition.takeCompletedAcks();
    if (unsentAcks.length === 0) return own;
    const all = own.length === 0 ? unsentAcks : unsentAcks.concat(own);
    unsentAcks = [];
    return all;
  };
  /** A replica that goes away here answers its waits as a partition not led here. */
  const dropWaits = (partition: Partition, errorCode: number): void => {
    partition.failAcksWaits(errorCode);
    for (const c of partition.takeCompletedAcks()) unsentAcks.push(c);
  };
  for (const dir of manager.logDirs) {
    dir.onOffline(() => {
      for (const partition of partitions.values()) if (partition.log.logDir === dir) dropWaits(partition, ErrorCode.KAFKA_STORAGE_ERROR);
    });
  }

  const partitionOf = (ref: TopicPartition): Partition => {
    const partition = partitions.get(topicPartitionKey(ref.topic, ref.partition));
    if (partition === undefined || partition.log.closed)
      throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `${ref.topic}-${ref.partition} is not hosted here`);
    return partition;
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

  setup.serve(PartitionOps.open, (c) => {
    for (const state of c.partitions) {
      const ref = { topic: c.topic, partition: state.partition };
      const log = manager.getOrCreateLog(ref, { topicId: c.topicId, config: c.config });
      log.updateConfig(c.config);
      let partition = partitions.get(topicPartitionKey(ref.topic, ref.partition));
      if (partition === undefined || partition.log !== log) {
        if (partition !== undefined) dropWaits(partition, ErrorCode.NOT_LEADER_OR_FOLLOWER);
        partition = new Partition(log, options.nodeId, { replicaLagTimeMaxMs: options.replicaLagTimeMaxMs });
        partitions.set(topicPartitionKey(ref.topic, ref.partition), partition);
      }
      partition.applyState(state, c.config);
      for (const done of partition.takeCompletedAcks()) unsentAcks.push(done);
    }
    return { completedAcks: completedAcks(undefined) };
  });

  setup.serve(PartitionOps.delete, (c) => {
    for (const index of c.partitions) {
      const ref = { topic: c.topic, partition: index };
      const partition = partitions.get(topicPartitionKey(ref.topic, ref.partition));
      if (partition !== undefined) dropWaits(partition, ErrorCode.NOT_LEADER_OR_FOLLOWER);
      partitions.delete(topicPartitionKey(ref.topic, ref.partition));
      manager.deleteLog(ref);
    }
    return { completedAcks: completedAcks(undefined) };
  });

  setup.serve(PartitionOps.updateConfig, (c) => {
    for (const p of c.partitions) {
      const partition = partitions.get(topicPartitionKey(c.topic, p));
      partition?.log.updateConfig(c.config);
      partition?.updateConfig(c.config);
    }
  });

  const appendReply = (partition: Partition, { result, highWatermarkMoved, requiredOffset }: LeaderAppend): AppendReply => ({
    completedAcks: completedAcks(partition),
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    recordErrors: [],
    baseOffset: BigInt(result.baseOffset),
    logAppendTimeMs: BigInt(result.logAppendTimeMs),
    logStartOffset: BigInt(result.logStartOffset),
    highWatermark: BigInt(partition.highWatermark),
    highWatermarkMoved,
    leaderEpoch: partition.leaderEpoch,
    requiredOffset: requiredOffset < 0 ? NO_OFFSET : BigInt(requiredOffset),
    needsVerification: false,
    wakeReads: [],
  });

  const append = ({
    topic,
    partition: index,
    requiredAcks,
    records,
    origin,
    txnVerified,
    wakeReads,
    acksWait,
  }: AppendRequest): AppendReply => {
    try {
      const partition = partitionOf({ topic, partition: index });
      const started = performance.now();
      const appended = partition.appendAsLeader(records, requiredAcks, origin, txnVerified, acksWait);
      // An append leaves unflushed messages behind unless it reached flush.messages and flushed.
      metrics.appended(records.byteLength, (performance.now() - started) / 1000, partition.log.flushState.unflushedMessages === 0);
      const reply = appendReply(partition, appended);
      // Parked consumers can read only what the high watermark has passed.
      return wakeReads === undefined || !appended.highWatermarkMoved ? reply : { ...reply, wakeReads: wakeReads.map(read) };
    } catch (err) {
      // Not a failure: the handler verifies the batch with the transaction coordinator and sends it again.
      if (err instanceof VerificationRequired)
        return {
          ...failedAppend(ErrorCode.INVALID_TXN_STATE, err.message),
          needsVerification: true,
          completedAcks: completedAcks(undefined),
        };
      const errorCode = kafkaErrorCode(err);
      // A failed write can take its log dir offline, which answers that dir's waits.
      const failed = {
        ...failedAppend(errorCode, (err as Error).message, err instanceof RecordValidationError ? err.recordErrors : []),
        completedAcks: completedAcks(undefined),
      };
      // As Kafka's ReplicaManager: a batch the log refuses (sequence, epoch, record validation)
      // is answered with the partition's log start offset; one refused before it, or by a
      // partition not hosted here, with none.
      const hosted = NO_LOG_START_ERRORS.has(errorCode) ? undefined : partitions.get(topicPartitionKey(topic, index));
      return hosted === undefined || hosted.log.closed ? failed : { ...failed, logStartOffset: BigInt(hosted.log.logStartOffset) };
    }
  };

  // The records are views on ring memory: each append validates and writes them from there.
  setup.serve(PartitionOps.append, (entries) => entries.map(append));

  setup.serve(PartitionOps.writeTxnMarkers, (entries) =>
    entries.map((e: TxnMarkerEntry): AppendReply => {
      try {
        const partition = partitionOf(e);
        return appendReply(partition, partition.writeTxnMarker(e, e.acksWait));
      } catch (err) {
        return { ...failedAppend(kafkaErrorCode(err), (err as Error).message), completedAcks: completedAcks(undefined) };
      }
    }),
  );

  const lease = (slice: LogSlice | null): ReadReply['slice'] => {
    if (slice === null) return null;
    const leaseId = nextLeaseId++;
    if (nextLeaseId > 0xffffffff) nextLeaseId = 1;
    leases.set(leaseId, slice);
    return { leaseId, fd: slice.fd, position: slice.position, length: slice.length };
  };

  /** A consumer's read bounded by its isolation level, a follower's by the log end (see `Partition.readForFollower`). */
  const read = (c: ReadCommand): ReadReply => {
    try {
      const partition = partitionOf(c);
      let slice: LogSlice | null;
      let highWatermarkMoved = false;
      let divergingEpoch: ReadReply['divergingEpoch'] = null;
      let isrProposal: ReadReply['isrProposal'] = null;
      let abortedTransactions: ReadReply['abortedTransactions'] = null;
      if (c.replicaId < 0) {
        slice = partition.read(c.currentLeaderEpoch, Number(c.fetchOffset), c.maxBytes, {
          readCommitted: c.readCommitted,
          minOneMessage: c.minOneMessage,
        });
        if (c.readCommitted) {
          const aborted = slice === null ? [] : partition.abortedTransactions(Number(c.fetchOffset));
          abortedTransactions = aborted.map((t) => ({ producerId: t.producerId, firstOffset: BigInt(t.firstOffset) }));
        }
      } else {
        const r = partition.readForFollower(
          c.replicaId,
          c.currentLeaderEpoch,
          Number(c.fetchOffset),
          c.lastFetchedEpoch,
          c.maxBytes,
          c.minOneMessage,
        );
        slice = r.slice;
        highWatermarkMoved = r.highWatermarkMoved;
        // Proposed here, so that the main thread sends it without asking for it (`isrProposals`).
        if (r.isrCandidate) isrProposal = partition.proposeIsr();
        if (r.divergingEpoch !== null) divergingEpoch = { epoch: r.divergingEpoch.epoch, endOffset: BigInt(r.divergingEpoch.endOffset) };
      }
      return {
        errorCode: ErrorCode.NONE,
        highWatermark: BigInt(partition.highWatermark),
        lastStableOffset: BigInt(partition.lastStableOffset),
        logStartOffset: BigInt(partition.log.logStartOffset),
        slice: lease(slice),
        abortedTransactions,
        highWatermarkMoved,
        divergingEpoch,
        isrProposal,
        completedAcks: completedAcks(partition),
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
        completedAcks: completedAcks(undefined),
      };
    }
  };

  setup.serve(PartitionOps.read, (commands) => commands.map(read));

  setup.serve(PartitionOps.readBytes, (c) => {
    try {
      const partition = partitionOf(c);
      partition.checkLeader(c.currentLeaderEpoch);
      const log = partition.log;
      const bytes = log.readBuffer(Number(c.fetchOffset), c.maxBytes, {
        maxOffsetExclusive: log.logEndOffset,
        minOneMessage: c.minOneMessage,
      });
      return {
        errorCode: ErrorCode.NONE,
        highWatermark: BigInt(log.highWatermark),
        logEndOffset: BigInt(log.logEndOffset),
        leaderEpoch: partition.leaderEpoch,
        logStartOffset: BigInt(log.logStartOffset),
        bytes,
      };
    } catch (err) {
      return {
        errorCode: kafkaErrorCode(err),
        highWatermark: NO_OFFSET,
        logEndOffset: NO_OFFSET,
        leaderEpoch: NO_EPOCH,
        logStartOffset: NO_OFFSET,
        bytes: Buffer.alloc(0),
      };
    }
  });

  setup.serve(PartitionOps.release, (ids) => {
    for (const id of ids) {
      leases.get(id)?.release();
      leases.delete(id);
    }
  });

  /** The ops about one partition's offsets: answered by its leader, fenced by the client's epoch. */
  const offsetOp =
    <C extends PartitionArgCommand>(answer: (partition: Partition, arg: bigint, command: C) => OffsetReply) =>
    (c: C): OffsetReply => {
      try {
        const partition = partitionOf(c);
        partition.checkLeader(c.currentLeaderEpoch);
        return answer(partition, c.arg, c);
      } catch (err) {
        return failedOffset(kafkaErrorCode(err));
      }
    };

  setup.serve(
    PartitionOps.listOffset,
    offsetOp((partition, timestamp, command: ListOffsetCommand) => {
      const log = partition.log;
      const none = { errorCode: ErrorCode.NONE, timestamp: NO_OFFSET, offset: NO_OFFSET, leaderEpoch: NO_EPOCH };
      const at = (offset: number): OffsetReply => ({ ...none, offset: BigInt(offset), leaderEpoch: partition.leaderEpoch });
      const hit = (found: { timestamp: number; offset: number } | null): OffsetReply =>
        found === null
          ? none
          : { ...none, timestamp: BigInt(found.timestamp), offset: BigInt(found.offset), leaderEpoch: partition.leaderEpoch };
      if (timestamp === EARLIEST_TIMESTAMP || timestamp === EARLIEST_LOCAL_TIMESTAMP) return at(log.logStartOffset);
      if (timestamp === LATEST_TIMESTAMP) return at(partition.readBound(command.readCommitted));
      if (timestamp === LATEST_TIERED_TIMESTAMP) return none;
      if (timestamp === MAX_TIMESTAMP) return hit(log.offsetOfMaxTimestamp());
      if (timestamp < 0n) return failedOffset(ErrorCode.INVALID_REQUEST);
      // Kafka: a record found by time counts only below what the isolation level may read.
      const found = log.offsetForTimestamp(Number(timestamp));
      return hit(found !== null && found.offset < partition.readBound(command.readCommitted) ? found : null);
    }),
  );

  setup.serve(
    PartitionOps.deleteRecords,
    offsetOp((partition, offset) => {
      const target = offset === -1n ? BigInt(partition.highWatermark) : offset;
      if (target < 0n || target > BigInt(partition.highWatermark)) return failedOffset(ErrorCode.OFFSET_OUT_OF_RANGE);
      const lowWatermark = partition.log.deleteRecordsTo(Number(target));
      return { errorCode: ErrorCode.NONE, timestamp: NO_OFFSET, offset: BigInt(lowWatermark), leaderEpoch: partition.leaderEpoch };
    }),
  );

  setup.serve(
    PartitionOps.offsetForEpoch,
    offsetOp((partition, leaderEpoch) => {
      const { epoch, endOffset } = partition.log.leaderEpochCache.endOffsetFor(Number(leaderEpoch), partition.log.logEndOffset);
      return { errorCode: ErrorCode.NONE, timestamp: NO_OFFSET, offset: BigInt(endOffset), leaderEpoch: epoch };
    }),
  );

  /** The replication ops on a follower's log answer where the log then stands. */
  const followerOp =
    <C extends TopicPartition>(apply: (partition: Partition, command: C) => void) =>
    (c: C): ReplicaPositionReply => {
      try {
        const partition = partitionOf(c);
        apply(partition, c);
        const log = partition.log;
        return {
          errorCode: ErrorCode.NONE,
          errorMessage: null,
          logEndOffset: BigInt(log.logEndOffset),
          highWatermark: BigInt(log.highWatermark),
          logStartOffset: BigInt(log.logStartOffset),
          lastFetchedEpoch: partition.latestEpoch,
        };
      } catch (err) {
        return failedPosition(kafkaErrorCode(err), (err as Error).message);
      }
    };

  // As with append, the records are views on ring memory, written from there.
  setup.serve(PartitionOps.appendAsFollower, (entries) =>
    entries.map(
      followerOp((partition, e) => {
        const started = performance.now();
        partition.appendAsFollower(e.records, Number(e.leaderHighWatermark), Number(e.leaderLogStartOffset), e.currentLeaderEpoch);
        if (e.records.byteLength > 0)
          metrics.appended(e.records.byteLength, (performance.now() - started) / 1000, partition.log.flushState.unflushedMessages === 0);
      }),
    ),
  );
  setup.serve(PartitionOps.truncate, (commands) =>
    commands.map(
      followerOp((partition, c) => {
        if (c.kind === 'restart') partition.truncate(Number(c.offset), true, c.currentLeaderEpoch);
        else partition.truncateToDivergence({ epoch: c.divergingEpoch, endOffset: Number(c.offset) }, c.currentLeaderEpoch);
      }),
    ),
  );
  setup.serve(PartitionOps.replicaPosition, (commands) =>
    commands.map(followerOp((partition, c) => partition.checkFollower(c.currentLeaderEpoch))),
  );

  setup.serve(PartitionOps.awaitCommit, (commands) =>
    commands.map((c: AwaitCommitCommand): AwaitCommitReply => {
      try {
        const partition = partitionOf(c);
        partition.awaitCommit(c.wait, c.leaderEpoch, Number(c.requiredOffset));
        return { errorCode: ErrorCode.NONE, completedAcks: completedAcks(partition) };
      } catch (err) {
        return { errorCode: kafkaErrorCode(err), completedAcks: completedAcks(undefined) };
      }
    }),
  );

  setup.serve(PartitionOps.isrProposals, (c) => {
    const proposals: IsrProposal[] = [];
    const candidates =
      c.partitions === null
        ? partitions.values()
        : c.partitions.flatMap((ref) => partitions.get(topicPartitionKey(ref.topic, ref.partition)) ?? []);
    for (const partition of candidates) {
      if (partition.log.closed) continue;
      const proposal = partition.proposeIsr();
      if (proposal === null) continue;
      const { topic, partition: index } = partition.log.topicPartition;
      proposals.push({
        topic,
        partition: index,
        leader: options.nodeId,
        leaderEpoch: proposal.leaderEpoch,
        partitionEpoch: proposal.partitionEpoch,
        isr: proposal.isr,
      });
    }
    return proposals;
  });

  setup.serve(PartitionOps.isrAnswers, (answers) =>
    answers.map((a: IsrAnswer): IsrAnswerReply => {
      try {
        const partition = partitionOf(a);
        const { highWatermarkMoved } = partition.answerIsr(a);
        return {
          errorCode: ErrorCode.NONE,
          highWatermarkMoved,
          highWatermark: partition.highWatermark,
          completedAcks: completedAcks(partition),
        };
      } catch (err) {
        return { errorCode: kafkaErrorCode(err), highWatermarkMoved: false, highWatermark: -1, completedAcks: completedAcks(undefined) };
      }
    }),
  );

  setup.serve(PartitionOps.describeProducers, (ref) => {
    try {
      const producers = [...partitionOf(ref).log.activeProducers().values()].map((p) => ({
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
  });

  setup.serve(PartitionOps.describeLogDirs, () =>
    manager.logDirs.map((dir): WorkerLogDir => {
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
    }),
  );

  setup.serve(PartitionOps.takeLogDirOffline, (c) => {
    manager.logDirs.find((dir) => dir.path === c.path)?.markOffline(new StorageError(`log dir ${c.path} failed: ${c.reason}`));
  });

  /** Kafka's `ReplicaManager.alterReplicaLogDirs`, for one partition of this worker. */
  const alterLogDir = (c: AlterLogDirCommand): number => {
    try {
      const ref = { topic: c.topic, partition: c.partition };
      if (`${c.topic}-${c.partition}`.length + FUTURE_DIR_NAME_EXTRA > MAX_DIR_NAME_LENGTH) return ErrorCode.INVALID_TOPIC_EXCEPTION;
      const dir = manager.logDir(c.path);
      if (dir === undefined) return ErrorCode.LOG_DIR_NOT_FOUND;
      if (!dir.online) return ErrorCode.KAFKA_STORAGE_ERROR;
      const partition = partitions.get(topicPartitionKey(ref.topic, ref.partition));
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
  };

  setup.serve(PartitionOps.alterLogDirs, (commands) => commands.map(alterLogDir));

  setup.serve(PartitionOps.checkpointEntries, () => manager.checkpointEntries());

  setup.serve(PartitionOps.writeCheckpoints, (c) => {
    const byDir = new Map<string, LogDirCheckpoint[]>();
    for (const share of c.shares.flat()) byDir.set(share.path, [...(byDir.get(share.path) ?? []), share]);
    for (const [path, shares] of byDir) {
      if (!shares.every((s) => s.online)) continue;
      writeLogDirCheckpoints(...shares);
      if (c.cleanShutdown) writeCleanShutdownMarker(path);
    }
  });

  setup.serve(PartitionOps.closeLogs, () => closeLogs());

  setup.serve(PartitionOps.metrics, async (c) => {
    let hostedCount = 0;
    let segments = 0;
    if (!closed) {
      for (const log of manager.logs()) {
        hostedCount++;
        segments += log.segmentCount;
      }
    }
    const ends = c.partitions.map((ref): PartitionEndReply => {
      const partition = closed ? undefined : partitions.get(topicPartitionKey(ref.topic, ref.partition));
      return partition === undefined
        ? { topic: ref.topic, partition: ref.partition, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, highWatermark: Number(NO_OFFSET) }
        : { topic: ref.topic, partition: ref.partition, errorCode: ErrorCode.NONE, highWatermark: partition.highWatermark };
    });
    return { metrics: await metrics.snapshot({ partitions: hostedCount, segments }), ends };
  });

  // The copy rate, the broker's shared evenly by its workers: a byte allowance that grows with
  // time (a second's worth at most) and pays for each copy.
  const moveRate = options.logDirMoveBytesPerSecond / setup.workerCount;
  let moveAllowance = 0;
  let lastMoveTick = performance.now();
  setup.every(LOG_MOVE_INTERVAL_MS, () => {
    const now = performance.now();
    moveAllowance = Math.min(moveAllowance + ((now - lastMoveTick) / 1000) * moveRate, moveRate);
    lastMoveTick = now;
    if (closed || moveAllowance <= 0) return;
    const { swapped, copiedBytes } = manager.advanceMoves(Math.min(moveAllowance, LOG_MOVE_BYTES_PER_TICK));
    moveAllowance -= copiedBytes;
    for (const tp of swapped) {
      const moved = manager.getLog(tp);
      if (moved !== undefined) partitions.get(topicPartitionKey(tp.topic, tp.partition))?.replaceLog(moved);
    }
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
