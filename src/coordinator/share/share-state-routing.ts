/**
 * The real `SharePersister`: each call goes to the share coordinator of its share-partition —
 * this broker's `ShareCoordinatorService` when this broker leads the share-partition's
 * `__share_group_state` partition (or nobody does yet: the first use creates the topic here),
 * else the leader named by the metadata, over the inter-broker RPCs 83–87 (`ShareStatePeers`).
 * NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS and a lost
 * connection are retried with a doubling backoff (the leadership may be moving, the state
 * loading) up to `maxAttempts` times; every other error, and the last retriable one, is thrown as
 * a `KafkaError` with its code.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { ShareOpError } from './share-coordinator.js';
import type { ShareCoordinatorService, ShareStateBackend } from './share-coordinator-service.js';
import type { SharePartitionKey, SharePersister, ShareStateSnapshot, ShareStateSummary, ShareStateWrite } from './share-state-persister.js';

/** The share coordinators on other brokers. */
export interface ShareStatePeers {
  /** The coordinator on broker `brokerId`; its answers carry the codes that broker gave. */
  at(brokerId: number): ShareStateBackend;
}

export interface ShareStateRoutingOptions {
  readonly nodeId: number;
  readonly local: ShareCoordinatorService;
  /** The broker leading partition `partition` of `__share_group_state`, or null when none does (yet). */
  readonly leaderOf: (partition: number) => number | null;
  /** Null on a single broker: every share-partition's coordinator is here. */
  readonly peers: ShareStatePeers | null;
  readonly retryBackoffMs?: number;
  readonly maxRetryBackoffMs?: number;
  readonly maxAttempts?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

const RETRIABLE: ReadonlySet<number> = new Set([
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.NETWORK_EXCEPTION,
  ErrorCode.REQUEST_TIMED_OUT,
]);

/** Kafka's persister starts at 100 ms and backs off to seconds; a handful of attempts spans a leader election. */
const DEFAULTS = { retryBackoffMs: 100, maxRetryBackoffMs: 2000, maxAttempts: 8 } as const;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

export class ShareStatePersister implements SharePersister {
  private readonly retryBackoffMs: number;
  private readonly maxRetryBackoffMs: number;
  private readonly maxAttempts: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: ShareStateRoutingOptions) {
    this.retryBackoffMs = options.retryBackoffMs ?? DEFAULTS.retryBackoffMs;
    this.maxRetryBackoffMs = options.maxRetryBackoffMs ?? DEFAULTS.maxRetryBackoffMs;
    this.maxAttempts = options.maxAttempts ?? DEFAULTS.maxAttempts;
    this.sleep = options.sleep ?? delay;
  }

  async initialize(key: SharePartitionKey, stateEpoch: number, startOffset: bigint): Promise<void> {
    await this.call(key, 'initialize', (c) => c.initialize(key, stateEpoch, startOffset));
  }

  async read(key: SharePartitionKey, leaderEpoch: number): Promise<ShareStateSnapshot> {
    const read = await this.call(key, 'read', (c) => c.read(key, leaderEpoch));
    // The read answer has no leader epoch: it is the one the reader just established.
    return { stateEpoch: read.stateEpoch, startOffset: read.startOffset, leaderEpoch, stateBatches: read.stateBatches };
  }

  async write(key: SharePartitionKey, state: ShareStateWrite): Promise<void> {
    await this.call(key, 'write', (c) =>
      c.write(key, {
        stateEpoch: state.stateEpoch,
        leaderEpoch: state.leaderEpoch,
        startOffset: state.startOffset,
        deliveryCompleteCount: state.deliveryCompleteCount ?? -1,
        stateBatches: state.stateBatches,
      }),
    );
  }

  async delete(key: SharePartitionKey): Promise<void> {
    await this.call(key, 'delete', (c) => c.delete(key));
  }

  async readSummary(key: SharePartitionKey, leaderEpoch: number): Promise<ShareStateSummary> {
    const s = await this.call(key, 'readSummary', (c) => c.readSummary(key, leaderEpoch));
    return {
      stateEpoch: s.stateEpoch,
      startOffset: s.startOffset,
      leaderEpoch: s.leaderEpoch,
      deliveryCompleteCount: s.deliveryCompleteCount,
    };
  }

  /** The coordinator of `key` as the metadata names it now. */
  private coordinatorOf(key: SharePartitionKey): ShareStateBackend {
    const { local, peers, nodeId, leaderOf } = this.options;
    const leader = leaderOf(local.partitionOf(key));
    return leader === null || leader === nodeId || peers === null ? local : peers.at(leader);
  }

  private async call<R extends ShareOpError>(key: SharePartitionKey, what: string, op: (c: ShareStateBackend) => Promise<R>): Promise<R> {
    let backoff = this.retryBackoffMs;
    for (let attempt = 1; ; attempt++) {
      const answer = await op(this.coordinatorOf(key));
      if (answer.errorCode === ErrorCode.NONE) return answer;
      if (!RETRIABLE.has(answer.errorCode) || attempt >= this.maxAttempts) {
        throw new KafkaError(
          answer.errorCode,
          `share state ${what} of ${key.groupId}:${key.topicId}:${key.partition} failed: ${answer.errorMessage ?? answer.errorCode}`,
        );
      }
      await this.sleep(backoff);
      backoff = Math.min(backoff * 2, this.maxRetryBackoffMs);
    }
  }
}
