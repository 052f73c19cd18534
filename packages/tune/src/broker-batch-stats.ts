/**
 * The broker's own view of the batching, from its Prometheus `/metrics` (Sluice:
 * `metrics.listener`, names in docs/design/metrics.md): scraped before and after a cell, the
 * histograms' difference is what that cell's traffic did. The histograms are broker-wide, so
 * other producers on the same broker during a cell count too.
 */
import { histogramDelta, histogramFrom, histogramMean, histogramQuantile, type Histogram } from './prometheus-histogram.js';
import { parsePrometheusText, type MetricsScrape } from './prometheus-text.js';

export const BROKER_BATCH_HISTOGRAMS = {
  batchBytes: 'sluice_produce_batch_size_bytes',
  batchRecords: 'sluice_produce_batch_records',
  requestBatches: 'sluice_produce_request_batches',
} as const;

export interface BrokerBatchStats {
  /** Batches appended during the cell. */
  readonly batches: number;
  readonly meanBatchBytes: number;
  /** Interpolated within the broker's buckets (4x apart): a rough figure, unlike the mean. */
  readonly p50BatchBytes: number;
  readonly meanRecordsPerBatch: number;
  readonly p50RecordsPerBatch: number;
  readonly produceRequests: number;
  readonly meanBatchesPerRequest: number;
}

export async function scrapeMetrics(url: string, timeoutMs = 5_000): Promise<MetricsScrape> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status} ${res.statusText}`);
  return parsePrometheusText(await res.text());
}

/** Null when the broker does not export the batch histograms (another broker, or an older Sluice). */
export function brokerBatchStats(before: MetricsScrape, after: MetricsScrape): BrokerBatchStats | null {
  const delta = (name: string): Histogram | null => {
    const later = histogramFrom(after, name);
    return later === null ? null : histogramDelta(histogramFrom(before, name), later);
  };
  const bytes = delta(BROKER_BATCH_HISTOGRAMS.batchBytes);
  const records = delta(BROKER_BATCH_HISTOGRAMS.batchRecords);
  const requests = delta(BROKER_BATCH_HISTOGRAMS.requestBatches);
  if (bytes === null || records === null) return null;
  return {
    batches: bytes.count,
    meanBatchBytes: histogramMean(bytes),
    p50BatchBytes: histogramQuantile(bytes, 0.5),
    meanRecordsPerBatch: histogramMean(records),
    p50RecordsPerBatch: histogramQuantile(records, 0.5),
    produceRequests: requests?.count ?? Number.NaN,
    meanBatchesPerRequest: requests === null ? Number.NaN : histogramMean(requests),
  };
}
