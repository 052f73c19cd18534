/**
 * The sweep's advice: the smallest `linger.ms` — then the smallest `batch.size` — whose cell
 * reaches the throughput goal (`--throughput-goal` records/s, else a fraction, 90%, of the peak
 * throughput of the sweep) with p99 latency within the bound, stated in words with the numbers. Small linger and batch keep latency and memory low,
 * so among cells that are fast enough the cheapest one wins. Cells with failed records never
 * qualify. Without a cell that qualifies the advice says so and names the nearest miss.
 */
import { formatBytes, formatMs, formatRate } from './units.js';

export interface CellOutcome {
  readonly batchSize: number;
  readonly lingerMs: number;
  readonly recordsPerSecond: number;
  readonly p99Ms: number;
  readonly failedRecords: number;
}

export interface RecommendationRule {
  /** Share of the peak throughput a cell must reach, e.g. 0.9; used without a goal. */
  readonly minThroughputFraction: number;
  /** Records per second a cell must reach; null: the fraction of the peak. */
  readonly throughputGoal?: number | null;
  /** null: no latency bound. */
  readonly p99BoundMs: number | null;
}

export interface Recommendation {
  /** The advised cell; null when no cell qualifies. */
  readonly batchSize: number | null;
  readonly lingerMs: number | null;
  readonly peak: { readonly batchSize: number; readonly lingerMs: number; readonly recordsPerSecond: number } | null;
  readonly qualifyingCells: number;
  readonly text: string;
}

export function recommend(cells: readonly CellOutcome[], rule: RecommendationRule): Recommendation {
  const healthy = cells.filter((c) => c.failedRecords === 0 && c.recordsPerSecond > 0);
  if (healthy.length === 0) {
    return {
      batchSize: null,
      lingerMs: null,
      peak: null,
      qualifyingCells: 0,
      text: 'No cell completed without errors, so there is nothing to recommend.',
    };
  }
  const peakCell = healthy.reduce((a, b) => (b.recordsPerSecond > a.recordsPerSecond ? b : a));
  const peak = { batchSize: peakCell.batchSize, lingerMs: peakCell.lingerMs, recordsPerSecond: peakCell.recordsPerSecond };
  const goal = rule.throughputGoal ?? null;
  const floor = goal ?? rule.minThroughputFraction * peak.recordsPerSecond;
  const fastEnough = healthy.filter((c) => c.recordsPerSecond >= floor);
  const qualifying = fastEnough.filter((c) => rule.p99BoundMs === null || c.p99Ms <= rule.p99BoundMs);
  const bound = rule.p99BoundMs === null ? 'no p99 bound (none given)' : `p99 within ${formatMs(rule.p99BoundMs)}`;
  const peakText = `the peak of ${formatRate(peak.recordsPerSecond)} at ${cellName(peak)}`;
  const target = goal === null ? `${Math.round(rule.minThroughputFraction * 100)}% of ${peakText}` : `the goal of ${formatRate(goal)}`;
  const best = [...qualifying].sort(cheapestFirst)[0];
  if (fastEnough.length === 0) {
    return { batchSize: null, lingerMs: null, peak, qualifyingCells: 0, text: `No cell reaches ${target}; ${peakText} is the fastest.` };
  }
  if (best === undefined) {
    const nearest = [...fastEnough].sort((a, b) => a.p99Ms - b.p99Ms)[0]!;
    return {
      batchSize: null,
      lingerMs: null,
      peak,
      qualifyingCells: 0,
      text:
        `No cell reaches ${target} with ${bound}. ` +
        `The lowest p99 among the cells that reach it is ${formatMs(nearest.p99Ms)}, at ${cellName(nearest)} ` +
        `(${formatRate(nearest.recordsPerSecond)}); raise --p99-bound-ms or look at the curves for a trade-off.`,
    };
  }
  const share = Math.round((best.recordsPerSecond / peak.recordsPerSecond) * 100);
  return {
    batchSize: best.batchSize,
    lingerMs: best.lingerMs,
    peak,
    qualifyingCells: qualifying.length,
    text:
      `Use ${cellName(best)}: ${formatRate(best.recordsPerSecond)} (${share}% of ${peakText}) with p99 ${formatMs(best.p99Ms)}` +
      `${rule.p99BoundMs === null ? '' : ` (bound ${formatMs(rule.p99BoundMs)})`}. ` +
      `It is the smallest linger.ms, then batch.size, reaching ${goal === null ? `${Math.round(rule.minThroughputFraction * 100)}% of peak throughput` : target} with ${bound}; ` +
      `${qualifying.length} of ${cells.length} cells ${qualifying.length === 1 ? 'qualifies' : 'qualify'}.`,
  };
}

function cheapestFirst(a: CellOutcome, b: CellOutcome): number {
  return a.lingerMs - b.lingerMs || a.batchSize - b.batchSize || b.recordsPerSecond - a.recordsPerSecond;
}

function cellName(c: { readonly batchSize: number; readonly lingerMs: number }): string {
  return `linger.ms=${c.lingerMs} and batch.size=${c.batchSize} (${formatBytes(c.batchSize)})`;
}
