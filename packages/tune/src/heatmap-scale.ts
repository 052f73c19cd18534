/**
 * The heatmaps' colour scale, with the measurement noise taken out: a cell within the noise of
 * the best cell is coloured as the best, and the rest of the scale starts where the noise ends,
 * so two cells 0.6% apart on a machine whose runs disagree by 3% no longer look green and red.
 *
 * The noise is the runs' own disagreement: for every cell run more than once (`--repeat`), the
 * spread (max − min) over its median; the median of those over the grid, so one disturbed cell
 * does not widen it for all. With one run per cell there is nothing measured, and an assumed
 * `UNMEASURED_NOISE` stands in (the legend says so). Latency spans orders of magnitude, so a wide
 * range is compared on a log scale, where the same noise is a ratio.
 */
import { median, type Spread } from './run-aggregate.js';

/** What one run per cell is assumed to be off by (a few percent is typical of a shared machine). */
export const UNMEASURED_NOISE = 0.05;
/** Even perfectly agreeing runs are not measured more finely than this. */
export const NOISE_FLOOR = 0.01;
/** A range wider than this factor is coloured on a log scale. */
const LOG_RANGE = 20;

export interface NoiseEstimate {
  /** Relative: 0.03 is 3%. */
  readonly fraction: number;
  /** False: assumed (`UNMEASURED_NOISE`), no cell was run twice. */
  readonly measured: boolean;
}

export interface ColourScale {
  /** 0 (worst) … 1 (best, or within the noise of the best); NaN for a missing value. */
  position(value: number): number;
  readonly log: boolean;
  readonly noise: NoiseEstimate;
  /** Every value is within the noise of the best: the whole map is one colour. */
  readonly allWithinNoise: boolean;
}

/** The grid's noise from each cell's median and spread over its runs. */
export function estimateNoise(cells: ReadonlyArray<{ readonly median: number; readonly spread: Spread }>): NoiseEstimate {
  const relative = cells
    .filter((c) => Number.isFinite(c.median) && c.median !== 0 && Number.isFinite(c.spread.min) && Number.isFinite(c.spread.max))
    .map((c) => (c.spread.max - c.spread.min) / Math.abs(c.median));
  if (relative.length === 0) return { fraction: UNMEASURED_NOISE, measured: false };
  return { fraction: Math.max(NOISE_FLOOR, median(relative)), measured: true };
}

export function colourScale(values: readonly number[], higherIsBetter: boolean, noise: NoiseEstimate): ColourScale {
  const finite = values.filter(Number.isFinite);
  const lo = Math.min(...finite);
  const hi = Math.max(...finite);
  const log = finite.length > 0 && lo > 0 && hi / lo > LOG_RANGE;
  const best = higherIsBetter ? hi : lo;
  // How much worse than the best, relative (or as a log ratio): the same measure as the noise.
  const worseBy = (v: number): number =>
    log ? Math.abs(Math.log(v) - Math.log(best)) : best === 0 ? Math.abs(v - best) : Math.abs(v - best) / Math.abs(best);
  const threshold = log ? Math.log(1 + noise.fraction) : noise.fraction;
  const worst = finite.length === 0 ? 0 : Math.max(...finite.map(worseBy));
  const allWithinNoise = worst <= threshold;
  return {
    log,
    noise,
    allWithinNoise,
    position(value: number): number {
      if (!Number.isFinite(value)) return Number.NaN;
      const beyond = worseBy(value) - threshold;
      return allWithinNoise || beyond <= 0 ? 1 : 1 - beyond / (worst - threshold);
    },
  };
}

/** The legend's words for the noise rule. */
export function noiseLegend(scale: ColourScale): string {
  const percent = `${(scale.noise.fraction * 100).toFixed(scale.noise.fraction < 0.1 ? 1 : 0)}%`;
  const source = scale.noise.measured ? "the runs' median spread" : 'assumed: one run per cell, use --repeat to measure it';
  return scale.allWithinNoise
    ? `all cells within the noise (${percent}, ${source})`
    : `differences under ${percent} (${source}) share a colour`;
}
