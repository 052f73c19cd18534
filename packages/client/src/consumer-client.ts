/**
 * Reads one topic without a consumer group: ListOffsets turns "earliest", "latest" or a
 * timestamp into offsets, and each `fetch` sends every partition's leader one Fetch from the
 * caller's positions and advances them past what it returns.
 *
 * A partition answered with a retriable error (leader moved, topic still propagating) is left
 * at its position and the metadata refreshed before the next fetch; one that keeps failing for
 * longer than `retryTimeoutMs` ends the read with that error.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { CONSUMER_REPLICA_ID, EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, READ_UNCOMMITTED } from '@sluice/protocol/offset-requests.js';
import {
  FetchRequest,
  FetchResponse,
  ListOffsetsRequest,
  ListOffsetsResponse,
  type FetchResponseData,
} from '@sluice/protocol/messages/index.js';
import { brokerError, isRetriable, throwIfError } from './client-errors.js';
import type { KafkaCluster } from './cluster.js';
import type { TopicMetadata } from './cluster-metadata.js';
import { decodePartitionRecords, type ConsumedRecord } from './fetched-records.js';
import { withRetries } from './retry.js';
import { groupByLeader, topicWithLeaders } from './topic-leaders.js';

export type OffsetSpec = 'earliest' | 'latest' | { readonly timestamp: bigint };

export interface ConsumerOptions {
  /** Fetch long-poll: how long the broker may wait for `minBytes` (Kafka's `fetch.max.wait.ms`). */
  readonly maxWaitMs?: number;
  readonly minBytes?: number;
  readonly maxBytes?: number;
  readonly partitionMaxBytes?: number;
  readonly retryTimeoutMs?: number;
}

/** Next offset to fetch, by partition index; `fetch` advances it. */
export type Positions = Map<number, bigint>;

const RETRY_BACKOFF_MS = 100;

/** Keeps a partition that fails retriably from turning the fetch loop into a busy loop. */
function backOff(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, RETRY_BACKOFF_MS));
}

export class KafkaConsumerClient {
  private readonly maxWaitMs: number;
  private readonly minBytes: number;
  private readonly maxBytes: number;
  private readonly partitionMaxBytes: number;
  private readonly retryTimeoutMs: number;
  private metadata: TopicMetadata | null = null;
  private readonly failingSince = new Map<number, number>();

  constructor(
    private readonly cluster: KafkaCluster,
    readonly topic: string,
    options: ConsumerOptions = {},
  ) {
    this.maxWaitMs = options.maxWaitMs ?? 500;
    this.minBytes = options.minBytes ?? 1;
    this.maxBytes = options.maxBytes ?? 50 * 1024 * 1024;
    this.partitionMaxBytes = options.partitionMaxBytes ?? 1024 * 1024;
    this.retryTimeoutMs = options.retryTimeoutMs ?? 30_000;
  }

  /** The topic's partitions, waiting (up to the retry timeout) for a topic that is still being created. */
  partitions(): Promise<TopicMetadata> {
    return withRetries(() => this.currentMetadata(), {
      deadline: Date.now() + this.retryTimeoutMs,
      beforeRetry: () => (this.metadata = null),
    });
  }

  /** The offset `spec` names in each partition (for a timestamp: the first offset at or after it, or the end). */
  async listOffsets(partitions: readonly number[], spec: OffsetSpec): Promise<Positions> {
    const timestamp = spec === 'earliest' ? EARLIEST_TIMESTAMP : spec === 'latest' ? LATEST_TIMESTAMP : spec.timestamp;
    const attempt = async (): Promise<Positions> => {
      const metadata = await this.currentMetadata();
      const answers = await Promise.all(
        [...groupByLeader(metadata, partitions)].map(async ([leader, indexes]) => {
          const connection = await this.cluster.nodeConnection(leader);
          return connection.request(ListOffsetsRequest, ListOffsetsResponse, () => ({
            replicaId: CONSUMER_REPLICA_ID,
            isolationLevel: READ_UNCOMMITTED,
            topics: [{ name: this.topic, partitions: indexes.map((partitionIndex) => ({ partitionIndex, timestamp })) }],
          }));
        }),
      );
      const positions: Positions = new Map();
      for (const p of answers.flatMap((a) => a.topics.flatMap((t) => t.partitions))) {
        throwIfError(p.errorCode, null, `list offsets of topic '${this.topic}' partition ${p.partitionIndex}`);
        positions.set(p.partitionIndex, p.offset);
      }
      return positions;
    };
    const positions = await withRetries(attempt, { deadline: Date.now() + this.retryTimeoutMs, beforeRetry: () => (this.metadata = null) });
    // No record at or after the timestamp: Kafka answers offset -1; the consumer then starts at the end.
    const missing = partitions.filter((p) => (positions.get(p) ?? -1n) < 0n);
    if (missing.length > 0) for (const [p, o] of await this.listOffsets(missing, 'latest')) positions.set(p, o);
    return positions;
  }

  /** One round of fetches from every partition in `positions`, which advance past the records returned. */
  async fetch(positions: Positions): Promise<ConsumedRecord[]> {
    const metadata = await this.partitions();
    const rounds = await Promise.all(
      [...groupByLeader(metadata, positions.keys())].map(([leader, partitions]) =>
        this.fetchFromLeader(metadata, leader, partitions, positions),
      ),
    );
    return rounds.flat();
  }

  private async fetchFromLeader(
    metadata: TopicMetadata,
    leader: number,
    partitions: readonly number[],
    positions: Positions,
  ): Promise<ConsumedRecord[]> {
    let res: FetchResponseData;
    try {
      const connection = await this.cluster.nodeConnection(leader);
      res = await connection.request(
        FetchRequest,
        FetchResponse,
        () => ({
          replicaId: CONSUMER_REPLICA_ID,
          maxWaitMs: this.maxWaitMs,
          minBytes: this.minBytes,
          maxBytes: this.maxBytes,
          isolationLevel: READ_UNCOMMITTED,
          // Fetch v13 names the topic by id, earlier versions by name; each version writes the one it has.
          topics: [
            {
              topic: this.topic,
              topicId: metadata.topicId,
              partitions: partitions.map((partition) => ({
                partition,
                fetchOffset: positions.get(partition)!,
                partitionMaxBytes: this.partitionMaxBytes,
              })),
            },
          ],
        }),
        { timeoutMs: this.maxWaitMs + 30_000 },
      );
    } catch (err) {
      for (const p of partitions) this.noteFailure(p, err);
      await backOff();
      return [];
    }
    throwIfError(res.errorCode, null, `fetch from broker ${leader}`);
    const records: ConsumedRecord[] = [];
    let failed = false;
    for (const p of res.responses.flatMap((t) => t.partitions)) {
      const position = positions.get(p.partitionIndex);
      if (position === undefined) continue;
      if (p.errorCode !== ErrorCode.NONE) {
        this.noteFailure(
          p.partitionIndex,
          brokerError(p.errorCode, null, `fetch topic '${this.topic}' partition ${p.partitionIndex} at offset ${position}`),
        );
        failed = true;
        continue;
      }
      this.failingSince.delete(p.partitionIndex);
      const decoded = decodePartitionRecords(p.partitionIndex, p.records, position);
      positions.set(p.partitionIndex, decoded.nextOffset);
      records.push(...decoded.records);
    }
    if (failed) await backOff();
    return records;
  }

  private noteFailure(partition: number, err: unknown): void {
    const since = this.failingSince.get(partition) ?? Date.now();
    if (!isRetriable(err) || Date.now() - since > this.retryTimeoutMs) throw err;
    this.failingSince.set(partition, since);
    this.metadata = null;
  }

  private async currentMetadata(): Promise<TopicMetadata> {
    this.metadata ??= await topicWithLeaders(this.cluster, this.topic);
    return this.metadata;
  }
}
