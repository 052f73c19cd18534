/**
 * Produce batches broken down by client id, so `sluice tune --observe` (or a dashboard) can see
 * how one running producer batches without touching it: records and bytes per batch, batches per
 * Produce request, how long the producer filled each batch (its last record's CreateTime minus
 * its first: a lower bound of the linger it got), how old the batch's first record was when the
 * broker received it (linger, send queue and network, plus any clock skew), the compression codec
 * of its batches and, sampled, their compression ratio.
 *
 * Cardinality is bounded: at most `maxClients` client ids are tracked, least recently seen first
 * out, and an id idle for `idleMs` is dropped; a dropped id's series disappear at the next scrape
 * (and start from zero if it comes back, as a restarted exporter's would).
 *
 * The hot path is one Map lookup per Produce request and, per batch, a few additions into
 * preallocated arrays: no labels are hashed and nothing is allocated until a scrape turns the
 * counts into prom-client's JSON form (`snapshot()`), which `scrape.ts` merges like a worker's.
 * The compression ratio needs the batch decompressed: at most one batch per client per
 * `COMPRESSION_SAMPLE_INTERVAL_MS`, one at a time broker-wide, on the thread pool.
 */
import { CLIENT_PRODUCE_METRICS, CODEC_NAMES } from '@sluice/protocol/metrics/client-produce-metric-names.js';

/** Records per batch: the broker-wide histogram's buckets, so the two compare. */
export const CLIENT_BATCH_RECORDS_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];
/** 128 B … 8 MiB, two times apart: finer than the broker-wide 4x, for a per-client mean and median. */
export const CLIENT_BATCH_BYTES_BUCKETS = Array.from({ length: 17 }, (_, i) => 128 * 2 ** i);
export const CLIENT_REQUEST_BATCHES_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];
/** Milliseconds (exported in seconds); CreateTime has millisecond resolution, so 0 is its own bucket. */
export const CLIENT_BATCH_TIME_BUCKETS_MS = [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 30000];

export const COMPRESSION_SAMPLE_INTERVAL_MS = 1000;
/** The entry order is refreshed at most this often per client: LRU to within a second is plenty. */
const TOUCH_INTERVAL_MS = 1000;

export interface ClientProduceOptions {
  /** Most client ids tracked at once; 0 turns the breakdown off. */
  readonly maxClients: number;
  /** A client id not seen for this long is dropped. */
  readonly idleMs: number;
  /** The uncompressed size of a compressed records section (codec id 1..4), off the main thread; absent: no ratio. */
  readonly uncompressedSize?: (codec: number, records: Buffer) => Promise<number>;
  readonly clock?: () => number;
}

/** A histogram's counts per bucket (not cumulative; the last is +Inf), sum and count. */
export class BucketCounts {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

/** One client id's counts. */
export class ClientProduceStats {
  readonly records = new BucketCounts(CLIENT_BATCH_RECORDS_BUCKETS);
  readonly bytes = new BucketCounts(CLIENT_BATCH_BYTES_BUCKETS);
  readonly requestBatches = new BucketCounts(CLIENT_REQUEST_BATCHES_BUCKETS);
  readonly spanMs = new BucketCounts(CLIENT_BATCH_TIME_BUCKETS_MS);
  readonly ageMs = new BucketCounts(CLIENT_BATCH_TIME_BUCKETS_MS);
  /** Batches per codec id. */
  readonly batchesByCodec = new Float64Array(CODEC_NAMES.length);
  /** Records-section bytes of the sampled batches per codec, as sent and decompressed. */
  readonly sampledCompressed = new Float64Array(CODEC_NAMES.length);
  readonly sampledUncompressed = new Float64Array(CODEC_NAMES.length);
  nextSampleMs = 0;

  constructor(
    readonly clientId: string,
    public lastSeenMs: number,
  ) {}

  /**
   * One appended batch. `firstTimestamp`/`maxTimestamp` are the batch header's (ms), -1 when the
   * batch carries LogAppendTime or no timestamps; `receivedMs` is when its request arrived.
   */
  batch(bytes: number, records: number, codec: number, firstTimestamp: number, maxTimestamp: number, receivedMs: number): void {
    this.records.observe(records);
    this.bytes.observe(bytes);
    if (codec < this.batchesByCodec.length) this.batchesByCodec[codec]!++;
    if (firstTimestamp < 0) return;
    if (maxTimestamp >= firstTimestamp) this.spanMs.observe(maxTimestamp - firstTimestamp);
    // A producer clock ahead of the broker's would make it negative: such a batch arrived "at once".
    this.ageMs.observe(Math.max(0, receivedMs - firstTimestamp));
  }
}

export class ClientProduceMetrics {
  private readonly clients = new Map<string, ClientProduceStats>();
  private readonly clock: () => number;
  private evicted = 0;
  private sampling = false;

  constructor(private readonly options: ClientProduceOptions) {
    this.clock = options.clock ?? Date.now;
  }

  get enabled(): boolean {
    return this.options.maxClients > 0;
  }

  /** Client ids tracked now. */
  get size(): number {
    return this.clients.size;
  }

  /** One Produce request of `clientId` (null: the header had none) carrying `batches` partition batches; null when off. */
  request(clientId: string | null, batches: number): ClientProduceStats | null {
    if (this.options.maxClients <= 0) return null;
    const id = clientId ?? '';
    const now = this.clock();
    let stats = this.clients.get(id);
    if (stats === undefined) {
      this.expire(now);
      if (this.clients.size >= this.options.maxClients) this.evictOldest();
      stats = new ClientProduceStats(id, now);
      this.clients.set(id, stats);
    } else if (now - stats.lastSeenMs >= TOUCH_INTERVAL_MS) {
      // Re-inserting moves the id to the end: the Map's order is least recently seen first.
      this.clients.delete(id);
      this.clients.set(id, stats);
      stats.lastSeenMs = now;
    }
    stats.requestBatches.observe(batches);
    return stats;
  }

  /** Whether a compressed batch of this client should be decompressed to measure its ratio now. */
  sampleDue(stats: ClientProduceStats): boolean {
    return this.options.uncompressedSize !== undefined && !this.sampling && this.clock() >= stats.nextSampleMs;
  }

  /**
   * Measures one compressed records section (copied: the request's buffer is not held); the
   * sizes are added when the thread pool answers. A batch that fails to decompress is not counted.
   */
  sampleCompression(stats: ClientProduceStats, codec: number, records: Buffer): void {
    const measure = this.options.uncompressedSize;
    if (measure === undefined || codec <= 0 || codec >= CODEC_NAMES.length) return;
    this.sampling = true;
    stats.nextSampleMs = this.clock() + COMPRESSION_SAMPLE_INTERVAL_MS;
    const copy = Buffer.from(records);
    measure(codec, copy)
      .then(
        (uncompressed) => {
          stats.sampledCompressed[codec]! += copy.length;
          stats.sampledUncompressed[codec]! += uncompressed;
        },
        () => undefined,
      )
      .finally(() => {
        this.sampling = false;
      });
  }

  /** The counts in prom-client's JSON form (`Registry.getMetricsAsJSON()`), idle ids dropped first. */
  snapshot(): object[] {
    this.expire(this.clock());
    const all = [...this.clients.values()];
    const histogram = (name: string, help: string, pick: (s: ClientProduceStats) => BucketCounts, divisor = 1): object => ({
      name,
      help,
      type: 'histogram',
      aggregator: 'sum',
      values: all.flatMap((s) => histogramValues(name, { client_id: s.clientId }, pick(s), divisor)),
    });
    const perCodec = (s: ClientProduceStats, counts: Float64Array, labels: Record<string, string> = {}): object[] =>
      CODEC_NAMES.flatMap((compression, codec) =>
        counts[codec]! > 0 ? [{ labels: { client_id: s.clientId, compression, ...labels }, value: counts[codec]! }] : [],
      );
    return [
      histogram(CLIENT_PRODUCE_METRICS.batchRecords, 'Records in each appended produce batch, by client id.', (s) => s.records),
      histogram(CLIENT_PRODUCE_METRICS.batchBytes, 'Size of each appended produce batch in bytes, by client id.', (s) => s.bytes),
      histogram(
        CLIENT_PRODUCE_METRICS.requestBatches,
        'Partition batches carried by each Produce request, by client id.',
        (s) => s.requestBatches,
      ),
      histogram(
        CLIENT_PRODUCE_METRICS.batchSpan,
        'Last minus first record CreateTime of each appended batch, by client id: how long the producer filled it (a lower bound of its linger).',
        (s) => s.spanMs,
        1000,
      ),
      histogram(
        CLIENT_PRODUCE_METRICS.batchAge,
        "Broker receive time minus the batch's first record CreateTime, by client id: linger, send queue and network (and clock skew).",
        (s) => s.ageMs,
        1000,
      ),
      {
        name: CLIENT_PRODUCE_METRICS.batches,
        help: 'Appended produce batches by client id and compression codec.',
        type: 'counter',
        aggregator: 'sum',
        values: all.flatMap((s) => perCodec(s, s.batchesByCodec)),
      },
      {
        name: CLIENT_PRODUCE_METRICS.sampledBytes,
        help: 'Records-section bytes of the compressed batches sampled for the compression ratio (about one per client per second), as sent (form="compressed") and decompressed (form="uncompressed").',
        type: 'counter',
        aggregator: 'sum',
        values: all.flatMap((s) => [
          ...perCodec(s, s.sampledCompressed, { form: 'compressed' }),
          ...perCodec(s, s.sampledUncompressed, { form: 'uncompressed' }),
        ]),
      },
      {
        name: CLIENT_PRODUCE_METRICS.trackedClients,
        help: 'Client ids whose produce batches are broken down now.',
        type: 'gauge',
        aggregator: 'sum',
        values: [{ labels: {}, value: this.clients.size }],
      },
      {
        name: CLIENT_PRODUCE_METRICS.evictedClients,
        help: 'Client ids dropped because metrics.producer.clients.max were tracked (idle ones are not counted).',
        type: 'counter',
        aggregator: 'sum',
        values: [{ labels: {}, value: this.evicted }],
      },
    ];
  }

  private expire(now: number): void {
    for (const stats of this.clients.values()) {
      // Approximately least recently seen first (the order is refreshed once a second), so stop at the first live one.
      if (now - stats.lastSeenMs < this.options.idleMs) break;
      this.clients.delete(stats.clientId);
    }
  }

  private evictOldest(): void {
    const oldest = this.clients.keys().next();
    if (oldest.done === true) return;
    this.clients.delete(oldest.value);
    this.evicted++;
  }
}

/** A histogram's `_bucket` (cumulative, `le` in exported units), `_sum` and `_count` values. */
function histogramValues(name: string, labels: Record<string, string>, h: BucketCounts, divisor: number): object[] {
  const values: object[] = [];
  let cumulative = 0;
  h.bounds.forEach((bound, i) => {
    cumulative += h.counts[i]!;
    values.push({ labels: { ...labels, le: bound / divisor }, value: cumulative, metricName: `${name}_bucket` });
  });
  values.push({ labels: { ...labels, le: '+Inf' }, value: h.count, metricName: `${name}_bucket` });
  values.push({ labels, value: h.sum / divisor, metricName: `${name}_sum` });
  values.push({ labels, value: h.count, metricName: `${name}_count` });
  return values;
}
