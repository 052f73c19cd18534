/**
 * One cell run several times (`--repeat`) reported as one typical run: every statistic is the
 * median over the runs — one run slowed by a noisy neighbour moves a median far less than a
 * mean — and the min–max spread of throughput and p99 shows how much the runs disagreed. Failed
 * records are the exception: they add up, so a failure in any run keeps the cell out of the
 * recommendation. A statistic a run could not measure (NaN, e.g. latency without acknowledged
 * records) is left out of its median. The knee, the run at half of it, the end-to-end latency
 * and the client's metrics are medians too, each figure on its own.
 */
import type { BrokerBatchStats } from './broker-batch-stats.js';
import type { CellMeasurement } from './driver-measurement.js';
import type { LatencySummary } from './latency-samples.js';
import type { Knee } from './knee.js';

/** A run on a fixed-rate schedule, as reported beside the cell's own figures. */
export interface LoadPoint {
  readonly targetRate: number;
  readonly recordsPerSecond: number;
  readonly latency: LatencySummary;
  readonly endToEnd: LatencySummary | null;
}

/** Without `--target-rate`: the cell's knee and its latency at half of it (the cell's own figures are at 80%). */
export interface KneeRun extends Knee {
  readonly atHalf: LoadPoint | null;
}

/** One run of a cell: what the client measured and, with `--metrics-url`, what the broker saw. */
export interface RunResult extends CellMeasurement {
  /** The schedule of the measured run: `--target-rate`, or 80% of the knee. */
  readonly targetRate: number;
  readonly broker: BrokerBatchStats | null;
  readonly knee: KneeRun | null;
}

export interface Spread {
  readonly min: number;
  readonly max: number;
}

export interface RunsSpread {
  readonly recordsPerSecond: Spread;
  readonly p99Ms: Spread;
  /** The knee's spread; NaN min and max with `--target-rate`. */
  readonly maxSustainableRate: Spread;
}

export interface AggregatedRuns extends RunResult {
  readonly spread: RunsSpread;
  /** Every run, in the order they ran. */
  readonly runs: readonly RunResult[];
}

function measured(values: readonly number[]): number[] {
  return values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
}

/** The middle value, or the mean of the two middle ones; NaN without a measured value. */
export function median(values: readonly number[]): number {
  const sorted = measured(values);
  if (sorted.length === 0) return Number.NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function spread(values: readonly number[]): Spread {
  const sorted = measured(values);
  return sorted.length === 0 ? { min: Number.NaN, max: Number.NaN } : { min: sorted[0]!, max: sorted.at(-1)! };
}

/** The median of each field over records whose fields are all numbers. */
function fieldMedians<T extends Record<keyof T, number>>(records: readonly T[]): T {
  const out: Partial<Record<keyof T, number>> = {};
  for (const key of Object.keys(records[0]!) as Array<keyof T>) out[key] = median(records.map((r) => r[key]));
  return out as T;
}

/** Medians when every run has the figures: a median of some runs would not match the others' figures. */
function everyRun<T extends Record<keyof T, number>>(values: ReadonlyArray<T | null>): T | null {
  return values.every((v): v is T => v !== null) ? fieldMedians(values) : null;
}

/** Each metric's median over the runs that report it. */
function metricMedians(runs: readonly RunResult[]): Record<string, number> {
  const names = [...new Set(runs.flatMap((r) => Object.keys(r.clientMetrics)))].sort();
  return Object.fromEntries(names.map((name) => [name, median(runs.map((r) => r.clientMetrics[name] ?? Number.NaN))]));
}

function kneeMedians(knees: readonly KneeRun[]): KneeRun {
  const halves = knees.map((k) => k.atHalf);
  const atHalf = halves.every((h): h is LoadPoint => h !== null)
    ? {
        targetRate: median(halves.map((h) => h.targetRate)),
        recordsPerSecond: median(halves.map((h) => h.recordsPerSecond)),
        latency: fieldMedians(halves.map((h) => h.latency)),
        endToEnd: everyRun(halves.map((h) => h.endToEnd)),
      }
    : null;
  // Probes belong to single runs (`runs[]`); their medians would describe no search.
  return {
    maxSustainableRate: median(knees.map((k) => k.maxSustainableRate)),
    verified: knees.every((k) => k.verified),
    probes: [],
    atHalf,
  };
}

export function aggregateRuns(runs: readonly RunResult[]): AggregatedRuns {
  if (runs.length === 0) throw new RangeError('a cell has at least one run');
  if (runs.length === 1) return { ...runs[0]!, spread: runsSpread(runs), runs };
  const numeric = runs.map(({ failedRecords, firstError, latency, endToEnd, clientMetrics, broker, knee, ...numbers }) => numbers);
  const knees = runs.map((r) => r.knee);
  return {
    ...fieldMedians(numeric),
    failedRecords: runs.reduce((sum, r) => sum + r.failedRecords, 0),
    firstError: runs.find((r) => r.firstError !== null)?.firstError ?? null,
    latency: fieldMedians(runs.map((r) => r.latency)),
    endToEnd: everyRun(runs.map((r) => r.endToEnd)),
    clientMetrics: metricMedians(runs),
    broker: everyRun(runs.map((r) => r.broker)),
    knee: knees.every((k): k is KneeRun => k !== null) ? kneeMedians(knees) : null,
    spread: runsSpread(runs),
    runs,
  };
}

function runsSpread(runs: readonly RunResult[]): RunsSpread {
  return {
    recordsPerSecond: spread(runs.map((r) => r.recordsPerSecond)),
    p99Ms: spread(runs.map((r) => r.latency.p99Ms)),
    maxSustainableRate: spread(runs.map((r) => r.knee?.maxSustainableRate ?? Number.NaN)),
  };
}
