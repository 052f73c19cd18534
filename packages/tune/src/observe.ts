/**
 * `sluice tune --observe`: how one running producer batches, from the broker's per-client produce
 * metrics (`sluice_client_produce_*`, see `common/metrics/client-produce-metrics.ts`) scraped at
 * the start and the end of a window: the difference is what that client id's Produce requests did
 * in it. The producer is not touched. A broker without those metrics (Apache Kafka, whose per-client
 * batch statistics live only in the producer, or a Sluice with `metrics.producer.clients.max=0`)
 * leaves only what the Kafka protocol shows: the topic's records appended, by every producer.
 */
import { CLIENT_PRODUCE_METRICS as M, CODEC_NAMES } from '@sluice/protocol/metrics/client-produce-metric-names.js';
import { histogramDelta, histogramFrom, histogramMean, histogramQuantile, labelsMatch, type Histogram } from './prometheus-histogram.js';
import type { MetricsScrape } from './prometheus-text.js';
import { formatBytes, formatCount, formatMs } from './units.js';

export interface Distribution {
  readonly mean: number;
  /** Interpolated within the broker's buckets, as PromQL's `histogram_quantile`. */
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
}

export interface ClientBatching {
  readonly clientId: string;
  readonly seconds: number;
  readonly requests: number;
  readonly batches: number;
  readonly records: number;
  readonly bytes: number;
  readonly recordsPerBatch: Distribution;
  readonly bytesPerBatch: Distribution;
  readonly batchesPerRequest: number;
  /** Last minus first record CreateTime of a batch, ms: how long the producer filled it. */
  readonly fillMs: Distribution;
  /** Arrival minus the first record's CreateTime, ms: linger, queueing and network. */
  readonly ageMs: Distribution;
  /** Batches by codec name; codecs without batches left out. */
  readonly compression: Readonly<Record<string, number>>;
  /** Uncompressed ÷ compressed bytes of the sampled batches; null without a sample. */
  readonly compressionRatio: number | null;
  readonly sampledBytes: number;
}

export type Observation =
  | { readonly kind: 'observed'; readonly batching: ClientBatching }
  /** The broker has the metrics but saw nothing of this client id in the window. */
  | { readonly kind: 'idle'; readonly clientId: string; readonly seconds: number; readonly otherClients: readonly string[] }
  /** No per-client produce metrics to read, and why. */
  | { readonly kind: 'unsupported'; readonly reason: string };

/** What the broker's per-client produce metrics say `clientId` did between the two scrapes. */
export function observeClient(before: MetricsScrape, after: MetricsScrape, clientId: string, seconds: number): Observation {
  if (!after.types.has(M.batchRecords)) return { kind: 'unsupported', reason: 'the metrics have no sluice_client_produce_* series' };
  const where = { client_id: clientId };
  const delta = (name: string): Histogram | null => {
    const later = histogramFrom(after, name, where);
    if (later === null) return null;
    // A client id evicted and back since the first scrape starts from zero: its counts are all in the window.
    const earlier = histogramFrom(before, name, where);
    return histogramDelta(earlier !== null && earlier.count <= later.count ? earlier : null, later);
  };
  const records = delta(M.batchRecords);
  if (records === null || records.count === 0) {
    const others = new Set(after.samples.filter((s) => s.name === `${M.batchRecords}_count`).map((s) => s.labels.get('client_id') ?? ''));
    others.delete(clientId);
    return { kind: 'idle', clientId, seconds, otherClients: [...others].sort() };
  }
  const bytes = delta(M.batchBytes)!;
  const requests = delta(M.requestBatches)!;
  const counter = (scrape: MetricsScrape, name: string, labels: Readonly<Record<string, string>>): number =>
    scrape.samples.filter((s) => s.name === name && labelsMatch(s.labels, { ...where, ...labels })).reduce((n, s) => n + s.value, 0);
  const counterDelta = (name: string, labels: Readonly<Record<string, string>> = {}): number => {
    const later = counter(after, name, labels);
    const earlier = counter(before, name, labels);
    return earlier <= later ? later - earlier : later;
  };
  const compression: Record<string, number> = {};
  for (const codec of CODEC_NAMES) {
    const n = counterDelta(M.batches, { compression: codec });
    if (n > 0) compression[codec] = n;
  }
  const compressed = counterDelta(M.sampledBytes, { form: 'compressed' });
  const uncompressed = counterDelta(M.sampledBytes, { form: 'uncompressed' });
  return {
    kind: 'observed',
    batching: {
      clientId,
      seconds,
      requests: requests.count,
      batches: records.count,
      records: records.sum,
      bytes: bytes.sum,
      recordsPerBatch: distribution(records),
      bytesPerBatch: distribution(bytes),
      batchesPerRequest: histogramMean(requests),
      fillMs: distribution(delta(M.batchSpan), 1000),
      ageMs: distribution(delta(M.batchAge), 1000),
      compression,
      compressionRatio: compressed > 0 ? uncompressed / compressed : null,
      sampledBytes: compressed,
    },
  };
}

function distribution(h: Histogram | null, scale = 1): Distribution {
  if (h === null || h.count === 0) return { mean: Number.NaN, p50: Number.NaN, p95: Number.NaN, p99: Number.NaN };
  return {
    mean: histogramMean(h) * scale,
    p50: histogramQuantile(h, 0.5) * scale,
    p95: histogramQuantile(h, 0.95) * scale,
    p99: histogramQuantile(h, 0.99) * scale,
  };
}

/** The topic's appended records over the window, from ListOffsets: every producer's, on any broker. */
export interface TopicRate {
  readonly topic: string;
  readonly records: number;
  readonly seconds: number;
}

/** The observation as the terminal shows it. */
export function formatObservation(o: Observation, topic: TopicRate | null): string {
  const lines: string[] = [];
  const perSecond = (n: number, seconds: number): string => `${formatCount(n / seconds)}/s`;
  if (o.kind === 'unsupported') {
    lines.push(
      `No broker-side view of the producer: ${o.reason}.`,
      'Apache Kafka keeps per-client batch statistics in the producer only',
      "(Java: the producer's batch-size-avg, records-per-request-avg, record-queue-time-avg over JMX; librdkafka: statistics.interval.ms JSON),",
      'and a Sluice broker exports them on its metrics.listener unless metrics.producer.clients.max=0.',
      'Not shown: records and bytes per batch, batches per request, fill time, batch age and compression of this client.',
    );
  } else if (o.kind === 'idle') {
    lines.push(`No Produce request from client id '${o.clientId}' reached the broker in ${o.seconds} s.`);
    if (o.otherClients.length > 0)
      lines.push(`Client ids the broker has seen producing: ${o.otherClients.map((c) => `'${c}'`).join(', ')}.`);
  } else {
    const b = o.batching;
    const dist = (d: Distribution, format: (v: number) => string): string =>
      `mean ${format(d.mean)}, p50 ~${format(d.p50)}, p95 ~${format(d.p95)}, p99 ~${format(d.p99)}`;
    const one = (v: number): string => (Number.isFinite(v) ? v.toFixed(1) : '–');
    lines.push(
      `client id '${b.clientId}', ${b.seconds} s, as the broker saw it:`,
      `  produce requests     ${formatCount(b.requests)} (${perSecond(b.requests, b.seconds)}), ${one(b.batchesPerRequest)} batches per request`,
      `  batches              ${formatCount(b.batches)} (${perSecond(b.batches, b.seconds)})`,
      `  records              ${formatCount(b.records)} (${perSecond(b.records, b.seconds)})`,
      `  records per batch    ${dist(b.recordsPerBatch, one)}`,
      `  bytes per batch      ${dist(b.bytesPerBatch, formatBytes)}`,
      `  batch fill time      ${dist(b.fillMs, formatMs)}  (last − first record CreateTime: the linger the batch got, at least)`,
      `  batch age at broker  ${dist(b.ageMs, formatMs)}  (arrival − first record CreateTime: linger, queueing, network, clock skew)`,
      `  compression          ${Object.entries(b.compression)
        .map(([codec, n]) => `${codec} ${formatCount(n)} batches`)
        .join(', ')}` +
        (b.compressionRatio === null ? '' : `; ratio ${b.compressionRatio.toFixed(2)} (sampled ${formatBytes(b.sampledBytes)} compressed)`),
      `  reading              ${reading(b)}`,
      '  (p-values interpolate within the broker histogram buckets; means are exact.)',
    );
  }
  if (topic !== null)
    lines.push(
      `topic '${topic.topic}': ${formatCount(topic.records)} records appended by all producers (${perSecond(topic.records, topic.seconds)}), from ListOffsets.`,
    );
  return `${lines.join('\n')}\n`;
}

/** One sentence on what the numbers suggest; deliberately conservative. */
function reading(b: ClientBatching): string {
  if (b.recordsPerBatch.mean < 1.5) {
    return 'about one record per batch: linger.ms is 0 or the rate is too low to fill batches; batching more means a larger linger.ms.';
  }
  if (b.fillMs.p50 < 1) {
    if (b.ageMs.p50 < 2)
      return 'batches fill in under a millisecond: they close on batch.size or as fast as the sender drains them; a larger batch.size raises records per batch.';
    return `each batch is filled at once (records come in bursts), then waits ~${formatMs(b.ageMs.p50)} (age p50) before it is sent: linger.ms or the send queue, not filling, is what its records wait for.`;
  }
  return `batches fill for ~${formatMs(b.fillMs.p50)} (p50): they close on linger.ms; a larger linger.ms trades latency for bigger batches.`;
}
