/**
 * A driver's answer for one run as the sweep's figures: throughput as ProducerPerformance counts
 * it (acknowledged records over the time from the first send to the last acknowledgement),
 * latency percentiles from the histograms, and the client's own metrics, with the batch figures
 * every client can state under common names: batches, records per batch, bytes per batch.
 * librdkafka's metrics come from its statistics JSON; Java's and Sluice's from the result line.
 */
import type { ClientName } from './client-drivers.js';
import { summarizeHistogram } from './driver-protocol.js';
import type { DriverRunOutcome } from './driver-process.js';
import type { LatencySummary } from './latency-samples.js';
import { LibrdkafkaStats } from './librdkafka-stats.js';

export interface CellMeasurement {
  readonly sentRecords: number;
  readonly acknowledgedRecords: number;
  readonly failedRecords: number;
  /** The first failure's message, if any record failed. */
  readonly firstError: string | null;
  readonly elapsedSeconds: number;
  readonly recordsPerSecond: number;
  /** Record payload bytes per second, in MiB (ProducerPerformance's "MB/sec"). */
  readonly mbPerSecond: number;
  /** Send → acknowledgement, from each record's intended send time. */
  readonly latency: LatencySummary;
  /** Produce → consume, from each record's intended send time; null when not measured. */
  readonly endToEnd: LatencySummary | null;
  readonly consumedRecords: number;
  /** The client's own count of the batches it sent, and their mean records and bytes (NaN if it does not say). */
  readonly batches: number;
  readonly recordsPerBatch: number;
  readonly bytesPerBatch: number;
  /** The client's metrics by its own names (Java: `batch-size-avg`, `record-queue-time-avg`, …; librdkafka: `rtt-avg-us`, …). */
  readonly clientMetrics: Readonly<Record<string, number>>;
}

/** Where each client states a batch's bytes. */
const BATCH_BYTES_METRIC: Record<ClientName, string> = { java: 'batch-size-avg', librdkafka: 'batchsize-avg', sluice: 'batch-size-avg' };

export function measurementOf(client: ClientName, topic: string, outcome: DriverRunOutcome, recordSize: number): CellMeasurement {
  const { result } = outcome;
  let metrics: Record<string, number> = { ...result.metrics };
  if (client === 'librdkafka') {
    const stats = new LibrdkafkaStats(topic);
    for (const json of outcome.stats) stats.add(json);
    metrics = { ...metrics, ...stats.metrics() };
  }
  const elapsed = result.elapsedSeconds;
  const rate = elapsed > 0 ? result.acknowledged / elapsed : Number.NaN;
  return {
    sentRecords: result.sent,
    acknowledgedRecords: result.acknowledged,
    failedRecords: result.failed,
    firstError: result.firstError,
    elapsedSeconds: elapsed,
    recordsPerSecond: rate,
    mbPerSecond: (rate * recordSize) / (1024 * 1024),
    latency: summarizeHistogram(result.sendAckUs),
    endToEnd: result.endToEndUs === null ? null : summarizeHistogram(result.endToEndUs),
    consumedRecords: result.consumed,
    batches: metrics['batches'] ?? Number.NaN,
    recordsPerBatch: metrics['records-per-batch'] ?? Number.NaN,
    bytesPerBatch: metrics[BATCH_BYTES_METRIC[client]] ?? Number.NaN,
    clientMetrics: metrics,
  };
}
