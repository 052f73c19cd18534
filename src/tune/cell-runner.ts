/**
 * One cell of the sweep: a fresh `BatchingProducer` with the cell's `batch.size` and
 * `linger.ms` sends fixed-size records for a fixed time — flat out (as fast as its buffer
 * memory allows) or at a target rate — then flushes. Throughput counts acknowledged records over
 * the time from the first send to the last acknowledgement, as Kafka's ProducerPerformance does;
 * latency is per record, `send()` to acknowledgement.
 */
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { KafkaCluster } from '../client/cluster.js';
import { BatchingProducer } from '../client/index.js';
import type { Acks } from '../client/producer-request.js';
import type { CompressionType } from '../protocol/records/index.js';
import { LatencySamples, type LatencySummary } from './latency-samples.js';

export interface LoadSettings {
  readonly topic: string;
  readonly recordSize: number;
  readonly seconds: number;
  /** Records per second; null sends flat out. */
  readonly targetRate: number | null;
  readonly acks: Acks;
  readonly compression: CompressionType;
  readonly maxInFlight: number;
}

export interface CellMeasurement {
  readonly acknowledgedRecords: number;
  readonly failedRecords: number;
  /** The first failure's message, if any record failed. */
  readonly firstError: string | null;
  readonly elapsedSeconds: number;
  readonly recordsPerSecond: number;
  /** Record payload bytes per second, in MiB (ProducerPerformance's "MB/sec"). */
  readonly mbPerSecond: number;
  readonly latency: LatencySummary;
  /** From the producer's own accounting of acknowledged batches. */
  readonly batches: number;
  readonly requests: number;
  readonly recordsPerBatch: number;
  /** Encoded (compressed, if so) batch bytes per batch, header included. */
  readonly bytesPerBatch: number;
  readonly batchesPerRequest: number;
}

/** How many records a flat-out sender queues before it lets the event loop (and the sender pass) run. */
const FLAT_OUT_CHUNK = 256;
/** A rate-limited sender catches up on its schedule this often. */
const RATE_TICK_MS = 1;

export async function runCell(cluster: KafkaCluster, load: LoadSettings, batchSize: number, lingerMs: number): Promise<CellMeasurement> {
  const producer = new BatchingProducer(cluster, {
    batchSize,
    lingerMs,
    acks: load.acks,
    compression: load.compression,
    maxInFlight: load.maxInFlight,
  });
  const value = payload(load.recordSize);
  const latencies = new LatencySamples();
  let failed = 0;
  let firstError: string | null = null;
  const onDelivery = (error: Error | null, delivery: { readonly latencyMs: number } | null): void => {
    if (delivery !== null) latencies.add(delivery.latencyMs);
    else {
      failed++;
      firstError ??= error?.message ?? 'unknown error';
    }
  };
  const start = performance.now();
  const end = start + load.seconds * 1000;
  let sent = 0;
  while (performance.now() < end && firstError === null) {
    const due = load.targetRate === null ? sent + FLAT_OUT_CHUNK : Math.floor(((performance.now() - start) / 1000) * load.targetRate);
    while (sent < due && producer.hasBufferSpace) {
      producer.send(load.topic, { key: null, value }, onDelivery);
      sent++;
    }
    if (!producer.hasBufferSpace) await producer.bufferSpace();
    else if (load.targetRate === null) await nextTurn();
    else await sleep(RATE_TICK_MS);
  }
  await producer.close();
  const elapsedSeconds = (performance.now() - start) / 1000;
  const stats = producer.stats();
  return {
    acknowledgedRecords: stats.acknowledgedRecords,
    failedRecords: failed,
    firstError,
    elapsedSeconds,
    recordsPerSecond: stats.acknowledgedRecords / elapsedSeconds,
    mbPerSecond: (stats.acknowledgedRecords * load.recordSize) / elapsedSeconds / (1024 * 1024),
    latency: latencies.summary(),
    batches: stats.batches,
    requests: stats.requests,
    recordsPerBatch: ratio(stats.acknowledgedRecords, stats.batches),
    bytesPerBatch: ratio(stats.batchBytes, stats.batches),
    batchesPerRequest: ratio(stats.batches, stats.requests),
  };
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
