/**
 * Kafka's quota measurement (a `Rate` over a `SampledStat`): values are summed in samples of
 * `quota.window.size.seconds`, `quota.window.num` of them plus one kept, and the rate is their
 * sum over the time they span — never less than `num - 1` windows, so a client's first burst
 * is averaged over the whole quota window instead of its first milliseconds. A sample with no
 * event for `num` windows is emptied.
 *
 * The throttle time of a violation is Kafka's: how long, with nothing more recorded, until the
 * rate is back at the quota — (rate − quota) / quota × the window the rate was measured over.
 */
/** Kafka's defaults are 11 samples of 1 s. */
export interface QuotaWindow {
  /** `quota.window.num`. */
  readonly samples: number;
  /** `quota.window.size.seconds`, in milliseconds. */
  readonly sampleMs: number;
}

interface Sample {
  value: number;
  eventCount: number;
  startMs: number;
  lastEventMs: number;
}

export class QuotaRate {
  private readonly samples: Sample[] = [];
  private current = 0;

  constructor(private readonly window: QuotaWindow) {}

  /** Adds `value` (bytes, or percent-seconds of handler time) at `nowMs`; negative undoes an earlier record. */
  record(value: number, nowMs: number): void {
    let sample = this.currentSample(nowMs);
    if (nowMs - sample.startMs >= this.window.sampleMs) sample = this.advance(nowMs);
    sample.value += value;
    sample.eventCount += 1;
    sample.lastEventMs = nowMs;
  }

  /** The rate per second at `nowMs`. */
  measure(nowMs: number): number {
    this.purgeObsolete(nowMs);
    const total = this.samples.reduce((sum, s) => sum + s.value, 0);
    return total / (this.windowMs(nowMs) / 1000);
  }

  /** The time the rate is measured over at `nowMs`: at least `samples - 1` windows, at least 1 ms. */
  windowMs(nowMs: number): number {
    this.purgeObsolete(nowMs);
    let elapsed = nowMs - this.oldest(nowMs).startMs;
    const fullWindows = Math.floor(elapsed / this.window.sampleMs);
    const minFullWindows = this.window.samples - 1;
    if (fullWindows < minFullWindows) elapsed += (minFullWindows - fullWindows) * this.window.sampleMs;
    return Math.max(elapsed, 1);
  }

  private currentSample(nowMs: number): Sample {
    if (this.samples.length === 0) this.samples.push(newSample(nowMs));
    return this.samples[this.current]!;
  }

  private advance(nowMs: number): Sample {
    // One sample more than configured is kept, as Kafka does, so the oldest still counts while it overlaps the window.
    this.current = (this.current + 1) % (this.window.samples + 1);
    if (this.current >= this.samples.length) {
      const sample = newSample(nowMs);
      this.samples.push(sample);
      return sample;
    }
    const sample = this.samples[this.current]!;
    reset(sample, nowMs);
    return sample;
  }

  private oldest(nowMs: number): Sample {
    if (this.samples.length === 0) this.samples.push(newSample(nowMs));
    return this.samples.reduce((oldest, s) => (s.startMs < oldest.startMs ? s : oldest));
  }

  private purgeObsolete(nowMs: number): void {
    const expireAge = this.window.samples * this.window.sampleMs;
    for (const s of this.samples) if (nowMs - s.lastEventMs >= expireAge) reset(s, nowMs);
  }
}

function newSample(nowMs: number): Sample {
  return { value: 0, eventCount: 0, startMs: nowMs, lastEventMs: nowMs };
}

function reset(s: Sample, nowMs: number): void {
  s.value = 0;
  s.eventCount = 0;
  s.startMs = nowMs;
  s.lastEventMs = nowMs;
}

/**
 * Records `value` and checks the rate against `limit` as Kafka's quota sensor does: the value
 * counts whether or not it violates the quota. Returns the throttle time in ms (0 within quota).
 */
export function recordAndThrottleMs(rate: QuotaRate, value: number, limit: number, nowMs: number): number {
  rate.record(value, nowMs);
  const observed = rate.measure(nowMs);
  if (observed <= limit) return 0;
  return Math.round(((observed - limit) / limit) * rate.windowMs(nowMs));
}
