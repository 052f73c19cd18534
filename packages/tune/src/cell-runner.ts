/**
 * One run of `sluice tune --client sluice`: a fresh `BatchingProducer` with the cell's
 * properties sends fixed-size records for a fixed time — flat out (as fast as its buffer memory
 * allows) or on a fixed-rate schedule — then flushes, answering as any driver does
 * (`driver-protocol.ts`). Latency runs from each record's intended send time; the end-to-end
 * consumer reads over its own connections, since a broker answers one connection's requests in
 * order and a fetch's long poll would hold the producer's requests back.
 */
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { KafkaCluster } from '@sluice/client/cluster.js';
import { KafkaConsumerClient, type ConsumerOptions, type Positions } from '@sluice/client/consumer-client.js';
import { BatchingProducer, type BatchingProducerOptions } from '@sluice/client/producer-batching.js';
import { HistogramRecorder, TIMESTAMP_BYTES, type DriverResult, type DriverRun } from './driver-protocol.js';

/** How many records a flat-out sender queues before it lets the event loop (and the sender pass) run. */
const FLAT_OUT_CHUNK = 256;
/** A rate-limited sender catches up on its schedule this often. */
const RATE_TICK_MS = 1;
/** How long the end-to-end consumer may take, after the flush, to see every record. */
const DRAIN_MS = 10_000;
/** The end-to-end consumer's long poll unless its properties say otherwise: short, as records arrive all the time. */
const CONSUMER_MAX_WAIT_MS = 100;

export interface SluiceRunContext {
  readonly producerCluster: KafkaCluster;
  /** Separate connections for the end-to-end consumer. */
  readonly consumerCluster: KafkaCluster;
  readonly topic: string;
  readonly producer: BatchingProducerOptions;
  /** The end-to-end consumer's fetch settings (`--consumer-config`). */
  readonly consumer: ConsumerOptions;
}

export async function runSluiceCell(context: SluiceRunContext, run: DriverRun): Promise<DriverResult> {
  // Connections and metadata first, as a long-running producer has them: the first send must not wait for them.
  await context.producerCluster.metadata([context.topic]);
  const producer = new BatchingProducer(context.producerCluster, context.producer);
  const consumer = run.endToEnd ? await EndToEndConsumer.start(context.consumerCluster, context.topic, context.consumer) : null;
  const template = payload(run.recordSize);
  const sendAck = new HistogramRecorder();
  let failed = 0;
  let firstError: string | null = null;
  let lastAck = 0;
  const start = performance.now();
  const end = start + run.seconds * 1000;
  let sent = 0;
  const send = (intended: number): void => {
    const value = Buffer.from(template);
    value.writeBigInt64BE(BigInt(Math.round(intended * 1e6)), 0);
    producer.send(context.topic, { key: null, value }, (error, delivery) => {
      const at = performance.now();
      if (delivery !== null) {
        sendAck.record((at - intended) * 1000);
        lastAck = Math.max(lastAck, at);
      } else {
        failed++;
        firstError ??= error?.message ?? 'unknown error';
      }
    });
  };
  // On a schedule every slot before the end is sent, late or not (as the Java and C drivers do); flat out, until the end.
  const scheduled = run.targetRate === null ? Number.POSITIVE_INFINITY : Math.ceil(run.seconds * run.targetRate);
  while ((run.targetRate === null ? performance.now() < end : sent < scheduled) && firstError === null) {
    const now = performance.now();
    const due = run.targetRate === null ? sent + FLAT_OUT_CHUNK : Math.min(Math.ceil(((now - start) / 1000) * run.targetRate), scheduled);
    while (sent < due && producer.hasBufferSpace) {
      send(run.targetRate === null ? performance.now() : start + (sent * 1000) / run.targetRate);
      sent++;
    }
    if (!producer.hasBufferSpace) await producer.bufferSpace();
    else if (run.targetRate === null) await nextTurn();
    else await sleep(RATE_TICK_MS);
  }
  await producer.close();
  const stats = producer.stats();
  const consumed = consumer === null ? null : await consumer.finish(stats.acknowledgedRecords);
  return {
    id: run.id,
    sent,
    acknowledged: stats.acknowledgedRecords,
    failed,
    firstError,
    elapsedSeconds: (Math.max(lastAck, start) - start) / 1000,
    sendAckUs: sendAck.toJSON(),
    consumed: consumed?.count ?? 0,
    endToEndUs: consumed?.latency ?? null,
    metrics: {
      batches: stats.batches,
      requests: stats.requests,
      'records-per-batch': ratio(stats.acknowledgedRecords, stats.batches),
      'batch-size-avg': ratio(stats.batchBytes, stats.batches),
      retries: stats.retries,
    },
  };
}

/** Reads every partition from its end when the run starts until stopped, timing each record from the send time it carries. */
class EndToEndConsumer {
  private readonly latency = new HistogramRecorder();
  private count = 0;
  private stopped = false;
  private readonly loop: Promise<void>;

  private constructor(
    private readonly client: KafkaConsumerClient,
    private readonly positions: Positions,
  ) {
    this.loop = this.consume();
  }

  static async start(cluster: KafkaCluster, topic: string, options: ConsumerOptions): Promise<EndToEndConsumer> {
    const client = new KafkaConsumerClient(cluster, topic, { maxWaitMs: CONSUMER_MAX_WAIT_MS, ...options });
    const partitions = (await client.partitions()).partitions.map((p) => p.partition);
    return new EndToEndConsumer(client, await client.listOffsets(partitions, 'latest'));
  }

  async finish(expected: number): Promise<{ readonly count: number; readonly latency: Array<[number, number]> }> {
    const deadline = performance.now() + DRAIN_MS;
    while (this.count < expected && performance.now() < deadline) await sleep(5);
    this.stopped = true;
    await this.loop;
    return { count: this.count, latency: this.latency.toJSON() };
  }

  private async consume(): Promise<void> {
    while (!this.stopped) {
      for (const record of await this.client.fetch(this.positions)) {
        const at = performance.now();
        if (record.value === null || record.value.length < TIMESTAMP_BYTES) continue;
        this.latency.record((at - Number(record.value.readBigInt64BE(0)) / 1e6) * 1000);
        this.count++;
      }
    }
  }
}

/** ProducerPerformance's payload: random upper-case letters, so compression sees text-like data. */
function payload(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = 65 + Math.floor(Math.random() * 26);
  return bytes;
}

function ratio(a: number, b: number): number {
  return b > 0 ? a / b : Number.NaN;
}
