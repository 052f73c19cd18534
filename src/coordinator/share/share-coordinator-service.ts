/**
 * The share coordinators of this broker (main thread): a `ShareCoordinator` per
 * `__share_group_state` partition this broker leads, run by the generic `CoordinatorRuntime`. A
 * share-partition lives in partition `abs(hash("groupId:topicId:partition")) % numPartitions`, as
 * Kafka places it; a request for one whose partition this broker does not lead answers
 * NOT_COORDINATOR, and one whose partition is still loading COORDINATOR_LOAD_IN_PROGRESS. Shards
 * load when this broker becomes the partition's leader (`onLeadership`, and on first use) and
 * unload when it stops leading. Each call handles one share-partition, as Kafka's service splits
 * a request per key.
 */
import { KafkaError, kafkaErrorCode } from '../../common/kafka-error.js';
import type { Logger } from '../../common/logger.js';
import { ErrorCode } from '../../protocol/errors.js';
import { SHARE_GROUP_STATE_TOPIC } from '../../protocol/internal-topics.js';
import { partitionFor } from '../group/partition-for.js';
import type { CoordinatorLog } from '../runtime/coordinator-log.js';
import { CoordinatorRuntime, type ShardResult } from '../runtime/coordinator-runtime.js';
import type { ShareCoordinatorConfig } from './config.js';
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
}

export class ShareCoordinatorService implements ShareStateBackend {
  private readonly runtime: CoordinatorRuntime<ShareCoordinator, never>;
  /** Partitions whose log is being replayed: their requests answer COORDINATOR_LOAD_IN_PROGRESS. */
  private readonly loading = new Set<number>();

  constructor(private readonly options: ShareCoordinatorServiceOptions) {
    const log = options.log;
    this.runtime = new CoordinatorRuntime({
      topic: SHARE_GROUP_STATE_TOPIC,
      log: {
        exists: () => log.exists(),
        ensureTopic: () => log.ensureTopic(),
        append: (partition, records, producer) => log.append(partition, records, producer),
        appendMarker: (partition, marker) => log.appendMarker(partition, marker),
        replay: async (partition, sink) => {
          this.loading.add(partition);
          try {
            return await log.replay(partition, sink);
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
      else this.runtime.unload(p);
    }
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
    return this.apply(key, (c, now) => c.read(key, leaderEpoch, now), (err) => ({ ...failed(err), stateEpoch: 0, startOffset: 0n, stateBatches: [] }));
  }

  /** Kafka's summary does not fence: `leaderEpoch` is carried for the protocol only. */
  readSummary(key: SharePartitionKey, _leaderEpoch: number): Promise<ShareSummaryAnswer> {
    return this.apply(key, (c) => c.readSummary(key), (err) => ({ ...failed(err), stateEpoch: 0, leaderEpoch: 0, startOffset: 0n, deliveryCompleteCount: 0 }));
  }

  delete(key: SharePartitionKey): Promise<ShareOpError> {
    return this.apply(key, (c) => c.delete(key), failed);
  }

  close(): void {
    this.runtime.close();
  }

  private async apply<R>(key: SharePartitionKey, op: (c: ShareCoordinator, now: number) => ShardResult<R, never>, onError: (err: unknown) => R): Promise<R> {
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
    if (this.loading.has(partition)) throw new KafkaError(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, `${SHARE_GROUP_STATE_TOPIC}-${partition} is loading`);
    return partition;
  }
}

function failed(err: unknown): ShareOpError {
  return { errorCode: kafkaErrorCode(err), errorMessage: err instanceof Error ? err.message : String(err) };
}
