/**
 * The contract between the network layer and one API's handler. `defineHandler` binds a
 * handler to its generated codecs and erases the message types behind `RegisteredApi`, so the
 * dispatcher needs no casts and the registry can derive ApiVersions from what is registered.
 */
import type { BrokerMetrics } from '../common/metrics/broker-metrics.js';
import type { Session } from '../common/session.js';
import type { SaslAuthenticator } from '../security/sasl/authenticator.js';
import type { RequestHeaderData } from '@sluice/protocol/messages/index.js';
import type { MessageCodec, VersionRange } from '@sluice/protocol/primitives/codec-support.js';
import { DecodeError } from '@sluice/protocol/primitives/decode-error.js';
import type { Reader } from '@sluice/protocol/primitives/reader.js';
import type { Writer } from '@sluice/protocol/primitives/writer.js';
import type { RequestQuotas } from '../quota/client-quotas.js';
import type { ClusterContext } from './cluster-context.js';

export interface ApiVersionRange {
  readonly apiKey: number;
  readonly minVersion: number;
  readonly maxVersion: number;
}

export interface RequestContext {
  readonly header: RequestHeaderData;
  /** The connection's listener, security protocol, principal and client address. */
  readonly session: Session;
  /** The versions this broker serves, derived from the registered handlers (for ApiVersions). */
  readonly supportedApis: readonly ApiVersionRange[];
  /**
   * Broker-wide state for the handlers, from the dispatcher (the composition root gives it the
   * source), so the network layer need not know it.
   */
  readonly cluster?: ClusterContext;
  /** Sees each decoded response before it is encoded (the dispatcher counts its error codes for /metrics). */
  readonly onResponse?: (response: unknown) => void;
  /** The broker's own instruments (bytes and messages per topic, produce batches), shared with the dispatcher. */
  readonly metrics: BrokerMetrics;
  /** The SASL state of the connections, for SaslHandshake and SaslAuthenticate; absent on a broker without SASL listeners. */
  readonly authenticator?: SaslAuthenticator;
  /**
   * The client quotas of this request, when the broker enforces them. Produce and Fetch settle
   * them themselves; for any other API `defineHandler` records the request quota and puts its
   * throttle in the response's `throttle_time_ms`.
   */
  readonly quotas?: RequestQuotas;
}

/**
 * Thrown by a handler when the only right answer is to close the connection (a failed acks=0
 * produce, which has no response to carry the error). Connections close on any DecodeError.
 */
export class CloseConnection extends DecodeError {
  constructor(message: string) {
    super(message);
    this.name = 'CloseConnection';
  }
}

/** Returned by a handler whose request gets no response at all (Produce with acks=0). */
export const NO_RESPONSE: unique symbol = Symbol('no response');

export type ResponseBody = (w: Writer) => void;

export interface RegisteredApi {
  readonly apiKey: number;
  readonly name: string;
  /** Versions served: a request at any other version closes its connection. */
  readonly versions: VersionRange;
  /** Versions advertised in ApiVersions; the served ones unless the handler says otherwise. */
  readonly advertisedVersions: VersionRange;
  invoke(body: Reader, ctx: RequestContext): Promise<ResponseBody | typeof NO_RESPONSE>;
}

/** A handler known by its API key and version ranges before its module is loaded (see `index.ts`). */
export interface HandlerEntry {
  readonly apiKey: number;
  readonly name: string;
  readonly versions: VersionRange;
  readonly advertisedVersions: VersionRange;
  /** Its handler reads `ClusterContext.groups`, `transactions` or `shareCoordinator`: they load before its first request. */
  readonly usesCoordinators?: boolean;
  load(): Promise<RegisteredApi>;
}

export interface HandlerSpec<Req, Res> {
  readonly request: MessageCodec<Req, never>;
  readonly response: MessageCodec<unknown, Res>;
  /** Versions served; defaults to the generated codec's range. */
  readonly versions?: VersionRange;
  /**
   * Versions advertised, where Kafka advertises more than it serves (Produce, whose v0-v2 Kafka 4
   * still lists for old librdkafka's sake); defaults to `versions`.
   */
  readonly advertisedVersions?: VersionRange;
  handle(request: Req, ctx: RequestContext): Res | typeof NO_RESPONSE | Promise<Res | typeof NO_RESPONSE>;
}

export function defineHandler<Req, Res>(spec: HandlerSpec<Req, Res>): RegisteredApi {
  const apiKey = spec.request.apiKey;
  if (apiKey === null || apiKey !== spec.response.apiKey) {
    throw new Error(`${spec.request.name}/${spec.response.name} is not a request/response pair`);
  }
  const name = spec.request.name.replace(/Request$/, '');
  const versions = spec.versions ?? spec.request.validVersions;
  const hasThrottleTime = spec.response.schema.fields.some((f) => f.prop === 'throttleTimeMs');
  return {
    apiKey,
    name,
    versions,
    advertisedVersions: spec.advertisedVersions ?? versions,
    async invoke(body, ctx) {
      const version = ctx.header.requestApiVersion;
      const request = spec.request.read(body, version);
      const response = await spec.handle(request, ctx);
      if (response === NO_RESPONSE) return NO_RESPONSE;
      if (ctx.quotas !== undefined && !ctx.quotas.settled) {
        const throttleTimeMs = ctx.quotas.settleRequestQuota();
        // Every response type with the field carries the request quota's throttle (KIP-219).
        if (throttleTimeMs > 0 && hasThrottleTime) (response as { throttleTimeMs?: number }).throttleTimeMs = throttleTimeMs;
      }
      ctx.onResponse?.(response);
      return (w) => spec.response.write(w, response, version);
    },
  };
}
