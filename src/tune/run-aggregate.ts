/**
 * One cell run several times (`--repeat`) reported as one typical run: every statistic is the
 * median over the runs — one run slowed by a noisy neighbour moves a median far less than a
 * mean — and the min–max spread of throughput and p99 shows how much the runs disagreed. Failed
 * records are the exception: they add up, so a failure in any run keeps the cell out of the
 * recommendation. A statistic a run could not measure (NaN, e.g. latency without acknowledged
 * records) is left out of its median.
 */
import type { BrokerBatchStats } from './broker-batch-stats.js';
import type { CellMeasurement } from './cell-runner.js';

/** One run of a cell: what the producer measured and, with `--metrics-url`, what the broker saw. */
export interface RunResult extends CellMeasurement {
  readonly broker: BrokerBatchStats | null;
}

export interface Spread {
  readonly min: number;
  readonly max: number;
}

export interface RunsSpread {
  readonly recordsPerSecond: Spread;
  readonly p99Ms: Spread;
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

export function aggregateRuns(runs: readonly RunResult[]): AggregatedRuns {
  if (runs.length === 0) throw new RangeError('a cell has at least one run');
  const numeric = runs.map(({ failedRecords, firstError, latency, broker, ...numbers }) => numbers);
  const brokers = runs.map((r) => r.broker);
  return {
    ...fieldMedians(numeric),
    failedRecords: runs.reduce((sum, r) => sum + r.failedRecords, 0),
    firstError: runs.find((r) => r.firstError !== null)?.firstError ?? null,
    latency: fieldMedians(runs.map((r) => r.latency)),
    // Broker figures only when every run has them: a median of some runs would not match the producer's.
    broker: brokers.every((b): b is BrokerBatchStats => b !== null) ? fieldMedians(brokers) : null,
    spread: { recordsPerSecond: spread(runs.map((r) => r.recordsPerSecond)), p99Ms: spread(runs.map((r) => r.latency.p99Ms)) },
    runs,
  };
}
