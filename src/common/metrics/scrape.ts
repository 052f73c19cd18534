/**
 * One scrape of `/metrics`: the main thread's instruments (`broker-metrics.ts`), the process
 * metrics prom-client collects by default (RSS, CPU, heap, event loop lag, GC), the occupancy of
 * every worker's rings, and the workers' own metrics pulled at scrape time and merged by
 * prom-client's `AggregatorRegistry.aggregate` — the merge prom-client offers for Node cluster
 * workers, fed here by the partition-worker METRICS command instead of cluster IPC.
 */
import { AggregatorRegistry, Gauge, Registry, collectDefaultMetrics, type PrometheusContentType } from 'prom-client';
import type { WorkerMetricsSnapshot } from './worker-metrics.js';

/** One ring of one worker, read at scrape time (main → worker commands, worker → main replies). */
export interface RingOccupancy {
  readonly worker: number;
  readonly direction: 'commands' | 'replies';
  readonly usedBytes: number;
  readonly capacityBytes: number;
}

export interface ScrapeSources {
  /** The main thread's instruments. */
  readonly broker: Registry;
  /** Every worker's snapshot; a worker that cannot answer is left out rather than failing the scrape. */
  workerSnapshots(): Promise<readonly WorkerMetricsSnapshot[]>;
  rings(): readonly RingOccupancy[];
}

export class MetricsScraper {
  /** Process metrics and ring gauges: owned by this scraper, so two brokers in one process do not collide. */
  private readonly local = new Registry();

  constructor(private readonly sources: ScrapeSources) {
    collectDefaultMetrics({ register: this.local });
    const rings = (pick: (r: RingOccupancy) => number) =>
      function collect(this: Gauge<'worker' | 'direction'>): void {
        this.reset();
        for (const r of sources.rings()) this.set({ worker: String(r.worker), direction: r.direction }, pick(r));
      };
    new Gauge({
      name: 'sluice_worker_ring_used_bytes',
      help: 'Bytes in use in a worker ring (written, not yet consumed), by worker and direction.',
      labelNames: ['worker', 'direction'],
      registers: [this.local],
      collect: rings((r) => r.usedBytes),
    });
    new Gauge({
      name: 'sluice_worker_ring_capacity_bytes',
      help: 'Data capacity of a worker ring, by worker and direction.',
      labelNames: ['worker', 'direction'],
      registers: [this.local],
      collect: rings((r) => r.capacityBytes),
    });
  }

  get contentType(): string {
    return this.local.contentType;
  }

  /** The exposition text of everything above. */
  async render(): Promise<string> {
    const workers = AggregatorRegistry.aggregate<PrometheusContentType>([...(await this.sources.workerSnapshots())]);
    return Registry.merge([this.sources.broker, this.local, workers]).metrics();
  }
}
