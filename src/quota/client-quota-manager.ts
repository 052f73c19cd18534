/**
 * One kind of client quota (Produce bytes, Fetch bytes or Request time), as Kafka's
 * ClientQuotaManager: a sensor per metric-tag pair measures the clients it covers, checks them
 * against the limit their tags resolve to, and answers the throttle time of a violation.
 * Sensors left unused for an hour are dropped, as Kafka expires them. Limits follow the client
 * entities: `update` is handed the newest `QuotaLimits`, and existing sensors keep their rates.
 */
import { QuotaRate, recordAndThrottleMs, type QuotaWindow } from './quota-rate.js';
import type { QuotaLimits, QuotaTags } from './quota-resolution.js';

/** Kafka's names of the quota types, also the label of their metrics. */
export type QuotaType = 'Produce' | 'Fetch' | 'Request';

const INACTIVE_SENSOR_EXPIRATION_MS = 3_600_000;
/** How often, at most, unused sensors are looked for. */
const EXPIRY_SWEEP_MS = 60_000;

interface Sensor {
  readonly tags: QuotaTags;
  readonly rate: QuotaRate;
  lastUsedMs: number;
}

export interface QuotaSensorView {
  readonly type: QuotaType;
  readonly tags: QuotaTags;
  /** The measured rate: bytes per second, or percent of one thread's time. */
  readonly rate: number;
}

export class ClientQuotaManager {
  private readonly sensors = new Map<string, Sensor>();
  private nextSweepMs = 0;

  constructor(
    readonly type: QuotaType,
    private limits: QuotaLimits,
    private readonly window: QuotaWindow,
    /** The request quota caps a throttle at one sample window (Kafka's ClientRequestQuotaManager); byte quotas do not. */
    private readonly maxThrottleMs: number = Infinity,
  ) {}

  update(limits: QuotaLimits): void {
    this.limits = limits;
  }

  /** Whether any entity sets this quota: without one nothing is recorded, as Kafka skips it. */
  get enabled(): boolean {
    return this.limits.enabled;
  }

  /** Records `value` for the client and returns how long to throttle it (ms); 0 when within quota or unlimited. */
  recordAndGetThrottleTimeMs(user: string, clientId: string, value: number, nowMs: number): number {
    if (!this.enabled) return 0;
    const sensor = this.sensorOf(user, clientId, nowMs);
    const limit = this.limits.limitOf(sensor.tags);
    if (limit === null) {
      sensor.rate.record(value, nowMs);
      return 0;
    }
    return Math.min(this.maxThrottleMs, recordAndThrottleMs(sensor.rate, value, limit, nowMs));
  }

  /** Records without checking, e.g. to take back a throttled fetch's bytes (a negative value), as Kafka "unrecords" them. */
  recordNoThrottle(user: string, clientId: string, value: number, nowMs: number): void {
    if (!this.enabled) return;
    this.sensorOf(user, clientId, nowMs).rate.record(value, nowMs);
  }

  /**
   * The most that can be recorded at once without being throttled for certain, Kafka's
   * maxValueInQuotaWindow: limit × (samples − 1) windows. Infinity when unlimited.
   */
  maxValueInQuotaWindow(user: string, clientId: string): number {
    if (!this.enabled) return Infinity;
    const limit = this.limits.limitOf(this.limits.tagsOf(user, clientId));
    return limit === null ? Infinity : limit * (this.window.samples - 1) * (this.window.sampleMs / 1000);
  }

  /** The tags the client's usage is measured under. */
  tagsOf(user: string, clientId: string): QuotaTags {
    return this.limits.tagsOf(user, clientId);
  }

  /** Every live sensor with its rate at `nowMs`, for /metrics. */
  sensorViews(nowMs: number): QuotaSensorView[] {
    return [...this.sensors.values()].map((s) => ({ type: this.type, tags: s.tags, rate: s.rate.measure(nowMs) }));
  }

  private sensorOf(user: string, clientId: string, nowMs: number): Sensor {
    this.expireUnused(nowMs);
    const tags = this.limits.tagsOf(user, clientId);
    const key = `${tags.user}\u0000${tags.clientId}`;
    let sensor = this.sensors.get(key);
    if (sensor === undefined) {
      sensor = { tags, rate: new QuotaRate(this.window), lastUsedMs: nowMs };
      this.sensors.set(key, sensor);
    }
    sensor.lastUsedMs = nowMs;
    return sensor;
  }

  private expireUnused(nowMs: number): void {
    if (nowMs < this.nextSweepMs) return;
    this.nextSweepMs = nowMs + EXPIRY_SWEEP_MS;
    for (const [key, s] of this.sensors) if (nowMs - s.lastUsedMs >= INACTIVE_SENSOR_EXPIRATION_MS) this.sensors.delete(key);
  }
}
