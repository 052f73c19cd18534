/**
 * The sweep: every `batch.size` × `linger.ms` cell runs for the same time against one topic,
 * with the broker's `/metrics` scraped before and after each run when a URL is given. A short
 * warm-up (not reported) first lets the JIT and the broker's segment settle, so the first
 * cell is not penalised. Unless the caller names a topic, a fresh one is created for the
 * sweep and deleted afterwards.
 *
 * With `repeat` > 1 the whole grid runs that many times over, round after round, rather than
 * each cell several times in a row: a burst of noise on the machine then hits different cells
 * in different rounds instead of every run of one cell, and each cell's median (see
 * `run-aggregate.ts`) shrugs it off.
 */
import { KafkaAdminClient } from '../client/admin-client.js';
import type { KafkaCluster } from '../client/cluster.js';
import type { Acks } from '../client/producer-request.js';
import { compressionType, type CompressionName } from '../client/compression-codecs.js';
import { brokerBatchStats, scrapeMetrics } from './broker-batch-stats.js';
import { runCell, type LoadSettings } from './cell-runner.js';
import type { MetricsScrape } from './prometheus-text.js';
import { aggregateRuns, type AggregatedRuns, type RunResult } from './run-aggregate.js';
import { formatBytes } from './units.js';

export interface SweepSettings {
  readonly batchSizes: readonly number[];
  readonly lingerMs: readonly number[];
  readonly cellSeconds: number;
  readonly warmupSeconds: number;
  readonly recordSize: number;
  /** Records per second; null: flat out. */
  readonly targetRate: number | null;
  readonly acks: Acks;
  readonly compression: CompressionName;
  readonly maxInFlight: number;
  /** null: a new topic `sluice-tune-<time>` is created and deleted afterwards. */
  readonly topic: string | null;
  /** Partitions of the topic the sweep creates. */
  readonly partitions: number;
  readonly metricsUrl: string | null;
  /** Runs of every cell (`--repeat`); a cell reports the medians of its runs. */
  readonly repeat: number;
}

/** A cell: the medians of its runs (the broker's batch histograms among them, null without usable metrics). */
export interface CellResult extends AggregatedRuns {
  readonly batchSize: number;
  readonly lingerMs: number;
}

export interface SweepOutcome {
  readonly topic: string;
  readonly cells: CellResult[];
  /** Why broker statistics are missing, if they are. */
  readonly brokerMetricsNote: string | null;
}

/** Told about every run of a cell (one per cell unless `repeat` > 1). */
export interface SweepObserver {
  cellStarted(label: string): void;
  cellFinished(): void;
}

/** "batch.size=64 KiB linger.ms=5", with " run 2/3" when cells run more than once. */
function cellLabel(batchSize: number, lingerMs: number, round: number, repeat: number): string {
  return `batch.size=${formatBytes(batchSize)} linger.ms=${lingerMs}${repeat > 1 ? ` run ${round}/${repeat}` : ''}`;
}

export async function runSweep(cluster: KafkaCluster, settings: SweepSettings, observer: SweepObserver): Promise<SweepOutcome> {
  const admin = new KafkaAdminClient(cluster);
  const topic = settings.topic ?? `sluice-tune-${Date.now()}`;
  if (settings.topic === null) await admin.createTopic({ name: topic, partitions: settings.partitions });
  try {
    const load: LoadSettings = {
      topic,
      recordSize: settings.recordSize,
      seconds: settings.cellSeconds,
      targetRate: settings.targetRate,
      acks: settings.acks,
      compression: compressionType(settings.compression),
      maxInFlight: settings.maxInFlight,
    };
    if (settings.warmupSeconds > 0) await runCell(cluster, { ...load, seconds: settings.warmupSeconds }, settings.batchSizes[0]!, settings.lingerMs[0]!);
    const metrics = new MetricsWatch(settings.metricsUrl);
    const grid = settings.batchSizes.flatMap((batchSize) => settings.lingerMs.map((lingerMs) => ({ batchSize, lingerMs, runs: [] as RunResult[] })));
    for (let round = 1; round <= settings.repeat; round++) {
      for (const cell of grid) {
        observer.cellStarted(cellLabel(cell.batchSize, cell.lingerMs, round, settings.repeat));
        const before = await metrics.scrape();
        const measured = await runCell(cluster, load, cell.batchSize, cell.lingerMs);
        const after = await metrics.scrape();
        const broker = before !== null && after !== null ? brokerBatchStats(before, after) : null;
        if (broker === null && before !== null && after !== null) metrics.note ??= `${settings.metricsUrl} has no produce batch histograms`;
        cell.runs.push({ ...measured, broker });
        observer.cellFinished();
      }
    }
    const cells = grid.map(({ batchSize, lingerMs, runs }): CellResult => ({ batchSize, lingerMs, ...aggregateRuns(runs) }));
    return { topic, cells, brokerMetricsNote: metrics.note };
  } finally {
    if (settings.topic === null) await admin.deleteTopic(topic);
  }
}

/** Scrapes `/metrics` if a URL was given; a failed scrape is remembered, not fatal (that cell has no broker stats). */
class MetricsWatch {
  note: string | null;

  constructor(private readonly url: string | null) {
    this.note = url === null ? 'no --metrics-url given' : null;
  }

  async scrape(): Promise<MetricsScrape | null> {
    if (this.url === null) return null;
    try {
      return await scrapeMetrics(this.url);
    } catch (err) {
      this.note ??= `scraping ${this.url} failed: ${err instanceof Error ? err.message : String(err)}`;
      return null;
    }
  }
}
