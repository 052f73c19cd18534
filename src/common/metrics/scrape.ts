/**
 * One scrape of `/metrics`: the main thread's instruments (`broker-metrics.ts`), the process
 * metrics prom-client collects by default (RSS, CPU, heap, event loop lag, GC), the occupancy of
 * every worker's rings and the commands sent to them, the workers' own metrics pulled at scrape time and merged by
 * prom-client's `AggregatorRegistry.aggregate` — the merge prom-client offers for Node cluster
 * workers, fed here by the partition-worker METRICS command instead of cluster IPC — and the
 * consumer groups' lag, from the coordinators' committed offsets and the high watermarks the
 * same METRICS replies carry. The produce batches by client id join the workers' snapshots: they
 * are kept as plain counts and turned into the same JSON form only when scraped.
 */
import { AggregatorRegistry, Counter, Gauge, Registry, collectDefaultMetrics, type PrometheusContentType } from 'prom-client';
import type { Logger } from '../logger.js';
import { ConsumerLagMetrics } from './consumer-lag-metrics.js';
import { consumerGroupLag, partitionsToMeasure, type GroupOffset, type PartitionEnd } from './consumer-lag.js';
import type { WorkerMetricsSnapshot } from './worker-metrics.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

/**
 * One ring of one worker, read at scrape time: main → worker commands on the ordered lane
 * (`commands`) and the priority lane (`priority`), worker → main replies.
 */
export interface RingOccupancy {
  readonly worker: number;
  readonly direction: 'commands' | 'priority' | 'replies';
  readonly usedBytes: number;
  readonly capacityBytes: number;
}

/**
 * The commands the main thread has sent to the partition workers since start, by op (its
 * declared name, or its number for a raw op) and kind: `request` (a round trip) or `post`
 * (one-way, no reply).
 */
export interface WorkerCommandCount {
  readonly op: string;
  readonly kind: 'request' | 'post';
  readonly count: number;
}

/** What the workers answer to one scrape. */
export interface WorkerScrape {
  readonly snapshots: readonly WorkerMetricsSnapshot[];
  /** The high watermarks asked for, of the partitions that are hosted. */
  readonly ends: readonly PartitionEnd[];
}

export interface ScrapeSources {
  /** The main thread's instruments. */
  readonly broker: Registry;
  /**
   * Every worker's snapshot, with the high watermarks of `ends` (one request per worker); a
   * worker that cannot answer is left out rather than failing the scrape.
   */
  workers(ends: readonly TopicPartition[]): Promise<WorkerScrape>;
  rings(): readonly RingOccupancy[];
  /** The commands sent to the workers so far (`PartitionWorkerHost.commandCounts`). */
  readonly commands?: () => readonly WorkerCommandCount[];
  /** How many partition workers have started (the others start on their first request). */
  workersStarted?: () => number;
  /** Every group's committed offsets. */
  committedOffsets(): Promise<readonly GroupOffset[]>;
  /** The produce batches by client id (`ClientProduceMetrics.snapshot()`), in prom-client's JSON form as a worker's. */
  clientProduce?(): readonly object[];
}

export interface ScrapeOptions {
  /** `metrics.consumergroup.lag.max.partitions`: above this many group partitions, lag is exported per topic only. */
  readonly maxLagPartitions: number;
  readonly log: Logger;
}

export class MetricsScraper {
  /** Process metrics, ring and lag gauges: owned by this scraper, so two brokers in one process do not collide. */
  private readonly local = new Registry();
  private readonly lag: ConsumerLagMetrics;

  constructor(
    private readonly sources: ScrapeSources,
    options: ScrapeOptions,
  ) {
    collectDefaultMetrics({ register: this.local });
    this.lag = new ConsumerLagMetrics(this.local, options.maxLagPartitions, options.log);
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
    const commands = sources.commands;
    if (commands !== undefined) {
      new Counter({
        name: 'sluice_worker_commands_total',
        help: 'Commands sent from the main thread to the partition workers, by op and kind (request: a round trip; post: one-way).',
        labelNames: ['op', 'kind'],
        registers: [this.local],
        collect(this: Counter<'op' | 'kind'>) {
          this.reset();
          for (const c of commands()) this.inc({ op: c.op, kind: c.kind }, c.count);
        },
      });
    }
    const workersStarted = sources.workersStarted;
    if (workersStarted !== undefined) {
      new Gauge({
        name: 'sluice_partition_workers_started',
        help: 'Partition workers whose thread has started; the others start on the first request routed to them.',
        registers: [this.local],
        collect(this: Gauge) {
          this.set(workersStarted());
        },
      });
    }
  }

  get contentType(): string {
    return this.local.contentType;
  }

  /** The exposition text of everything above. */
  async render(): Promise<string> {
    // Commits first, ends after: a high watermark read later is never behind the commit it is
    // compared with, so a commit racing the scrape can overstate lag a little, never understate it.
    const committed = await this.sources.committedOffsets();
    const workers = await this.sources.workers(partitionsToMeasure(committed));
    this.lag.update(consumerGroupLag(committed, workers.ends));
    const snapshots = this.sources.clientProduce === undefined ? workers.snapshots : [...workers.snapshots, this.sources.clientProduce()];
    const workerMetrics = AggregatorRegistry.aggregate<PrometheusContentType>([...snapshots]);
    return Registry.merge([this.sources.broker, this.local, workerMetrics]).metrics();
  }
}
