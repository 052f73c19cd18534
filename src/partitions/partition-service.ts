/**
 * The main thread's handle on the partition workers: routes each partition operation to the
 * worker that owns the partition (by topic name and partition, see `partition-routing.ts`),
 * turns replies into typed results, and keeps the per-log-dir files consistent across workers
 * (each worker reports its share; one writes the merged checkpoint files). Implements
 * `PartitionAdmin` for the metadata handlers, the data operations for Produce, Fetch,
 * ListOffsets and friends, and replication's `ReplicaLogs` port as it is (the rings carry the
 * port's shapes): a follower's appends, truncations and position (for its fetcher), and a
 * leader's ISR proposals and the controller's answers.
 * What the replies say beyond their answers (appends, high watermark moves, state changes, the
 * acks=all waits they completed, ISR changes proposed by followers' fetches) goes to
 * `PartitionEvents`. A dead worker answers KAFKA_STORAGE_ERROR for its partitions, and its
 * partitions' acks=all waits too (`PartitionEvents.workerLost`).
 *
 * Workers the host has not started host no logs: what goes to every worker (checkpoints,
 * metrics, log dir questions, ISR proposals, close) goes to the started ones only, deletes and
 * config changes skip them, and with none started the answers are computed here
 * (`unstarted-workers.ts`). Opening a partition, or any request about one, starts its owner.
 */
import type { FollowerAppendRequest, ReplicaPositionCommand, ReplicaPositionReply, TruncateCommand } from '../replication/replica-logs.js';
import type { LogDirDescription, LogDirMove, TopicConfigValues, TopicRef } from '../metadata/admin/partition-admin.js';
import type { PartitionRegistration } from '../metadata/metadata-image.js';
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import type { Logger } from '../common/logger.js';
import type { PartitionEnd } from '../common/metrics/consumer-lag.js';
import type { WorkerScrape } from '../common/metrics/scrape.js';
import type { WorkerMetricsSnapshot } from '../common/metrics/worker-metrics.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { FileRegion } from '@sluice/protocol/primitives/writer.js';
import type { PartitionWorkerHost } from '../worker-pool/partition-worker-host.js';
import { CONSUMER_REPLICA_ID } from '@sluice/protocol/offset-requests.js';
import {
  NO_TIMESTAMP,
  PartitionOps,
  failedAppend,
  failedPosition,
  failedReadBytes,
  type AcksReply,
  type AppendReply,
  type AwaitCommitCommand,
  type AwaitCommitReply,
  type CompletedAck,
  type AppendRequest,
  type DescribeProducersReply,
  type DivergingEpoch,
  type OffsetReply,
  type OffsetCommand,
  type ReadBytesReply,
  type ReadCommand,
  type ReadReply,
  type TxnMarkerEntry,
  type AbortedTransaction,
} from './partition-protocol.js';
import { emptyLogDirs, markCleanShutdown } from './unstarted-workers.js';
import type { WorkerOp } from '../worker-pool/worker-op.js';
import type { ParkedRead, ParkedReads } from './fetch-purgatory.js';
import type { PartitionData } from './partition-data.js';
import type { PartitionEvents } from './partition-events.js';
import type { IsrAnswer } from '../replication/partition-state.js';
import type { ReplicaLogs } from '../replication/replica-logs.js';
import type { IsrChangeRequest } from '../metadata/replica-control.js';
import { NO_EPOCH, NO_EPOCH_CHECK, NO_OFFSET, type LeaderEpoch, type Offset } from '@sluice/protocol/common/offsets.js';
import { type TopicPartition, topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';

/**
 * Upper bounds of an entry's encoded bytes besides its topic name (UTF-8, ≤ 3 bytes per UTF-16
 * unit) and records: the name's length prefix (5), the partition (4), then the entry's fields.
 */
const REF_ESTIMATE = 5 + 4;
/** A struct's flag bits (`worker-pool/body-schema.ts`: one varint byte for up to seven) and an array's count. */
const BITS = 1;
const COUNT = 5;
const APPEND_HEADER_ESTIMATE = REF_ESTIMATE + BITS + 2 + 1 + 12 + 1 + 1 + COUNT + 8;
const READ_COMMAND_ESTIMATE = REF_ESTIMATE + BITS + 4 + 8 + 4 + 4 + 4;
const FOLLOWER_APPEND_HEADER_ESTIMATE = REF_ESTIMATE + 4 + 8 + 8 + 4;
const TRUNCATE_ESTIMATE = REF_ESTIMATE + 4 + 1 + 8 + 4;
const POSITION_ESTIMATE = REF_ESTIMATE + 4;
const AWAIT_COMMIT_ESTIMATE = REF_ESTIMATE + 4 + 4 + 4 + 8;
const TXN_MARKER_ESTIMATE = REF_ESTIMATE + BITS + 8 + 2 + 4 + 1 + 4 + 4;

export interface ReadResult {
  readonly errorCode: number;
  readonly highWatermark: Offset;
  readonly lastStableOffset: Offset;
  readonly logStartOffset: Offset;
  /** The records, leased in the owner's segment file: send, then release (FileRegion.release). */
  readonly records: FileRegion | null;
  /** A follower's log diverged from the leader's (Fetch v12+ answers it; the follower truncates). */
  readonly divergingEpoch: DivergingEpoch | null;
  /** A consumer's read_committed read: the aborted transactions overlapping it ([] for none); null otherwise. */
  readonly abortedTransactions: readonly AbortedTransaction[] | null;
}

/** A read that failed: its error, no offsets, no records. */
export function failedRead(errorCode: number): ReadResult {
  return {
    errorCode,
    highWatermark: NO_OFFSET,
    lastStableOffset: NO_OFFSET,
    logStartOffset: NO_OFFSET,
    records: null,
    divergingEpoch: null,
    abortedTransactions: null,
  };
}

const topicBytes = (ref: TopicPartition): number => ref.topic.length * 3;

export class PartitionService implements ReplicaLogs, PartitionData {
  /** Lease ids to release, per worker, gathered during the current turn of the event loop. */
  private readonly pendingReleases = new Map<number, number[]>();
  /** The log dirs taken offline, and why: a worker that starts later learns them first. */
  private readonly offlineDirs = new Map<string, string>();

  constructor(
    private readonly host: PartitionWorkerHost,
    private readonly log: Logger,
    private readonly events: PartitionEvents,
    /** `log.dirs`, for the answers no started worker gives. */
    private readonly logDirs: readonly string[],
    /** Where parked consumer fetches leave the reads an append should do for them (none: no such reads). */
    private readonly parked: ParkedReads | null = null,
  ) {
    host.onWorkerStart((worker) => {
      for (const [path, reason] of this.offlineDirs) host.postOp(worker, PartitionOps.takeLogDirOffline, { path, reason });
    });
    host.onWorkerLost((worker) => this.events.workerLost((topic, partition) => this.workerOf(topic, partition) === worker));
  }

  /** Hands the acks=all waits a reply answered to whoever waits for them. */
  private completed(acks: readonly CompletedAck[]): void {
    if (acks.length > 0) this.events.acksCompleted(acks);
  }

  private workerOf(topic: string, partition: number): number {
    return this.host.workerFor(topic, partition);
  }

  /** Indexes of `items` grouped by the worker that owns each item's partition, in item order. */
  private indexesByWorker(items: readonly TopicPartition[]): Map<number, number[]> {
    const groups = new Map<number, number[]>();
    items.forEach((item, i) => {
      const w = this.workerOf(item.topic, item.partition);
      const list = groups.get(w);
      if (list === undefined) groups.set(w, [i]);
      else list.push(i);
    });
    return groups;
  }

  /**
   * One op per worker owning some of `partitions` of `topic`, each with its share; with
   * `hostedOnly`, not to a worker that has not started (it hosts none of them).
   */
  private async eachWorker<T, Req>(
    topic: string,
    partitions: readonly T[],
    partitionOf: (item: T) => number,
    op: WorkerOp<Req, void | AcksReply>,
    body: (share: T[]) => Req,
    hostedOnly = false,
  ): Promise<void> {
    const groups = [...this.indexesByWorker(partitions.map((item) => ({ topic, partition: partitionOf(item) })))].filter(
      ([w]) => !hostedOnly || this.host.isStarted(w),
    );
    await Promise.all(
      groups.map(async ([w, indexes]) => {
        const reply = await this.host.call(w, op, body(indexes.map((i) => partitions[i]!)));
        if (reply !== undefined) this.completed(reply.completedAcks);
      }),
    );
  }

  /**
   * Opens the partitions (creating their logs if missing) and applies their controller state:
   * what a LeaderAndIsr does, so it is also how a leadership or ISR change reaches a replica.
   */
  async createPartitions(topic: TopicRef, partitions: readonly PartitionRegistration[], config: TopicConfigValues): Promise<void> {
    const settings = logSettings(config);
    try {
      await this.eachWorker(
        topic.name,
        partitions,
        (p) => p.partition,
        PartitionOps.open,
        (share) => ({
          topic: topic.name,
          topicId: topic.topicId,
          partitions: share.map((p) => ({
            partition: p.partition,
            leader: p.leader,
            leaderEpoch: p.leaderEpoch,
            partitionEpoch: p.partitionEpoch,
            replicas: p.replicas,
            isr: p.isr,
          })),
          config: settings,
        }),
      );
    } finally {
      for (const p of partitions) this.events.stateApplied(topic.name, p.partition);
    }
  }

  async deleteTopic(topic: TopicRef, partitionCount: number): Promise<void> {
    await this.deletePartitions(topic.name, range(partitionCount));
  }

  /** Deletes these partition logs of the topic (a replica moved away by a reassignment, or the whole topic). */
  async deletePartitions(topic: string, partitions: readonly number[]): Promise<void> {
    await this.eachWorker(
      topic,
      partitions,
      (p) => p,
      PartitionOps.delete,
      (share) => ({ topic, partitions: share }),
      true,
    );
  }

  async updateTopicConfig(topic: TopicRef, partitionCount: number, config: TopicConfigValues): Promise<void> {
    const settings = logSettings(config);
    await this.eachWorker(
      topic.name,
      range(partitionCount),
      (p) => p,
      PartitionOps.updateConfig,
      (share) => ({ topic: topic.name, partitions: share, config: settings }),
      true,
    );
  }

  async describeLogDirs(): Promise<LogDirDescription[]> {
    const started = await Promise.all(this.workers().map((w) => this.host.call(w, PartitionOps.describeLogDirs, undefined)));
    const shares = started.length > 0 ? started : [emptyLogDirs(this.logDirs, new Set(this.offlineDirs.keys()))];
    const byPath = new Map<
      string,
      { online: boolean; totalBytes: number; usableBytes: number; partitions: LogDirDescription['partitions'][number][] }
    >();
    for (const dir of shares.flat()) {
      const entry = byPath.get(dir.path) ?? { online: true, totalBytes: dir.totalBytes, usableBytes: dir.usableBytes, partitions: [] };
      entry.online &&= dir.online;
      entry.partitions.push(
        ...dir.partitions.map((p) => ({
          topic: p.topic,
          partition: p.partition,
          sizeBytes: BigInt(p.sizeBytes),
          offsetLag: BigInt(p.offsetLag),
          isFuture: p.isFuture,
        })),
      );
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

  async alterReplicaLogDirs(moves: readonly LogDirMove[]): Promise<number[]> {
    return this.eachEntry(PartitionOps.alterLogDirs, moves, (m) => 64 + 3 * (m.topic.length + m.path.length), kafkaErrorCode);
  }

  /** Takes a failed log dir offline in every worker: none appends to it, reads from it or places new partitions in it. */
  async takeLogDirOffline(path: string, reason: string): Promise<void> {
    this.offlineDirs.set(path, reason);
    await Promise.all(this.workers().map((w) => this.host.call(w, PartitionOps.takeLogDirOffline, { path, reason })));
  }

  /**
   * Appends each entry's records on its partition's owner: one ring message per worker (split
   * only where a worker's share exceeds the ring's message limit), the records copied once, into
   * the ring. Replies come back in the order of `entries`; a failure is the entry's error code.
   */
  async appendMany(entries: readonly AppendRequest[]): Promise<AppendReply[]> {
    const parked =
      this.parked?.hasParkedReads === true ? entries.map((e) => this.parked!.parkedReads(topicPartitionKey(e.topic, e.partition))) : null;
    const sent =
      parked === null
        ? entries
        : entries.map((e, i) => (parked[i]!.length === 0 ? e : { ...e, wakeReads: parked[i]!.map((p) => p.command) }));
    const sizeOf = (e: AppendRequest): number =>
      APPEND_HEADER_ESTIMATE + topicBytes(e) + e.records.byteLength + (e.wakeReads?.length ?? 0) * (READ_COMMAND_ESTIMATE + topicBytes(e));
    const replies = await this.eachEntry(PartitionOps.append, sent, sizeOf, failedAppendOf);
    if (parked !== null) this.offerWakeReads(entries, parked, replies);
    this.announceAppends(entries, replies);
    return replies;
  }

  /** The reads done with the appends go to their parked fetches before the appends wake them. */
  private offerWakeReads(
    entries: readonly AppendRequest[],
    parked: readonly (readonly ParkedRead[])[],
    replies: readonly AppendReply[],
  ): void {
    entries.forEach((e, i) => {
      const done = replies[i]!.wakeReads;
      if (done.length === 0) return;
      const worker = this.workerOf(e.topic, e.partition);
      const key = topicPartitionKey(e.topic, e.partition);
      done.forEach((reply, n) => {
        this.completed(reply.completedAcks);
        this.parked!.offer(parked[i]![n]!.waiter, key, this.readResult(worker, reply));
      });
    });
  }

  /**
   * Writes each entry's transaction marker on its partition's leader (WriteTxnMarkers), as
   * `appendMany` appends: replies in the order of `entries`, acks=all (wait in the produce
   * purgatory for `requiredOffset` at `leaderEpoch`), a failure is the entry's error code. A
   * marker wakes waiting fetches as an append does; a read_committed fetch reads again when the
   * high watermark moves, which is when the last stable offset can move.
   */
  async writeTxnMarkers(entries: readonly TxnMarkerEntry[]): Promise<AppendReply[]> {
    const replies = await this.eachEntry(PartitionOps.writeTxnMarkers, entries, (e) => TXN_MARKER_ESTIMATE + topicBytes(e), failedAppendOf);
    this.announceAppends(entries, replies);
    return replies;
  }

  private announceAppends(entries: readonly TopicPartition[], replies: readonly AppendReply[]): void {
    entries.forEach((e, i) => {
      const reply = replies[i]!;
      this.completed(reply.completedAcks);
      if (reply.errorCode === ErrorCode.NONE)
        this.events.appended(e.topic, e.partition, reply.highWatermarkMoved ? reply.highWatermark : null);
    });
  }

  /**
   * Reads each command's partition on its owner (one ring message per worker). A result's records
   * are leased in the owner's segment file: send them, then release (FileRegion.release).
   */
  async readMany(commands: readonly ReadCommand[]): Promise<ReadResult[]> {
    const results = new Array<ReadResult>(commands.length);
    const sizeOf = (i: number): number => READ_COMMAND_ESTIMATE + topicBytes(commands[i]!);
    await this.eachMessage(commands, sizeOf, async (worker, indexes) => {
      try {
        const replies = await this.host.call(
          worker,
          PartitionOps.read,
          indexes.map((i) => commands[i]!),
        );
        indexes.forEach((i, n) => {
          const r = replies[n]!;
          results[i] = this.readResult(worker, r);
          this.completed(r.completedAcks);
          // Only a follower's fetch moves the high watermark or qualifies a replica for the ISR.
          const c = commands[i]!;
          if (r.highWatermarkMoved) this.events.highWatermarkMoved(c.topic, c.partition, r.highWatermark);
          if (r.isrProposal !== null) this.events.isrProposed(c.topic, c.partition, r.isrProposal);
        });
      } catch (err) {
        const failure = failedRead(kafkaErrorCode(err));
        for (const i of indexes) results[i] = failure;
      }
    });
    return results;
  }

  /** A worker's read reply as a result whose records are leased from that worker. */
  private readResult(worker: number, r: ReadReply): ReadResult {
    const slice = r.slice;
    const records: FileRegion | null =
      slice === null
        ? null
        : { fd: slice.fd, position: slice.position, byteLength: slice.length, release: () => this.release(worker, slice.leaseId) };
    return {
      errorCode: r.errorCode,
      highWatermark: r.highWatermark,
      lastStableOffset: r.lastStableOffset,
      logStartOffset: r.logStartOffset,
      records,
      divergingEpoch: r.divergingEpoch,
      abortedTransactions: r.abortedTransactions,
    };
  }

  /** A follower's fetched records, appended on its owner (see `PartitionOps.appendAsFollower`); answers where each log then stands. */
  appendAsFollower(entries: readonly FollowerAppendRequest[]): Promise<ReplicaPositionReply[]> {
    return this.eachEntry(
      PartitionOps.appendAsFollower,
      entries,
      (e) => FOLLOWER_APPEND_HEADER_ESTIMATE + topicBytes(e) + e.records.byteLength,
      failedPositionOf,
    );
  }

  /** Truncates follower logs (see `TruncateCommand`); answers where each log then stands. */
  truncate(commands: readonly TruncateCommand[]): Promise<ReplicaPositionReply[]> {
    return this.eachEntry(PartitionOps.truncate, commands, (c) => TRUNCATE_ESTIMATE + topicBytes(c), failedPositionOf);
  }

  /** Where follower logs stand (log end, latest epoch, high watermark): where their fetcher starts. */
  replicaPositions(commands: readonly ReplicaPositionCommand[]): Promise<ReplicaPositionReply[]> {
    return this.eachEntry(PartitionOps.replicaPosition, commands, (c) => POSITION_ESTIMATE + topicBytes(c), failedPositionOf);
  }

  /**
   * Has each partition's leader hold an acks=all wait for records already in its log (see
   * `AwaitCommitCommand`); an error means the wait is not held. Waits answered meanwhile, this
   * one perhaps among them, go to `PartitionEvents.acksCompleted`.
   */
  async awaitCommit(commands: readonly AwaitCommitCommand[]): Promise<number[]> {
    const replies = await this.eachEntry(
      PartitionOps.awaitCommit,
      commands,
      (c) => AWAIT_COMMIT_ESTIMATE + topicBytes(c),
      (err): AwaitCommitReply => ({ errorCode: kafkaErrorCode(err), completedAcks: [] }),
    );
    for (const r of replies) this.completed(r.completedAcks);
    return replies.map((r) => r.errorCode);
  }

  /**
   * The ISR changes the leaders hosted here want now, each marked pending until
   * `applyIsrAnswers` brings the controller's answer (or a new state arrives with
   * `createPartitions`). To be called every `replica.lag.time.max.ms / 2`: shrinks, and changes
   * to send again; an expansion comes with the follower's fetch that qualifies it
   * (`PartitionEvents.isrProposed`). A worker that fails to answer proposes nothing.
   */
  async isrProposals(): Promise<IsrChangeRequest[]> {
    const workers = this.workers();
    const replies = await Promise.allSettled(workers.map((w) => this.host.call(w, PartitionOps.isrProposals, undefined)));
    return replies.flatMap((reply, i) => {
      if (reply.status === 'fulfilled') return reply.value;
      this.log.warn('ISR proposals unavailable', { worker: workers[i], error: String(reply.reason) });
      return [];
    });
  }

  /**
   * Applies the controller's answers to ISR proposals; the acks=all waits a committed ISR
   * completes go to their waiters, and a high watermark it moves wakes the fetches on it. A
   * worker that fails to answer keeps its changes pending until their partitions' next state.
   */
  async applyIsrAnswers(answers: readonly IsrAnswer[]): Promise<void> {
    await Promise.all(
      [...this.indexesByWorker(answers)].map(async ([worker, indexes]) => {
        try {
          const replies = await this.host.call(
            worker,
            PartitionOps.isrAnswers,
            indexes.map((i) => answers[i]!),
          );
          replies.forEach((reply, n) => {
            const a = answers[indexes[n]!]!;
            this.completed(reply.completedAcks);
            if (reply.highWatermarkMoved) this.events.highWatermarkMoved(a.topic, a.partition, reply.highWatermark);
          });
        } catch (err) {
          this.log.warn('ISR answers not applied', { worker, error: String(err) });
        }
      }),
    );
  }

  /**
   * Runs a many-partition op: one ring message per worker (split only where a worker's share
   * exceeds the ring's message limit). Replies come back in the order of `entries`; a worker
   * that fails answers `failed(error)` for its share.
   */
  private async eachEntry<C extends TopicPartition, R>(
    op: WorkerOp<readonly C[], readonly R[]>,
    entries: readonly C[],
    sizeOf: (entry: C) => number,
    failed: (err: unknown) => R,
  ): Promise<R[]> {
    const replies = new Array<R>(entries.length);
    await this.eachMessage(
      entries,
      (i) => sizeOf(entries[i]!),
      async (worker, indexes) => {
        try {
          const answers = await this.host.call(
            worker,
            op,
            indexes.map((i) => entries[i]!),
          );
          indexes.forEach((i, n) => (replies[i] = answers[n]!));
        } catch (err) {
          const failure = failed(err);
          for (const i of indexes) replies[i] = failure;
        }
      },
    );
    return replies;
  }

  /**
   * Groups `items` by owning worker and runs `send` once per ring message: a worker's items in
   * order, split where their estimated encoded size would pass the ring's message limit.
   */
  private async eachMessage(
    items: readonly TopicPartition[],
    sizeOf: (index: number) => number,
    send: (worker: number, indexes: number[]) => Promise<void>,
  ): Promise<void> {
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
  async readBytes(topic: string, partition: number, fetchOffset: Offset, maxBytes: number): Promise<ReadBytesReply> {
    try {
      const command: ReadCommand = {
        topic,
        partition,
        currentLeaderEpoch: NO_EPOCH_CHECK,
        fetchOffset,
        maxBytes,
        readCommitted: false,
        minOneMessage: true,
        replicaId: CONSUMER_REPLICA_ID,
        lastFetchedEpoch: NO_EPOCH,
      };
      return await this.host.call(this.workerOf(topic, partition), PartitionOps.readBytes, command);
    } catch (err) {
      return failedReadBytes(kafkaErrorCode(err));
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

  /** `readCommitted`: LATEST (-1) answers the last stable offset instead of the high watermark. */
  listOffset(ref: TopicPartition, currentLeaderEpoch: LeaderEpoch, timestamp: bigint, readCommitted = false): Promise<OffsetReply> {
    return this.offsetOp(PartitionOps.listOffset, {
      topic: ref.topic,
      partition: ref.partition,
      currentLeaderEpoch,
      timestamp,
      readCommitted,
    });
  }

  deleteRecords(ref: TopicPartition, offset: Offset): Promise<OffsetReply> {
    return this.offsetOp(PartitionOps.deleteRecords, {
      topic: ref.topic,
      partition: ref.partition,
      currentLeaderEpoch: NO_EPOCH_CHECK,
      offset,
    });
  }

  offsetForLeaderEpoch(ref: TopicPartition, currentLeaderEpoch: LeaderEpoch, leaderEpoch: LeaderEpoch): Promise<OffsetReply> {
    return this.offsetOp(PartitionOps.offsetForEpoch, { topic: ref.topic, partition: ref.partition, currentLeaderEpoch, leaderEpoch });
  }

  private async offsetOp<C extends OffsetCommand>(op: WorkerOp<C, OffsetReply>, command: C): Promise<OffsetReply> {
    try {
      return await this.host.call(this.workerOf(command.topic, command.partition), op, command);
    } catch (err) {
      return { errorCode: kafkaErrorCode(err), timestamp: NO_TIMESTAMP, offset: NO_OFFSET, leaderEpoch: NO_EPOCH };
    }
  }

  async describeProducers(ref: TopicPartition): Promise<DescribeProducersReply> {
    try {
      return await this.host.call(this.workerOf(ref.topic, ref.partition), PartitionOps.describeProducers, {
        topic: ref.topic,
        partition: ref.partition,
      });
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
  async workerMetrics(ends: readonly TopicPartition[]): Promise<WorkerScrape> {
    const byWorker = this.indexesByWorker(ends);
    // Every started worker is asked, for its snapshot, whether or not it owns one of `ends`.
    const workers = this.workers();
    const replies = await Promise.allSettled(
      workers.map((w) => this.host.call(w, PartitionOps.metrics, { partitions: (byWorker.get(w) ?? []).map((i) => ends[i]!) })),
    );
    const snapshots: WorkerMetricsSnapshot[] = [];
    const hosted: PartitionEnd[] = [];
    replies.forEach((reply, i) => {
      if (reply.status === 'rejected') {
        this.log.debug('worker metrics unavailable', { worker: workers[i], error: String(reply.reason) });
        return;
      }
      snapshots.push(reply.value.metrics);
      for (const e of reply.value.ends) {
        if (e.errorCode === ErrorCode.NONE) hosted.push({ topic: e.topic, partition: e.partition, highWatermark: BigInt(e.highWatermark) });
      }
    });
    return { snapshots, ends: hosted };
  }

  /** Writes the per-log-dir checkpoint files from every started worker's share (the first one writes them). */
  async checkpoint(): Promise<void> {
    const workers = this.workers();
    if (workers.length === 0) return;
    const shares = await Promise.all(workers.map((w) => this.host.call(w, PartitionOps.checkpointEntries, undefined)));
    await this.host.call(workers[0]!, PartitionOps.writeCheckpoints, { shares, cleanShutdown: false });
  }

  /**
   * Clean shutdown: every worker flushes and closes its logs and reports its final share; the
   * merged checkpoints and the clean-shutdown markers are written; then the workers exit.
   */
  async close(): Promise<void> {
    const workers = this.workers();
    const shares = await Promise.all(workers.map((w) => this.host.call(w, PartitionOps.closeLogs, undefined)));
    if (workers.length > 0) await this.host.call(workers[0]!, PartitionOps.writeCheckpoints, { shares, cleanShutdown: true });
    else markCleanShutdown(this.logDirs, new Set(this.offlineDirs.keys()));
    await this.host.close();
  }

  /** The workers a broadcast goes to: the started ones, as the others host no logs. */
  private workers(): number[] {
    return this.host.startedWorkers();
  }
}

function failedAppendOf(err: unknown): AppendReply {
  return failedAppend(kafkaErrorCode(err), (err as Error).message);
}

function failedPositionOf(err: unknown): ReplicaPositionReply {
  return failedPosition(kafkaErrorCode(err), (err as Error).message);
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

/** Effective topic settings as the logs take them; keys without a value are left to the log's defaults. */
function logSettings(config: TopicConfigValues): Record<string, string> {
  return Object.fromEntries([...config].filter(([, v]) => v !== ''));
}
