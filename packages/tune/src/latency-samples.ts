/**
 * Every latency of a cell, kept exactly (a cell of a few seconds holds at most a few million
 * samples, 8 bytes each), so percentiles are exact rather than bucket estimates.
 *
 * Percentiles use the nearest-rank definition: the smallest sample with at least p% of the
 * samples at or below it (Kafka's ProducerPerformance reads `sorted[(int)(n * p)]`, the same
 * rank up to rounding).
 */
export interface LatencySummary {
  readonly count: number;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
}

export class LatencySamples {
  private samples = new Float64Array(1024);
  private length = 0;
  private sorted = true;

  add(ms: number): void {
    if (this.length === this.samples.length) {
      const grown = new Float64Array(this.samples.length * 2);
      grown.set(this.samples);
      this.samples = grown;
    }
    this.samples[this.length++] = ms;
    this.sorted = false;
  }

  get count(): number {
    return this.length;
  }

  /** `p` in (0, 100]; NaN without samples. */
  percentile(p: number): number {
    if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], not ${p}`);
    if (this.length === 0) return Number.NaN;
    const values = this.view();
    // The epsilon keeps float noise (99.9 × 10000 / 100 = 9990.000000000002) from moving up a rank.
    const rank = Math.ceil((p * this.length) / 100 - 1e-9);
    return values[Math.min(this.length, Math.max(1, rank)) - 1]!;
  }

  summary(): LatencySummary {
    const values = this.view();
    let sum = 0;
    for (const v of values) sum += v;
    return {
      count: this.length,
      meanMs: this.length === 0 ? Number.NaN : sum / this.length,
      p50Ms: this.percentile(50),
      p95Ms: this.percentile(95),
      p99Ms: this.percentile(99),
      p999Ms: this.percentile(99.9),
      maxMs: this.length === 0 ? Number.NaN : values[this.length - 1]!,
    };
  }

  private view(): Float64Array {
    const values = this.samples.subarray(0, this.length);
    if (!this.sorted) {
      values.sort();
      this.sorted = true;
    }
    return values;
  }
}
