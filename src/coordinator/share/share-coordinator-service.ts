/**
 * The share coordinators of this broker (main thread): a `ShareCoordinator` per
 * `__share_group_state` partition this broker leads, run by the generic `CoordinatorRuntime`. A
 * share-partition lives in partition `abs(hash("groupId:topicId:partition")) % numPartitions`, as
 * Kafka places it; a request for one whose partition this broker does not lead answers
 * NOT_COORDINATOR, and one whose partition is still loading COORDINATOR_LOAD_IN_PROGRESS. Shards
 * load when this broker becomes the partition's leader (`onLeadership`, and on first use) and
 * unload when it stops leading. Each call handles one share-partition, as Kafka's service splits
 * a request per key.
 *
 * `__share_group_state` is kept forever (retention.ms=-1), so, as Kafka's service does, periodic
 * jobs over the partitions this broker serves keep it small (`startPeriodicJobs`): every
 * `share.coordinator.state.topic.prune.interval.ms` the records below the oldest still-needed
 * snapshot are deleted (DeleteRecords, `RedundantOffsets`); every
 * `share.coordinator.cold.partition.snapshot.interval.ms` share-partitions without a recent
 * snapshot get one; and the share-partitions of topics that left the metadata are tombstoned
 * (Kafka reacts to the metadata delta; this broker compares the image each second).
 */
import { KafkaError, kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import type { Logger } from '../../common/logger.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { SHARE_GROUP_STATE_TOPIC } from '@sluice/protocol/internal-topics.js';
import { partitionFor } from '../group/partition-for.js';
import type { CoordinatorLog } from '../runtime/coordinator-log.js';
import { CoordinatorRuntime, type ShardResult } from '../runtime/coordinator-runtime.js';
import { DEFAULT_SHARE_COORDINATOR_CONFIG, type ShareCoordinatorConfig } from './config.js';
import { RedundantOffsets } from './redundant-offsets.js';
import {
  type ShareOpError,
  type ShareReadAnswer,
  type ShareSummaryAnswer,
  type ShareWriteRequest,
  ShareCoordinator,
  type TopicPartitionCount,
  shareCoordinatorKey,
} from './share-coordinator.js';
import type { SharePartitionKey } from './share-state-persister.js';

/** The five share-state operations on one share-partition, wherever its coordinator runs. */
export interface ShareStateBackend {
  initialize(key: SharePartitionKey, stateEpoch: number, startOffset: bigint): Promise<ShareOpError>;
  read(key: SharePartitionKey, leaderEpoch: number): Promise<ShareReadAnswer>;
  write(key: SharePartitionKey, request: ShareWriteRequest): Promise<ShareOpError>;
  delete(key: SharePartitionKey): Promise<ShareOpError>;
  readSummary(key: SharePartitionKey, leaderEpoch: number): Promise<ShareSummaryAnswer>;
}

export interface ShareCoordinatorServiceOptions {
  readonly log: CoordinatorLog;
  /** `share.coordinator.state.topic.num.partitions`. */
  readonly numPartitions: number;
  readonly config: Partial<ShareCoordinatorConfig>;
  /** Whether this broker leads partition `partition` of `__share_group_state` now. */
  readonly leads: (partition: number) => boolean;
  /** The partition count of a topic by id, from the metadata image. */
  readonly partitionCount: TopicPartitionCount;
  readonly logger: Logger;
  readonly clock?: () => number;
  /** DeleteRecords on partition `partition` of `__share_group_state` as its leader; resolves with the Kafka error code. */
  readonly deleteRecords: (partition: number, offset: bigint) => Promise<number>;
  /** The ids of every topic the metadata image holds now. */
  readonly topicIds: () => Iterable<string>;
  /** `share.coordinator.state.topic.prune.interval.ms`. */
  readonly pruneIntervalMs?: number;
}

/** Kafka 4.4's `share.coordinator.state.topic.prune.interval.ms` default. */
const DEFAULT_PRUNE_INTERVAL_MS = 300_000;
/** How often the metadata image is compared for deleted topics (Kafka acts on each metadata delta). */
const TOPIC_DELETION_CHECK_MS = 1000;

export class ShareCoordinatorService implements ShareStateBackend {
  private readonly runtime: CoordinatorRuntime<ShareCoordinator, never>;
  /** Partitions whose log is being replayed: their requests answer COORDINATOR_LOAD_IN_PROGRESS. */
  private readonly loading = new Set<number>();
  /** Per served partition: what its durable records still need. */
  private readonly redundant = new Map<number, RedundantOffsets>();
  /** Per served partition: the offset its log was last pruned to. */
  private readonly lastPruned = new Map<number, bigint>();
  /** The topic ids of the image last compared, to see which were deleted since. */
  private knownTopics: Set<string>;
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly options: ShareCoordinatorServiceOptions) {
    this.knownTopics = new Set(options.topicIds());
    const log = options.log;
    this.runtime = new CoordinatorRuntime({
      topic: SHARE_GROUP_STATE_TOPIC,
      log: {
        exists: () => log.exists(),
        ensureTopic: () => log.ensureTopic(),
        append: (partition, records, producer) =>
          log.append(partition, records, producer, (baseOffset) => this.redundant.get(partition)?.appended(records, baseOffset)),
        appendMarker: (partition, marker) => log.appendMarker(partition, marker),
        replay: async (partition, sink) => {
          this.loading.add(partition);
          const redundant = new RedundantOffsets();
          this.redundant.set(partition, redundant);
          try {
            return await log.replay(partition, {
              record: (key, value, producerId, offset) => {
                redundant.record(key, value, offset);
                sink.record(key, value, producerId, offset);
              },
              marker: (producerId, producerEpoch, commit) => sink.marker(producerId, producerEpoch, commit),
            });
          } finally {
            this.loading.delete(partition);
          }
        },
      },
      newShard: () => new ShareCoordinator(options.partitionCount, options.config),
      deliver: () => undefined,
      logger: options.logger,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
  }

  /** Kafka's ShareCoordinatorService.partitionFor: the Java hash of the coordinator key. */
  partitionOf(key: SharePartitionKey): number {
    return partitionFor(shareCoordinatorKey(key), this.options.numPartitions);
  }

  /** Follows the leadership of `__share_group_state`: loads the led partitions, unloads the others. */
  onLeadership(): void {
    if (!this.options.log.exists()) return;
    for (let p = 0; p < this.options.numPartitions; p++) {
      // A failed load is logged by the runtime; the next operation on the partition retries it.
      if (this.options.leads(p)) this.runtime.load(p).catch(() => undefined);
      else this.unload(p);
    }
  }

  private unload(partition: number): void {
    this.runtime.unload(partition);
    this.redundant.delete(partition);
    this.lastPruned.delete(partition);
  }

  /** Starts the periodic jobs; each runs again an interval after it finished, until `close`. */
  startPeriodicJobs(): void {
    this.every(this.options.pruneIntervalMs ?? DEFAULT_PRUNE_INTERVAL_MS, () => this.pruneRecords());
    this.every(
      this.options.config.coldPartitionSnapshotIntervalMs ?? DEFAULT_SHARE_COORDINATOR_CONFIG.coldPartitionSnapshotIntervalMs,
      () => this.snapshotColdPartitions(),
    );
    this.every(TOPIC_DELETION_CHECK_MS, () => this.forgetDeletedTopics());
  }

  private every(intervalMs: number, job: () => Promise<void>): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      // A failed job is logged and the next one scheduled; before, a rejection (pruneRecords's
      // deleteRecords) went unhandled past the finally.
      void job()
        .catch((err: unknown) => this.options.logger.warn('periodic share-coordinator job failed', { error: String(err) }))
        .finally(() => this.every(intervalMs, job));
    }, intervalMs);
    timer.unref();
    this.timers.add(timer);
  }

  /** The partitions whose coordinator is loaded here and serving. */
  private served(): number[] {
    const served: number[] = [];
    for (let p = 0; p < this.options.numPartitions; p++)
      if (this.runtime.isLoaded(p) && !this.loading.has(p) && this.options.leads(p)) served.push(p);
    return served;
  }

  /** Deletes, in each served partition, the records below the oldest snapshot still needed (Kafka's record pruning). */
  async pruneRecords(): Promise<void> {
    await Promise.all(
      this.served().map(async (p) => {
        const below = this.redundant.get(p)?.redundantBelow() ?? null;
        if (below === null || this.lastPruned.get(p) === below) return;
        const errorCode = await this.options.deleteRecords(p, below);
        if (errorCode === ErrorCode.NONE) this.lastPruned.set(p, below);
        else this.options.logger.warn('pruning share-group state failed', { partition: p, offset: String(below), errorCode });
      }),
    );
  }

  /** Snapshots, in each served partition, the share-partitions without a recent snapshot. */
  async snapshotColdPartitions(): Promise<void> {
    await this.onServed('snapshotting cold share-partitions', (c, now) => c.snapshotColdPartitions(now));
  }

  /** Tombstones the share-partitions of every topic deleted since the last look at the metadata. */
  async forgetDeletedTopics(): Promise<void> {
    const current = new Set(this.options.topicIds());
    const deleted = new Set([...this.knownTopics].filter((id) => !current.has(id)));
    this.knownTopics = current;
    if (deleted.size > 0) await this.onServed('forgetting the share state of deleted topics', (c) => c.forgetTopics(deleted));
  }

  private async onServed(what: string, op: (c: ShareCoordinator, now: number) => ShardResult<void, never>): Promise<void> {
    await Promise.all(
      this.served().map((p) =>
        this.runtime.run(p, op).catch((err: unknown) => this.options.logger.warn(`${what} failed`, { partition: p, error: String(err) })),
      ),
    );
  }

  /** Creates `__share_group_state` on first use and loads the key's coordinator if this broker leads it (FindCoordinator). */
  async prepare(key: SharePartitionKey): Promise<void> {
    const partition = this.partitionOf(key);
    await this.options.log.ensureTopic();
    if (this.options.leads(partition)) await this.runtime.load(partition);
  }

  initialize(key: SharePartitionKey, stateEpoch: number, startOffset: bigint): Promise<ShareOpError> {
    return this.apply(key, (c, now) => c.initialize(key, stateEpoch, startOffset, now), failed);
  }

  write(key: SharePartitionKey, request: ShareWriteRequest): Promise<ShareOpError> {
    return this.apply(key, (c, now) => c.write(key, request, now), failed);
  }

  read(key: SharePartitionKey, leaderEpoch: number): Promise<ShareReadAnswer> {
    return this.apply(
      key,
      (c, now) => c.read(key, leaderEpoch, now),
      (err) => ({ ...failed(err), stateEpoch: 0, startOffset: 0n, stateBatches: [] }),
    );
  }

  /** Kafka's summary does not fence: `leaderEpoch` is carried for the protocol only. */
  readSummary(key: SharePartitionKey, _leaderEpoch: number): Promise<ShareSummaryAnswer> {
    return this.apply(
      key,
      (c) => c.readSummary(key),
      (err) => ({ ...failed(err), stateEpoch: 0, leaderEpoch: 0, startOffset: 0n, deliveryCompleteCount: 0 }),
    );
  }

  delete(key: SharePartitionKey): Promise<ShareOpError> {
    return this.apply(key, (c) => c.delete(key), failed);
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.runtime.close();
  }

  private async apply<R>(
    key: SharePartitionKey,
    op: (c: ShareCoordinator, now: number) => ShardResult<R, never>,
    onError: (err: unknown) => R,
  ): Promise<R> {
    try {
      return await this.runtime.run(this.coordinated(key), op);
    } catch (err) {
      return onError(err);
    }
  }

  /** The partition of `key`, if this broker coordinates it and has loaded it. */
  private coordinated(key: SharePartitionKey): number {
    const partition = this.partitionOf(key);
    // Before `__share_group_state` exists nobody leads it: the first operation creates it here.
    if (this.options.log.exists() && !this.options.leads(partition)) {
      throw new KafkaError(ErrorCode.NOT_COORDINATOR, `this broker does not lead ${SHARE_GROUP_STATE_TOPIC}-${partition}`);
    }
    if (this.loading.has(partition))
      throw new KafkaError(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, `${SHARE_GROUP_STATE_TOPIC}-${partition} is loading`);
    return partition;
  }
}

function failed(err: unknown): ShareOpError {
  return { errorCode: kafkaErrorCode(err), errorMessage: err instanceof Error ? err.message : String(err) };
}
