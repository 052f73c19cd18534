/**
 * A Prometheus histogram taken from a scrape and summed over its label sets (every partition,
 * every worker), the difference of two scrapes (what happened between them), and the
 * statistics a report can state: count, mean, and quantiles interpolated within buckets as
 * PromQL's `histogram_quantile` does.
 */
import type { MetricsScrape } from './prometheus-text.js';

export interface HistogramBucket {
  /** Upper bound (inclusive); the last bucket is +Inf. */
  readonly le: number;
  /** Cumulative: observations <= le. */
  readonly count: number;
}

export interface Histogram {
  readonly name: string;
  /** Sorted by `le`. */
  readonly buckets: readonly HistogramBucket[];
  readonly sum: number;
  readonly count: number;
}

/** Whether a sample carries every label of `where`. */
export function labelsMatch(labels: ReadonlyMap<string, string>, where: Readonly<Record<string, string>>): boolean {
  for (const key in where) if (labels.get(key) !== where[key]) return false;
  return true;
}

/** The histogram family `name` summed over its label sets (those matching `where`, if given); null if the scrape has none. */
export function histogramFrom(scrape: MetricsScrape, name: string, where: Readonly<Record<string, string>> = {}): Histogram | null {
  const byLe = new Map<number, number>();
  let sum = 0;
  let count = 0;
  let seen = false;
  for (const s of scrape.samples) {
    if (!labelsMatch(s.labels, where)) continue;
    if (s.name === `${name}_bucket`) {
      const le = Number(s.labels.get('le') === '+Inf' ? Number.POSITIVE_INFINITY : s.labels.get('le'));
      if (Number.isNaN(le)) continue;
      byLe.set(le, (byLe.get(le) ?? 0) + s.value);
      seen = true;
    } else if (s.name === `${name}_sum`) {
      sum += s.value;
    } else if (s.name === `${name}_count`) {
      count += s.value;
    }
  }
  if (!seen) return null;
  const buckets = [...byLe].map(([le, c]) => ({ le, count: c })).sort((a, b) => a.le - b.le);
  return { name, buckets, sum, count };
}

/** Histogram names (families of `# TYPE … histogram`) in the scrape. */
export function histogramNames(scrape: MetricsScrape): string[] {
  return [...scrape.types].filter(([, type]) => type === 'histogram').map(([name]) => name);
}

/** `after - before`, bucket by bucket; a histogram absent before counts from zero. */
export function histogramDelta(before: Histogram | null, after: Histogram): Histogram {
  if (before === null) return after;
  const earlier = new Map(before.buckets.map((b) => [b.le, b.count]));
  return {
    name: after.name,
    buckets: after.buckets.map((b) => ({ le: b.le, count: b.count - (earlier.get(b.le) ?? 0) })),
    sum: after.sum - before.sum,
    count: after.count - before.count,
  };
}

export function histogramMean(h: Histogram): number {
  return h.count > 0 ? h.sum / h.count : Number.NaN;
}

/**
 * The q-quantile (0..1) estimated as `histogram_quantile` does: find the bucket holding rank
 * q·count and interpolate linearly inside it (from 0 for the first bucket); a rank in the +Inf
 * bucket answers the largest finite bound.
 */
export function histogramQuantile(h: Histogram, q: number): number {
  const total = h.buckets.at(-1)?.count ?? 0;
  if (total <= 0) return Number.NaN;
  const rank = q * total;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const b of h.buckets) {
    if (b.count >= rank) {
      if (b.le === Number.POSITIVE_INFINITY) return lowerBound;
      const inBucket = b.count - lowerCount;
      return inBucket <= 0 ? b.le : lowerBound + ((b.le - lowerBound) * (rank - lowerCount)) / inBucket;
    }
    lowerBound = b.le;
    lowerCount = b.count;
  }
  return lowerBound;
}
