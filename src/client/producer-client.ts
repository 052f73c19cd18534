/**
 * Sends records to one topic: picks each record's partition (explicit, by key, or sticky),
 * encodes one batch per partition (optionally compressed), and sends each leader one Produce
 * request for its partitions. Partitions answered with a retriable error (a leader moved, the
 * topic is still being created) are sent again after a metadata refresh until the delivery
 * timeout. No idempotence: a retry after a lost response may write a batch twice, as with
 * Kafka's producer when `enable.idempotence=false`.
 */
import { ErrorCode } from '../protocol/errors.js';
import { ProduceRequest, ProduceResponse, type ProduceResponseData } from '../protocol/messages/index.js';
import { CompressionType, encodeRecordBatch, type RecordHeaderInput } from '../protocol/records/index.js';
import { brokerError, isRetriable } from './client-errors.js';
import type { KafkaCluster } from './cluster.js';
import type { TopicMetadata } from './cluster-metadata.js';
import { compressRecords } from './compression-codecs.js';
import { partitionForKey, StickyPartitioner } from './partitioner.js';
import { withRetries } from './retry.js';
import { groupByLeader, requirePartition, topicWithLeaders } from './topic-leaders.js';

export interface ProducerRecord {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly partition?: number;
  readonly headers?: readonly RecordHeaderInput[];
  /** CreateTime in epoch milliseconds; defaults to now. */
  readonly timestamp?: bigint;
}

export type Acks = -1 | 0 | 1;

export interface ProducerOptions {
  readonly acks?: Acks;
  readonly compression?: CompressionType;
  /** How long the leader may wait for replicas when acks=-1 (Produce `timeoutMs`). */
  readonly ackTimeoutMs?: number;
  /** How long a send keeps retrying retriable errors (Kafka's `delivery.timeout.ms`). */
  readonly deliveryTimeoutMs?: number;
}

export interface PartitionAppend {
  readonly partition: number;
  /** The offset of the batch's first record; -1 with acks=0, which gets no answer. */
  readonly baseOffset: bigint;
  readonly recordCount: number;
}

const DEFAULT_ACK_TIMEOUT_MS = 30_000;
const DEFAULT_DELIVERY_TIMEOUT_MS = 120_000;
const NO_OFFSET = -1n;

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
            this.sendToLeader(metadata, leader, partitions.map((p) => [p, pending.get(p)!] as const)),
          ),
        );
        for (const append of outcomes.flatMap((o) => o.appended)) {
          pending.delete(append.partition);
          done.push(append);
        }
        const failures = outcomes.flatMap((o) => o.failures);
        // A non-retriable failure ends the send at once; otherwise retry what is left.
        const failure = failures.find((f) => !isRetriable(f)) ?? failures[0];
        if (failure !== undefined) throw failure;
        if (pending.size > 0) throw brokerError(ErrorCode.UNKNOWN_SERVER_ERROR, `no answer for partitions ${[...pending.keys()].join(', ')}`, `produce to topic '${topic}'`);
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

  private encodeBatches(topic: TopicMetadata, records: readonly ProducerRecord[]): Map<number, PendingBatch> {
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
    const batches = new Map<number, PendingBatch>();
    for (const [partition, list] of byPartition) {
      const bytes = encodeRecordBatch(
        {
          compression: this.compression,
          records: list.map((r) => ({ key: r.key, value: r.value, headers: r.headers ?? [], timestamp: r.timestamp ?? now })),
        },
        compressRecords,
      );
      batches.set(partition, { bytes, recordCount: list.length });
    }
    return batches;
  }

  /** Never rejects: what one leader took and what failed, so that other leaders' successes are kept. */
  private async sendToLeader(topic: TopicMetadata, leader: number, partitions: ReadonlyArray<readonly [number, PendingBatch]>): Promise<LeaderOutcome> {
    try {
      return await this.produce(topic, leader, partitions);
    } catch (err) {
      return { appended: [], failures: [err] };
    }
  }

  private async produce(topic: TopicMetadata, leader: number, partitions: ReadonlyArray<readonly [number, PendingBatch]>): Promise<LeaderOutcome> {
    const connection = await this.cluster.nodeConnection(leader);
    const body = () => ({
      transactionalId: null,
      acks: this.acks,
      timeoutMs: this.ackTimeoutMs,
      // Produce v13 names the topic by id, earlier versions by name; each version writes the one it has.
      topicData: [{ name: topic.name, topicId: topic.topicId, partitionData: partitions.map(([index, batch]) => ({ index, records: batch.bytes })) }],
    });
    if (this.acks === 0) {
      await connection.requestWithoutResponse(ProduceRequest, body);
      return { appended: partitions.map(([partition, batch]) => ({ partition, baseOffset: NO_OFFSET, recordCount: batch.recordCount })), failures: [] };
    }
    const res = await connection.request(ProduceRequest, ProduceResponse, body, { timeoutMs: this.ackTimeoutMs + 5_000 });
    return partitionResults(res, topic.name, new Map(partitions));
  }
}

interface PendingBatch {
  readonly bytes: Buffer;
  readonly recordCount: number;
}

interface LeaderOutcome {
  readonly appended: PartitionAppend[];
  readonly failures: unknown[];
}

function partitionResults(res: ProduceResponseData, topic: string, sent: ReadonlyMap<number, PendingBatch>): LeaderOutcome {
  const appended: PartitionAppend[] = [];
  const failures: unknown[] = [];
  for (const t of res.responses) {
    for (const p of t.partitionResponses) {
      const batch = sent.get(p.index);
      if (batch === undefined) continue;
      if (p.errorCode === ErrorCode.NONE) {
        appended.push({ partition: p.index, baseOffset: p.baseOffset, recordCount: batch.recordCount });
      } else {
        const detail = p.errorMessage ?? p.recordErrors.map((e) => e.batchIndexErrorMessage).find((m) => m !== null) ?? null;
        failures.push(brokerError(p.errorCode, detail, `produce to topic '${topic}' partition ${p.index}`));
      }
    }
  }
  return { appended, failures };
}
