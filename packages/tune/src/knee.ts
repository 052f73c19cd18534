/**
 * A cell's knee: the highest rate its producer sustains. One flat-out probe bounds it from above
 * (ProducerPerformance's maximum throughput); then probes on a fixed-rate schedule bisect between
 * the highest rate known to keep up (at first 0) and the lowest known not to. A probe keeps up
 * when it acknowledges at least `keepUpFraction` of its target rate: beyond the knee the backlog
 * grows and the achieved rate stays at capacity, below the target. The search is bounded: the
 * flat-out probe and at most `steps` + 1 scheduled ones.
 */
export interface RateProbe {
  /** null: flat out. */
  readonly targetRate: number | null;
  readonly achievedRate: number;
  readonly keptUp: boolean;
}

export interface Knee {
  /** The highest scheduled rate that kept up; if none did, the last probe's achieved rate. */
  readonly maxSustainableRate: number;
  /** False when no scheduled probe kept up, so the rate is a guess from below capacity. */
  readonly verified: boolean;
  readonly probes: readonly RateProbe[];
}

export interface KneeSettings {
  /** Bisection steps after the check of the flat-out rate itself. */
  readonly steps: number;
  /** Share of its target a probe must achieve to count as keeping up, e.g. 0.95. */
  readonly keepUpFraction: number;
}

/** `measure(rate)` runs one probe (rate null: flat out) and returns the achieved records/s. */
export async function findKnee(measure: (targetRate: number | null) => Promise<number>, settings: KneeSettings): Promise<Knee> {
  const flatOut = await measure(null);
  const probes: RateProbe[] = [{ targetRate: null, achievedRate: flatOut, keptUp: flatOut > 0 }];
  if (!(flatOut > 0)) return { maxSustainableRate: 0, verified: false, probes };
  let sustained = 0;
  let failedAt = flatOut;
  let rate = flatOut;
  for (let step = 0; step <= settings.steps; step++) {
    const achieved = await measure(rate);
    const keptUp = achieved >= settings.keepUpFraction * rate;
    probes.push({ targetRate: rate, achievedRate: achieved, keptUp });
    if (keptUp) sustained = rate;
    else failedAt = rate;
    if (keptUp && rate === flatOut) break;
    rate = (sustained + failedAt) / 2;
  }
  if (sustained > 0) return { maxSustainableRate: sustained, verified: true, probes };
  return { maxSustainableRate: probes.at(-1)!.achievedRate, verified: false, probes };
}
