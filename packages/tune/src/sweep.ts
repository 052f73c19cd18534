/**
 * The sweep: every `batch.size` × `linger.ms` cell, each run by a fresh driver process of the
 * chosen client (`client-drivers.ts`) with the cell's properties over the user's own, against
 * one topic, with the broker's `/metrics` scraped around the measured run when a URL is given.
 * Every cell's driver first sends for `warmupSeconds` unreported, on the cell's schedule: a fresh
 * JVM interprets before its JIT compiles, and a fresh client has no connections yet, neither of
 * which a long-running producer pays. Unless the caller names a topic, a fresh one is created for
 * the sweep and deleted afterwards.
 *
 * With `--target-rate` a cell is one run at that rate. Without it a cell first finds its knee
 * (`knee.ts`, short probes) and is then measured at 80% of it (the cell's figures) and at 50%
 * (beside them): latency at a load the producer sustains, not the queueing of an overloaded one.
 *
 * With `repeat` > 1 the whole grid runs that many times over, round after round, rather than
 * each cell several times in a row: a burst of noise on the machine then hits different cells
 * in different rounds instead of every run of one cell, and each cell's median (see
 * `run-aggregate.ts`) shrugs it off.
 */
import { KafkaAdminClient } from '@sluice/client/admin-client.js';
import type { KafkaCluster } from '@sluice/client/cluster.js';
import type { Acks } from '@sluice/client/producer-request.js';
import type { CompressionName } from '@sluice/client/compression-codecs.js';
import { brokerBatchStats, scrapeMetrics, type BrokerBatchStats } from './broker-batch-stats.js';
import type { DriverCommand } from './client-drivers.js';
import { measurementOf, type CellMeasurement } from './driver-measurement.js';
import { DriverProcess } from './driver-process.js';
import { findKnee } from './knee.js';
import type { MetricsScrape } from './prometheus-text.js';
import { isSecurityKey } from './sluice-client-config.js';
import { aggregateRuns, type AggregatedRuns, type KneeRun, type RunResult } from './run-aggregate.js';
import { formatBytes } from './units.js';

export interface SweepSettings {
  readonly batchSizes: readonly number[];
  readonly lingerMs: readonly number[];
  readonly cellSeconds: number;
  readonly warmupSeconds: number;
  readonly recordSize: number;
  /** Records per second; null: find each cell's knee and measure at 50% and 80% of it. */
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
  /** `--producer-config`: the user's own producer properties, over the options above and under the cell's. */
  readonly producerConfig: ReadonlyMap<string, string>;
  /** `--consumer-config`: the end-to-end consumer's own properties, over the producer file's security keys. */
  readonly consumerConfig: ReadonlyMap<string, string>;
  /** Measure produce→consume latency too (a consumer in the driver). */
  readonly endToEnd: boolean;
  /** Length of each knee probe. */
  readonly probeSeconds: number;
  /** Bisection steps of the knee search. */
  readonly kneeSteps: number;
}

/** A cell: the medians of its runs (the broker's batch histograms among them, null without usable metrics). */
export interface CellResult extends AggregatedRuns {
  readonly batchSize: number;
  readonly lingerMs: number;
}

export interface SweepOutcome {
  readonly topic: string;
  /** What the driver said it is, e.g. "kafka-clients 4.4.0". */
  readonly client: string;
  readonly cells: CellResult[];
  /** Why broker statistics are missing, if they are. */
  readonly brokerMetricsNote: string | null;
}

/** Told about every run of a cell (one per cell unless `repeat` > 1). */
export interface SweepObserver {
  cellStarted(label: string): void;
  cellFinished(): void;
}

/** The loads a cell is measured at without `--target-rate`, as shares of its knee. */
export const KNEE_LOADS = { half: 0.5, measured: 0.8 } as const;
const KEEP_UP_FRACTION = 0.95;

/** "batch.size=64 KiB linger.ms=5", with " run 2/3" when cells run more than once. */
function cellLabel(batchSize: number, lingerMs: number, round: number, repeat: number): string {
  return `batch.size=${formatBytes(batchSize)} linger.ms=${lingerMs}${repeat > 1 ? ` run ${round}/${repeat}` : ''}`;
}

/** The sweep's options as the producer properties they set, under the user's file. */
export function optionProperties(settings: Pick<SweepSettings, 'acks' | 'compression' | 'maxInFlight'>): Array<[string, string]> {
  return [
    ['acks', String(settings.acks)],
    ['compression.type', settings.compression],
    ['max.in.flight.requests.per.connection', String(settings.maxInFlight)],
  ];
}

/** The properties a cell's producer gets: the sweep's options, the user's file over them, the cell's batching over both. */
export function cellProducerProperties(settings: SweepSettings, batchSize: number, lingerMs: number): Map<string, string> {
  return new Map([
    ...optionProperties(settings),
    ...settings.producerConfig,
    ['batch.size', String(batchSize)],
    ['linger.ms', String(lingerMs)],
  ]);
}

/** The end-to-end consumer connects as the producer does (the security keys of the producer file), with its own file over that. */
export function consumerProperties(
  producerConfig: ReadonlyMap<string, string>,
  consumerConfig: ReadonlyMap<string, string>,
): Map<string, string> {
  return new Map([...[...producerConfig].filter(([key]) => isSecurityKey(key)), ...consumerConfig]);
}

export async function runSweep(
  cluster: KafkaCluster,
  driver: DriverCommand,
  bootstrap: string,
  settings: SweepSettings,
  observer: SweepObserver,
): Promise<SweepOutcome> {
  const admin = new KafkaAdminClient(cluster);
  const topic = settings.topic ?? `sluice-tune-${Date.now()}`;
  if (settings.topic === null) await admin.createTopic({ name: topic, partitions: settings.partitions });
  try {
    const cellRunner = new CellRunner(driver, bootstrap, topic, settings);
    const metrics = new MetricsWatch(settings.metricsUrl);
    const grid = settings.batchSizes.flatMap((batchSize) =>
      settings.lingerMs.map((lingerMs) => ({ batchSize, lingerMs, runs: [] as RunResult[] })),
    );
    for (let round = 1; round <= settings.repeat; round++) {
      for (const cell of grid) {
        observer.cellStarted(cellLabel(cell.batchSize, cell.lingerMs, round, settings.repeat));
        cell.runs.push(await cellRunner.run(cell.batchSize, cell.lingerMs, metrics));
        observer.cellFinished();
      }
    }
    const cells = grid.map(({ batchSize, lingerMs, runs }): CellResult => ({ batchSize, lingerMs, ...aggregateRuns(runs) }));
    return { topic, client: cellRunner.client, cells, brokerMetricsNote: metrics.note };
  } finally {
    if (settings.topic === null) await admin.deleteTopic(topic);
  }
}

/** Runs cells, each in its own driver process. */
class CellRunner {
  client = '';
  private nextId = 1;

  constructor(
    private readonly driver: DriverCommand,
    private readonly bootstrap: string,
    private readonly topic: string,
    private readonly settings: SweepSettings,
  ) {}

  run(batchSize: number, lingerMs: number, metrics: MetricsWatch): Promise<RunResult> {
    const { targetRate, cellSeconds, probeSeconds, endToEnd, warmupSeconds } = this.settings;
    return this.withDriver(batchSize, lingerMs, async (measure) => {
      if (warmupSeconds > 0) await measure(targetRate, warmupSeconds, false);
      const measured = async (rate: number, knee: KneeRun | null): Promise<RunResult> => {
        const before = await metrics.scrape();
        const m = await measure(rate, cellSeconds, endToEnd);
        return { ...m, targetRate: rate, broker: metrics.delta(before, await metrics.scrape()), knee };
      };
      if (targetRate !== null) return measured(targetRate, null);
      // A probe whose records fail ends the search; the cell then reports that probe (and its failures).
      const failed: { probe: CellMeasurement | null } = { probe: null };
      const knee = await findKnee(
        async (rate) => {
          if (failed.probe !== null) return 0;
          const probe = await measure(rate, probeSeconds, false);
          if (probe.failedRecords > 0) failed.probe = probe;
          return probe.failedRecords > 0 ? 0 : probe.recordsPerSecond;
        },
        { steps: this.settings.kneeSteps, keepUpFraction: KEEP_UP_FRACTION },
      );
      const kneeRun: KneeRun = { ...knee, atHalf: null };
      if (failed.probe !== null || !(knee.maxSustainableRate > 0)) {
        return { ...(failed.probe ?? (await measure(null, probeSeconds, false))), targetRate: Number.NaN, broker: null, knee: kneeRun };
      }
      const halfRate = knee.maxSustainableRate * KNEE_LOADS.half;
      const half = await measure(halfRate, cellSeconds, endToEnd);
      const atHalf = { targetRate: halfRate, recordsPerSecond: half.recordsPerSecond, latency: half.latency, endToEnd: half.endToEnd };
      return measured(knee.maxSustainableRate * KNEE_LOADS.measured, { ...kneeRun, atHalf });
    });
  }

  private async withDriver<T>(
    batchSize: number,
    lingerMs: number,
    use: (measure: (rate: number | null, seconds: number, endToEnd: boolean) => Promise<CellMeasurement>) => Promise<T>,
  ): Promise<T> {
    const setup = {
      bootstrap: this.bootstrap,
      topic: this.topic,
      producer: cellProducerProperties(this.settings, batchSize, lingerMs),
      consumer: consumerProperties(this.settings.producerConfig, this.settings.consumerConfig),
    };
    const { driver, client } = await DriverProcess.start(this.driver, setup);
    this.client = client;
    try {
      return await use(async (rate, seconds, endToEnd) => {
        const outcome = await driver.run({ id: this.nextId++, seconds, targetRate: rate, recordSize: this.settings.recordSize, endToEnd });
        return measurementOf(this.driver.client, this.topic, outcome, this.settings.recordSize);
      });
    } finally {
      await driver.close();
    }
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

  delta(before: MetricsScrape | null, after: MetricsScrape | null): BrokerBatchStats | null {
    if (before === null || after === null) return null;
    const stats = brokerBatchStats(before, after);
    if (stats === null) this.note ??= `${this.url} has no produce batch histograms`;
    return stats;
  }
}
