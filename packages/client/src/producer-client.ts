/**
 * Sends records to one topic: picks each record's partition (explicit, by key, or sticky),
 * encodes one batch per partition (optionally compressed), and sends each leader one Produce
 * request for its partitions. Partitions answered with a retriable error (a leader moved, the
 * topic is still being created) are sent again after a metadata refresh until the delivery
 * timeout. No idempotence: a retry after a lost response may write a batch twice, as with
 * Kafka's producer when `enable.idempotence=false`.
 *
 * Each call is one batch per partition, sent at once: the caller decides the batching (the CLI
 * sends what stdin has ready). `BatchingProducer` (`producer-batching.ts`) is the Java
 * producer's model instead: `batch.size`, `linger.ms`, `max.in.flight`.
 */
import { CompressionType } from '@sluice/protocol/records/index.js';
import { isRetriable } from './client-errors.js';
import type { KafkaCluster } from './cluster.js';
import type { TopicMetadata } from './cluster-metadata.js';
import { partitionForKey, StickyPartitioner } from './partitioner.js';
import {
  encodeBatch,
  producePartitions,
  type Acks,
  type EncodedBatch,
  type LeaderOutcome,
  type PartitionAppend,
  type ProducerRecord,
} from './producer-request.js';
import { withRetries } from './retry.js';
import { groupByLeader, requirePartition, topicWithLeaders } from './topic-leaders.js';

export type { Acks, PartitionAppend, ProducerRecord } from './producer-request.js';

export interface ProducerOptions {
  readonly acks?: Acks;
  readonly compression?: CompressionType;
  /** How long the leader may wait for replicas when acks=-1 (Produce `timeoutMs`). */
  readonly ackTimeoutMs?: number;
  /** How long a send keeps retrying retriable errors (Kafka's `delivery.timeout.ms`). */
  readonly deliveryTimeoutMs?: number;
}

export const DEFAULT_ACK_TIMEOUT_MS = 30_000;
export const DEFAULT_DELIVERY_TIMEOUT_MS = 120_000;

export class KafkaProducerClient {
  private readonly acks: Acks;
  private readonly compression: CompressionType;
  private readonly ackTimeoutMs: number;
  private readonly deliveryTimeoutMs: number;
  private readonly sticky = new StickyPartitioner();
  private readonly topics = new Map<string, TopicMetadata>();

  constructor(
    private readonly cluster: KafkaCluster,
    options: ProducerOptions = {},
  ) {
    this.acks = options.acks ?? -1;
    this.compression = options.compression ?? CompressionType.None;
    this.ackTimeoutMs = options.ackTimeoutMs ?? DEFAULT_ACK_TIMEOUT_MS;
    this.deliveryTimeoutMs = options.deliveryTimeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
  }

  /** Resolves once every partition's batch is acknowledged (or written to the socket, with acks=0). */
  async send(topic: string, records: readonly ProducerRecord[]): Promise<PartitionAppend[]> {
    if (records.length === 0) return [];
    const deadline = Date.now() + this.deliveryTimeoutMs;
    const batches = await withRetries(async () => this.encodeBatches(await this.topicMetadata(topic), records), {
      deadline,
      beforeRetry: () => this.topics.delete(topic),
    });
    const done: PartitionAppend[] = [];
    const pending = new Map(batches);
    await withRetries(
      async () => {
        const metadata = await this.topicMetadata(topic);
        const outcomes = await Promise.all(
          [...groupByLeader(metadata, pending.keys())].map(([leader, partitions]) =>
            this.sendToLeader(
              metadata,
              leader,
              partitions.map((p) => [p, pending.get(p)!] as const),
            ),
          ),
        );
        for (const { partition, baseOffset, recordCount } of outcomes.flatMap((o) => o.appended)) {
          pending.delete(partition);
          done.push({ partition, baseOffset, recordCount });
        }
        const failures = outcomes.flatMap((o) => o.failures.map((f) => f.error));
        // A non-retriable failure ends the send at once; otherwise retry what is left.
        const failure = failures.find((f) => !isRetriable(f)) ?? failures[0];
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- the partition's error as the produce request built it
        if (failure !== undefined) throw failure;
      },
      { deadline, beforeRetry: () => this.topics.delete(topic) },
    );
    return done.sort((a, b) => a.partition - b.partition);
  }

  private async topicMetadata(topic: string): Promise<TopicMetadata> {
    let metadata = this.topics.get(topic);
    if (metadata === undefined) {
      metadata = await topicWithLeaders(this.cluster, topic, { allowAutoTopicCreation: true });
      this.topics.set(topic, metadata);
    }
    return metadata;
  }

  private encodeBatches(topic: TopicMetadata, records: readonly ProducerRecord[]): Map<number, EncodedBatch> {
    const count = topic.partitions.length;
    const unkeyed = this.sticky.nextBatchPartition(count);
    const byPartition = new Map<number, ProducerRecord[]>();
    for (const record of records) {
      const partition = record.partition ?? (record.key === null ? unkeyed : partitionForKey(record.key, count));
      requirePartition(topic, partition);
      const list = byPartition.get(partition);
      if (list === undefined) byPartition.set(partition, [record]);
      else list.push(record);
    }
    const now = BigInt(Date.now());
    const batches = new Map<number, EncodedBatch>();
    for (const [partition, list] of byPartition) batches.set(partition, encodeBatch(list, this.compression, now));
    return batches;
  }

  /** Never rejects: what one leader took and what failed, so that other leaders' successes are kept. */
  private async sendToLeader(
    topic: TopicMetadata,
    leader: number,
    partitions: ReadonlyArray<readonly [number, EncodedBatch]>,
  ): Promise<LeaderOutcome> {
    try {
      const connection = await this.cluster.nodeConnection(leader);
      return await producePartitions(connection, [{ topic, batches: partitions }], { acks: this.acks, ackTimeoutMs: this.ackTimeoutMs });
    } catch (error) {
      return { appended: [], failures: partitions.map(([partition]) => ({ topic: topic.name, partition, error })) };
    }
  }
}
