/**
 * The broker's client quotas (KIP-13, KIP-55, KIP-124, KIP-219): `producer_byte_rate` on
 * Produce request bytes, `consumer_byte_rate` on Fetch response bytes and `request_percentage`
 * on handler time, each enforced by this broker alone over its own traffic, as every Kafka
 * broker enforces the full quota. Limits come from the client entities of the current metadata
 * image (the same on every broker of a cluster) and are re-read whenever the image changes.
 *
 * `forRequest` gives one request its `RequestQuotas`: what its handler records and how a
 * throttle reaches the connection, which sends the response at once and then stops reading for
 * the throttle time (KIP-219).
 */
import type { BrokerMetrics } from '../common/metrics/broker-metrics.js';
import { ClientQuotaManager, type QuotaSensorView, type QuotaType } from './client-quota-manager.js';
import { CONSUMER_BYTE_RATE, PRODUCER_BYTE_RATE, REQUEST_PERCENTAGE } from './quota-configs.js';
import type { QuotaWindow } from './quota-rate.js';
import { QuotaLimits, quotaUserOf, type QuotaEntityConfigs } from './quota-resolution.js';

/** What the quotas read the client entities from: the current metadata image. */
export interface QuotaEntitySource {
  clientEntities(): readonly QuotaEntityConfigs[];
}

/** Handler time in ms as a percentage of one thread's second: Kafka's nanosToPercentage. */
const MS_TO_PERCENTAGE = 100 / 1000;

export class ClientQuotas {
  readonly produce: ClientQuotaManager;
  readonly fetch: ClientQuotaManager;
  readonly request: ClientQuotaManager;
  private seen: QuotaEntitySource | null = null;

  constructor(
    /** The current image, read on every request; a new image means the limits may have changed. */
    private readonly image: () => QuotaEntitySource,
    readonly window: QuotaWindow,
    private readonly metrics: BrokerMetrics | null = null,
    private readonly clock: () => number = Date.now,
  ) {
    const none = new QuotaLimits([], PRODUCER_BYTE_RATE);
    this.produce = new ClientQuotaManager('Produce', none, window);
    this.fetch = new ClientQuotaManager('Fetch', none, window);
    this.request = new ClientQuotaManager('Request', none, window, window.sampleMs);
    metrics?.clientQuotaSensors(() => this.sensorViews());
  }

  /** The managers with the limits of the current image. */
  private current(): this {
    const image = this.image();
    if (image !== this.seen) {
      this.seen = image;
      const entities = image.clientEntities();
      this.produce.update(new QuotaLimits(entities, PRODUCER_BYTE_RATE));
      this.fetch.update(new QuotaLimits(entities, CONSUMER_BYTE_RATE));
      this.request.update(new QuotaLimits(entities, REQUEST_PERCENTAGE));
    }
    return this;
  }

  /** One request's quotas: `principal` and `clientId` pick its sensors, `mute` stops reading its connection for a throttle. */
  forRequest(principal: string, clientId: string, mute: (ms: number) => void): RequestQuotas {
    return new RequestQuotas(this.current(), quotaUserOf(principal), clientId, mute, this.clock, this.metrics);
  }

  private sensorViews(): QuotaSensorView[] {
    const now = this.clock();
    return [...this.produce.sensorViews(now), ...this.fetch.sensorViews(now), ...this.request.sensorViews(now)];
  }
}

/**
 * The quotas of one request. Its handler time (the main thread's, set by the dispatcher) counts
 * against the request quota once, when a handler or the dispatcher asks for the request's
 * throttle; Produce and Fetch combine it with their byte quotas, any other API only has it.
 */
export class RequestQuotas {
  /** Main-thread time spent on the request so far, in ms. */
  handlerMs = 0;
  /** The request's size (header and body), which the produce quota counts as Kafka does. */
  requestBytes = 0;
  private requestThrottle: number | null = null;

  constructor(
    private readonly quotas: ClientQuotas,
    readonly user: string,
    readonly clientId: string,
    private readonly mute: (ms: number) => void,
    private readonly clock: () => number,
    private readonly metrics: BrokerMetrics | null,
  ) {}

  /** Whether the request quota has been recorded (or waived) for this request. */
  get settled(): boolean {
    return this.requestThrottle !== null;
  }

  /** Records the handler time against the request quota (once) and answers its throttle in ms. */
  requestThrottleMs(): number {
    this.requestThrottle ??= this.quotas.request.recordAndGetThrottleTimeMs(
      this.user,
      this.clientId,
      this.handlerMs * MS_TO_PERCENTAGE,
      this.clock(),
    );
    return this.requestThrottle;
  }

  /** For requests Kafka exempts from the request quota: inter-broker requests, followers' fetches, acks=0 produces. */
  exempt(): void {
    this.requestThrottle ??= 0;
  }

  /** Records the request's bytes against the produce quota and answers its throttle in ms. */
  produceThrottleMs(): number {
    return this.quotas.produce.recordAndGetThrottleTimeMs(this.user, this.clientId, this.requestBytes, this.clock());
  }

  fetchThrottleMs(responseBytes: number): number {
    return this.quotas.fetch.recordAndGetThrottleTimeMs(this.user, this.clientId, responseBytes, this.clock());
  }

  /** A throttled fetch answers no records, so its bytes are taken back from the rate. */
  unrecordFetch(responseBytes: number): void {
    this.quotas.fetch.recordNoThrottle(this.user, this.clientId, -responseBytes, this.clock());
  }

  /** The most bytes one fetch may answer without being throttled for certain. */
  fetchMaxBytes(): number {
    return this.quotas.fetch.maxValueInQuotaWindow(this.user, this.clientId);
  }

  /** Throttles the connection for `ms` on behalf of the quota of `type`, which counts the throttle. */
  throttle(type: QuotaType, ms: number): void {
    if (ms <= 0) return;
    const manager = type === 'Produce' ? this.quotas.produce : type === 'Fetch' ? this.quotas.fetch : this.quotas.request;
    const tags = manager.tagsOf(this.user, this.clientId);
    this.metrics?.clientQuotaThrottled(type, tags.user, tags.clientId, ms);
    this.mute(ms);
  }

  /**
   * Throttles for the larger of a byte quota's and the request quota's throttle (Kafka's
   * Produce and Fetch) and answers it, the response's `throttle_time_ms`.
   */
  throttleForLarger(bytesType: QuotaType, bytesThrottleMs: number, requestThrottleMs: number): number {
    const ms = Math.max(bytesThrottleMs, requestThrottleMs);
    this.throttle(bytesThrottleMs > requestThrottleMs ? bytesType : 'Request', ms);
    return ms;
  }

  /**
   * The throttle of an API with only the request quota: records it, throttles the connection and
   * answers the `throttle_time_ms` to put in the response.
   */
  settleRequestQuota(): number {
    const ms = this.requestThrottleMs();
    this.throttle('Request', ms);
    return ms;
  }
}
