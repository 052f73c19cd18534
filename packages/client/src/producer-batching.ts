/**
 * A producer with the Java client's batching model: `send()` appends a record to its
 * partition's batch in the `RecordAccumulator` and returns; a sender pass (Kafka's `Sender`
 * thread, here an event-loop callback) sends a leader one Produce request with the first batch
 * of each of its partitions once one of them is full or has lingered `linger.ms`, as long as that
 * leader has fewer than `max.in.flight` requests outstanding. While a leader is busy its batches
 * keep filling: that is how batching happens even at `linger.ms=0` under load.
 *
 * Settings, defaults and behaviour follow Kafka 4.x's producer (`batch.size` 16384, `linger.ms`
 * 5, `max.in.flight.requests.per.connection` 5, `max.request.size` 1 MiB, `buffer.memory` 32 MiB,
 * `acks` all, retries until `delivery.timeout.ms` with `retry.backoff.ms` between). Differences:
 * no idempotence or transactions (so a retry with several requests in flight may reorder or
 * duplicate, as Kafka's producer with `enable.idempotence=false`); a full buffer does not block
 * `send()` (Node has no thread to block) — callers wait on `bufferSpace()` instead, and while they
 * do every batch is sendable, as Kafka's accumulator does when its pool has waiters; one thread
 * runs both the caller and the sender, so a busy caller delays the sender pass.
 *
 * Latency is measured per record, from `send()` to the callback, on `performance.now()`.
 */
import { performance } from 'node:perf_hooks';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { BatchLayout, CompressionType } from '@sluice/protocol/records/index.js';
import { isRetriable } from './client-errors.js';
import type { KafkaCluster } from './cluster.js';
import type { TopicMetadata } from './cluster-metadata.js';
import { partitionForKey, StickyPartitioner } from './partitioner.js';
import {
  RecordAccumulator,
  recordSizeInBatch,
  type DeliveryCallback,
  type ProducerBatch,
  type QueuedRecord,
} from './producer-accumulator.js';
import { DEFAULT_ACK_TIMEOUT_MS, DEFAULT_DELIVERY_TIMEOUT_MS } from './producer-client.js';
import {
  encodeBatch,
  producePartitions,
  type Acks,
  type LeaderOutcome,
  type ProducerRecord,
  type TopicBatches,
} from './producer-request.js';
import { withRetries } from './retry.js';
import { topicWithLeaders } from './topic-leaders.js';

export interface BatchingProducerOptions {
  readonly acks?: Acks;
  readonly compression?: CompressionType;
  /** `batch.size` in bytes. */
  readonly batchSize?: number;
  readonly lingerMs?: number;
  /** `max.in.flight.requests.per.connection`. */
  readonly maxInFlight?: number;
  /** `max.request.size`: a request's batches (estimated) and the largest record. */
  readonly maxRequestSize?: number;
  /** `buffer.memory`: bytes of records queued or in flight before `hasBufferSpace` turns false. */
  readonly bufferMemory?: number;
  /** Produce `timeoutMs` (how long the leader may wait for replicas with acks=-1). */
  readonly ackTimeoutMs?: number;
  readonly deliveryTimeoutMs?: number;
  readonly retryBackoffMs?: number;
}

/** The producer's own accounting of what was acknowledged. */
export interface ProducerStats {
  readonly acknowledgedRecords: number;
  readonly failedRecords: number;
  /** Acknowledged batches. */
  readonly batches: number;
  readonly requests: number;
  readonly retries: number;
  /** Acknowledged batches' encoded size on the wire (header included, compressed if so). */
  readonly batchBytes: number;
  /** The same batches' records before compression. */
  readonly uncompressedRecordBytes: number;
}

export const BATCHING_DEFAULTS = {
  acks: -1,
  batchSize: 16_384,
  lingerMs: 5,
  maxInFlight: 5,
  maxRequestSize: 1_048_576,
  bufferMemory: 33_554_432,
  retryBackoffMs: 100,
} as const;

interface TopicState {
  metadata: TopicMetadata | null;
  refreshing: boolean;
  /** Records sent before the topic's metadata arrived. */
  readonly waiting: Array<{ readonly partition: number | undefined; readonly record: QueuedRecord }>;
  stickyPartition: number;
}

interface Settings {
  readonly acks: Acks;
  readonly compression: CompressionType;
  readonly maxInFlight: number;
  readonly maxRequestSize: number;
  readonly bufferMemory: number;
  readonly ackTimeoutMs: number;
  readonly deliveryTimeoutMs: number;
  readonly retryBackoffMs: number;
}

export class BatchingProducer {
  private readonly settings: Settings;
  private readonly accumulator: RecordAccumulator;
  private readonly sticky = new StickyPartitioner();
  private readonly topics = new Map<string, TopicState>();
  private readonly inFlight = new Map<number, number>();
  private readonly bufferWaiters: Array<() => void> = [];
  private readonly idleWaiters: Array<() => void> = [];
  private bufferedBytes = 0;
  /** Records sent and not yet acknowledged or failed. */
  private outstanding = 0;
  private flushing = 0;
  private closed = false;
  private passScheduled = false;
  private timer: NodeJS.Timeout | null = null;
  private timerDue = Number.POSITIVE_INFINITY;
  private counters = {
    acknowledgedRecords: 0,
    failedRecords: 0,
    batches: 0,
    requests: 0,
    retries: 0,
    batchBytes: 0,
    uncompressedRecordBytes: 0,
  };

  constructor(
    private readonly cluster: KafkaCluster,
    options: BatchingProducerOptions = {},
  ) {
    const compression = options.compression ?? CompressionType.None;
    this.settings = {
      acks: options.acks ?? BATCHING_DEFAULTS.acks,
      compression,
      maxInFlight: positive(options.maxInFlight ?? BATCHING_DEFAULTS.maxInFlight, 'maxInFlight'),
      maxRequestSize: positive(options.maxRequestSize ?? BATCHING_DEFAULTS.maxRequestSize, 'maxRequestSize'),
      bufferMemory: positive(options.bufferMemory ?? BATCHING_DEFAULTS.bufferMemory, 'bufferMemory'),
      ackTimeoutMs: options.ackTimeoutMs ?? DEFAULT_ACK_TIMEOUT_MS,
      deliveryTimeoutMs: options.deliveryTimeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS,
      retryBackoffMs: options.retryBackoffMs ?? BATCHING_DEFAULTS.retryBackoffMs,
    };
    const lingerMs = options.lingerMs ?? BATCHING_DEFAULTS.lingerMs;
    if (!(lingerMs >= 0)) throw new RangeError(`lingerMs must be >= 0, not ${lingerMs}`);
    this.accumulator = new RecordAccumulator({
      batchSize: positive(options.batchSize ?? BATCHING_DEFAULTS.batchSize, 'batchSize'),
      lingerMs,
      compression,
    });
  }

  /**
   * Queues the record; `callback` runs once it is acknowledged (or written, with acks=0) or has
   * failed for good. Partition: explicit, else murmur2 of the key, else sticky (moves on when a
   * batch fills).
   */
  send(topic: string, record: ProducerRecord, callback: DeliveryCallback | null = null): void {
    if (this.closed) throw new KafkaError(ErrorCode.INVALID_REQUEST, 'send on a closed producer');
    const queued: QueuedRecord = {
      key: record.key,
      value: record.value,
      headers: record.headers ?? [],
      timestamp: record.timestamp ?? BigInt(Date.now()),
      sentAt: performance.now(),
      callback,
    };
    this.outstanding++;
    const state = this.topicState(topic);
    if (state.metadata === null) {
      state.waiting.push({ partition: record.partition, record: queued });
      this.refreshMetadata(topic, state);
    } else {
      this.append(topic, state, state.metadata, record.partition, queued);
    }
  }

  /** False while queued and in-flight records hold `buffer.memory` or more: wait on `bufferSpace()`. */
  get hasBufferSpace(): boolean {
    return this.bufferedBytes < this.settings.bufferMemory;
  }

  /** Resolves when `hasBufferSpace`; meanwhile every batch is sendable, as in Kafka when the pool is exhausted. */
  bufferSpace(): Promise<void> {
    if (this.hasBufferSpace) return Promise.resolve();
    const wait = new Promise<void>((resolve) => this.bufferWaiters.push(resolve));
    this.schedulePass();
    return wait;
  }

  /** Sends every queued batch now (ignoring linger) and resolves when all sent records are answered. */
  async flush(): Promise<void> {
    if (this.outstanding === 0) return;
    this.flushing++;
    try {
      const idle = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
      this.schedulePass();
      await idle;
    } finally {
      this.flushing--;
    }
  }

  /** Flushes, then refuses further sends. The cluster (and its connections) stay the caller's. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  stats(): ProducerStats {
    return { ...this.counters };
  }

  private topicState(topic: string): TopicState {
    let state = this.topics.get(topic);
    if (state === undefined) {
      state = { metadata: null, refreshing: false, waiting: [], stickyPartition: 0 };
      this.topics.set(topic, state);
    }
    return state;
  }

  private append(topic: string, state: TopicState, metadata: TopicMetadata, explicit: number | undefined, record: QueuedRecord): void {
    const count = metadata.partitions.length;
    const partition = explicit ?? (record.key === null ? state.stickyPartition : partitionForKey(record.key, count));
    if (!Number.isInteger(partition) || partition < 0 || partition >= count) {
      this.fail([record], new KafkaError(ErrorCode.INVALID_REQUEST, `partition ${partition} is not in [0, ${count}) of topic '${topic}'`));
      return;
    }
    const alone = BatchLayout.RECORD_BATCH_OVERHEAD + recordSizeInBatch(0, 0n, record);
    if (alone > this.settings.maxRequestSize) {
      this.fail(
        [record],
        new KafkaError(
          ErrorCode.MESSAGE_TOO_LARGE,
          `a record of ${alone} bytes in its batch is larger than max.request.size ${this.settings.maxRequestSize}`,
        ),
      );
      return;
    }
    const result = this.accumulator.append(topic, partition, record, performance.now());
    this.bufferedBytes += result.sizeInBytes;
    if (result.batchIsFull && explicit === undefined && record.key === null && partition === state.stickyPartition) {
      state.stickyPartition = this.sticky.nextBatchPartition(count);
    }
    if (result.batchIsFull || result.newBatchCreated) this.schedulePass();
  }

  private refreshMetadata(topic: string, state: TopicState): void {
    if (state.refreshing) return;
    state.refreshing = true;
    withRetries(() => topicWithLeaders(this.cluster, topic, { allowAutoTopicCreation: true }), {
      deadline: Date.now() + this.settings.deliveryTimeoutMs,
    }).then(
      (metadata) => {
        state.refreshing = false;
        if (state.metadata === null) state.stickyPartition = this.sticky.nextBatchPartition(metadata.partitions.length);
        state.metadata = metadata;
        for (const w of state.waiting.splice(0)) this.append(topic, state, metadata, w.partition, w.record);
        this.schedulePass();
      },
      (err: unknown) => {
        state.refreshing = false;
        this.fail(
          state.waiting.splice(0).map((w) => w.record),
          asError(err),
        );
      },
    );
  }

  private readonly leaderOf = (topic: string, partition: number): number | undefined => {
    const leader = this.topics.get(topic)?.metadata?.partitions[partition]?.leaderId;
    return leader === undefined || leader < 0 ? undefined : leader;
  };

  private schedulePass(): void {
    if (this.passScheduled) return;
    this.passScheduled = true;
    // setImmediate, not a microtask: records appended in the same turn join the batch first.
    setImmediate(() => {
      this.passScheduled = false;
      this.sendReady();
    });
  }

  /** Kafka's `Sender.sendProducerData`: ready leaders with room in flight get one request each. */
  private sendReady(): void {
    const now = performance.now();
    const force = this.flushing > 0 || this.bufferWaiters.length > 0;
    const check = this.accumulator.ready(now, this.leaderOf, force);
    for (const topic of check.unknownLeaderTopics) this.refreshMetadata(topic, this.topicState(topic));
    const sendable = [...check.readyNodes].filter((node) => (this.inFlight.get(node) ?? 0) < this.settings.maxInFlight);
    for (const [node, batches] of this.accumulator.drain(sendable, this.leaderOf, this.settings.maxRequestSize, now))
      this.sendRequest(node, batches);
    this.armTimer(now, check.nextCheckDelayMs);
  }

  private armTimer(now: number, delayMs: number): void {
    if (!Number.isFinite(delayMs)) return;
    const due = now + delayMs;
    if (this.timer !== null && this.timerDue <= due) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.timerDue = Number.POSITIVE_INFINITY;
        this.sendReady();
      },
      Math.max(1, Math.ceil(delayMs)),
    );
  }

  private sendRequest(node: number, batches: ProducerBatch[]): void {
    this.inFlight.set(node, (this.inFlight.get(node) ?? 0) + 1);
    this.counters.requests++;
    const now = BigInt(Date.now());
    const byTopic = new Map<string, { topic: TopicMetadata; batches: Array<readonly [number, ReturnType<typeof encodeBatch>]> }>();
    const encoded = new Map<ProducerBatch, number>();
    for (const batch of batches) {
      const metadata = this.topics.get(batch.topic)!.metadata!;
      const bytes = encodeBatch(batch.records, this.settings.compression, now);
      if (this.settings.compression !== CompressionType.None) {
        this.accumulator.observeCompression(
          batch.topic,
          (bytes.bytes.length - BatchLayout.RECORD_BATCH_OVERHEAD) / Math.max(1, batch.sizeInBytes),
        );
      }
      encoded.set(batch, bytes.bytes.length);
      let entry = byTopic.get(batch.topic);
      if (entry === undefined) {
        entry = { topic: metadata, batches: [] };
        byTopic.set(batch.topic, entry);
      }
      entry.batches.push([batch.partition, bytes]);
    }
    const request: TopicBatches[] = [...byTopic.values()];
    this.cluster
      .nodeConnection(node)
      .then((connection) => producePartitions(connection, request, { acks: this.settings.acks, ackTimeoutMs: this.settings.ackTimeoutMs }))
      .then(
        (outcome) => this.complete(batches, encoded, outcome),
        (error: unknown) =>
          this.complete(batches, encoded, {
            appended: [],
            failures: batches.map((b) => ({ topic: b.topic, partition: b.partition, error })),
          }),
      )
      .finally(() => {
        this.inFlight.set(node, this.inFlight.get(node)! - 1);
        this.schedulePass();
      });
  }

  private complete(batches: readonly ProducerBatch[], encodedBytes: ReadonlyMap<ProducerBatch, number>, outcome: LeaderOutcome): void {
    const now = performance.now();
    const find = (topic: string, partition: number): ProducerBatch | undefined =>
      batches.find((b) => b.topic === topic && b.partition === partition);
    for (const a of outcome.appended) {
      const batch = find(a.topic, a.partition);
      if (batch === undefined) continue;
      this.counters.batches++;
      this.counters.batchBytes += encodedBytes.get(batch)!;
      this.counters.uncompressedRecordBytes += batch.sizeInBytes;
      this.counters.acknowledgedRecords += batch.records.length;
      batch.records.forEach((r, i) => {
        const offset = a.baseOffset < 0n ? a.baseOffset : a.baseOffset + BigInt(i);
        r.callback?.(null, { topic: batch.topic, partition: batch.partition, offset, latencyMs: now - r.sentAt });
      });
      this.release(batch);
    }
    for (const f of outcome.failures) {
      const batch = find(f.topic, f.partition);
      if (batch === undefined) continue;
      batch.attempts++;
      const withinDeadline = now + this.settings.retryBackoffMs < batch.createdAt + this.settings.deliveryTimeoutMs;
      if (isRetriable(f.error) && withinDeadline && !this.closed) {
        this.counters.retries++;
        // The leader may have moved: ask again, and keep the batch at the head of its partition's queue.
        this.refreshMetadata(batch.topic, this.topicState(batch.topic));
        this.accumulator.reenqueue(batch, now, this.settings.retryBackoffMs);
        continue;
      }
      this.fail(batch.records, asError(f.error));
      this.release(batch, false);
    }
  }

  /** A batch is done: its bytes leave the buffer and its records the outstanding count. */
  private release(batch: ProducerBatch, countRecords = true): void {
    this.bufferedBytes -= batch.sizeInBytes;
    if (countRecords) this.settle(batch.records.length);
    if (this.hasBufferSpace) for (const wake of this.bufferWaiters.splice(0)) wake();
  }

  private fail(records: readonly QueuedRecord[], error: Error): void {
    this.counters.failedRecords += records.length;
    for (const r of records) r.callback?.(error, null);
    this.settle(records.length);
  }

  private settle(records: number): void {
    this.outstanding -= records;
    if (this.outstanding === 0) for (const wake of this.idleWaiters.splice(0)) wake();
  }
}

function positive(value: number, name: string): number {
  if (!(Number.isInteger(value) && value > 0)) throw new RangeError(`${name} must be a positive integer, not ${value}`);
  return value;
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
