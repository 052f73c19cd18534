/**
 * The sweep: every `batch.size` × `linger.ms` cell runs for the same time against one topic,
 * with the broker's `/metrics` scraped before and after each cell when a URL is given. A short
 * warm-up (not reported) first lets the JIT and the broker's segment settle, so the first
 * cell is not penalised. Unless the caller names a topic, a fresh one is created for the
 * sweep and deleted afterwards.
 */
import { KafkaAdminClient } from '../client/admin-client.js';
import type { KafkaCluster } from '../client/cluster.js';
import type { Acks } from '../client/producer-request.js';
import { compressionType, type CompressionName } from '../client/compression-codecs.js';
import { brokerBatchStats, scrapeMetrics, type BrokerBatchStats } from './broker-batch-stats.js';
import { runCell, type CellMeasurement, type LoadSettings } from './cell-runner.js';
import type { MetricsScrape } from './prometheus-text.js';
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
}

export interface CellResult extends CellMeasurement {
  readonly batchSize: number;
  readonly lingerMs: number;
  /** The broker's batch histograms over this cell; null without (usable) metrics. */
  readonly broker: BrokerBatchStats | null;
}

export interface SweepOutcome {
  readonly topic: string;
  readonly cells: CellResult[];
  /** Why broker statistics are missing, if they are. */
  readonly brokerMetricsNote: string | null;
}

export interface SweepObserver {
  cellStarted(label: string): void;
  cellFinished(result: CellResult): void;
}

export function cellLabel(batchSize: number, lingerMs: number): string {
  return `batch.size=${formatBytes(batchSize)} linger.ms=${lingerMs}`;
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
    const cells: CellResult[] = [];
    for (const batchSize of settings.batchSizes) {
      for (const lingerMs of settings.lingerMs) {
        observer.cellStarted(cellLabel(batchSize, lingerMs));
        const before = await metrics.scrape();
        const measured = await runCell(cluster, load, batchSize, lingerMs);
        const after = await metrics.scrape();
        const broker = before !== null && after !== null ? brokerBatchStats(before, after) : null;
        if (broker === null && before !== null && after !== null) metrics.note ??= `${settings.metricsUrl} has no produce batch histograms`;
        const result: CellResult = { batchSize, lingerMs, ...measured, broker };
        cells.push(result);
        observer.cellFinished(result);
      }
    }
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
