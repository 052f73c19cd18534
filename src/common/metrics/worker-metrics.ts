/**
 * A partition worker's instruments, kept in the worker thread on a registry of its own: appends
 * (Kafka's appends per second is their rate), flush and maintenance times, and how many
 * partitions and segments the worker owns. The main thread pulls `snapshot()` through the
 * METRICS partition command when `/metrics` is scraped and merges every worker's snapshot with
 * prom-client's `AggregatorRegistry.aggregate` (`scrape.ts`): counters and histograms without a
 * `worker` label add up across workers, series with one stay per worker.
 *
 * Pulling on scrape, rather than pushing, keeps the worker's hot path to a few additions and
 * costs nothing between scrapes. Updates are per append (one batch) or per maintenance pass.
 */
import { Counter, Gauge, Histogram, Registry } from './prom-client-core.js';

const FLUSH_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** What a worker answers to METRICS: prom-client's JSON form of its registry. */
export type WorkerMetricsSnapshot = readonly object[];

/** What the worker owns right now, counted when a snapshot is taken. */
export interface WorkerInventory {
  readonly partitions: number;
  readonly segments: number;
}

export class WorkerMetrics {
  private readonly registry = new Registry();
  private readonly labels: { readonly worker: string };

  private readonly appends = new Counter({
    name: 'sluice_worker_appends_total',
    help: 'Record batches appended to partition logs by this worker (rate = appends per second).',
    labelNames: ['worker'],
    registers: [this.registry],
  });
  private readonly appendedBytes = new Counter({
    name: 'sluice_worker_appended_bytes_total',
    help: 'Record batch bytes appended to partition logs by this worker.',
    labelNames: ['worker'],
    registers: [this.registry],
  });
  private readonly flushSeconds = new Histogram({
    name: 'sluice_log_flush_seconds',
    help: 'Appends that flushed their log because it reached flush.messages: time of the append, fsync included (Kafka LogFlushRateAndTimeMs).',
    buckets: FLUSH_BUCKETS,
    registers: [this.registry],
  });
  private readonly maintenanceSeconds = new Histogram({
    name: 'sluice_log_maintenance_seconds',
    help: "Periodic maintenance passes over a worker's logs: fsync of rolled segments and flush.ms flushes, retention, delayed deletions, compaction scheduling.",
    buckets: FLUSH_BUCKETS,
    registers: [this.registry],
  });
  private readonly partitions = new Gauge({
    name: 'sluice_worker_partitions',
    help: 'Partition logs owned by the worker.',
    labelNames: ['worker'],
    registers: [this.registry],
  });
  private readonly segments = new Gauge({
    name: 'sluice_worker_segments',
    help: 'Log segments of the partitions owned by the worker.',
    labelNames: ['worker'],
    registers: [this.registry],
  });

  constructor(workerIndex: number) {
    this.labels = { worker: String(workerIndex) };
    // Present from the start, so a scrape shows 0 rather than nothing before the first append.
    this.appends.inc(this.labels, 0);
    this.appendedBytes.inc(this.labels, 0);
  }

  /** One batch of `bytes` appended in `seconds`; `flushed` when the append also flushed the log. */
  appended(bytes: number, seconds: number, flushed: boolean): void {
    this.appends.inc(this.labels);
    this.appendedBytes.inc(this.labels, bytes);
    if (flushed) this.flushSeconds.observe(seconds);
  }

  maintained(seconds: number): void {
    this.maintenanceSeconds.observe(seconds);
  }

  async snapshot(inventory: WorkerInventory): Promise<WorkerMetricsSnapshot> {
    this.partitions.set(this.labels, inventory.partitions);
    this.segments.set(this.labels, inventory.segments);
    return this.registry.getMetricsAsJSON();
  }
}
