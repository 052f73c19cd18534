/**
 * Serves one request: finds its handler in the registry, answers an ApiVersions request at an
 * unknown version the KIP-511 way, and encodes the handler's response with the header version
 * Kafka uses. Failures other than bad input are logged with the request's identity and rethrown.
 * With client quotas, each request gets its `RequestQuotas`, charged with the main thread's time
 * spent on it: the synchronous part of its handling (decoding, the handler up to its first wait),
 * which is what Sluice's single request thread gives it — time waiting on partition workers,
 * purgatories or coordinators is no handler time, as Kafka counts no purgatory time.
 * Requests that arrive while the broker is still starting wait at its `ServingGate`.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from '../common/logger.js';
import type { BrokerMetrics } from '../common/metrics/broker-metrics.js';
import type { ClusterContext } from './cluster-context.js';
import type { Session } from '../common/session.js';
import { forEachErrorCode } from '../common/metrics/response-errors.js';
import { ErrorCode, errorName } from '@sluice/protocol/errors.js';
import { API_VERSIONS_KEY, encodeResponse } from '@sluice/protocol/envelope.js';
import type { FinalResponse } from '@sluice/protocol/framing.js';
import type { SaslAuthenticator } from '../security/sasl/authenticator.js';
import { ApiVersionsResponse } from '@sluice/protocol/messages/api/18-api-versions.js';
import type { RequestHeaderData } from '@sluice/protocol/messages/headers.js';
import { DecodeError } from '@sluice/protocol/primitives/decode-error.js';
import type { Reader } from '@sluice/protocol/primitives/reader.js';
import type { FrameParts } from '@sluice/protocol/primitives/writer.js';
import { apiVersionsBody } from './18-api-versions.js';
import { NO_RESPONSE, type RequestContext } from './handler.js';
import type { HandlerRegistry } from './registry.js';
import type { ClientQuotas } from '../quota/client-quotas.js';
import type { ServingGate } from './serving-gate.js';
import { CLUSTER_HANDLERS } from './index.js';

/** Inter-broker requests, which Kafka exempts from the request quota (they are cluster actions). */
const WRITE_TXN_MARKERS_KEY = 27;
const QUOTA_EXEMPT_APIS: ReadonlySet<number> = new Set([...CLUSTER_HANDLERS.map((h) => h.apiKey), WRITE_TXN_MARKERS_KEY]);

export class RequestDispatcher {
  /** Per API, the `onResponse` hook counting its responses' error codes (made once, not per request). */
  private readonly errorCounters = new Map<string, (response: unknown) => void>();

  constructor(
    private readonly registry: HandlerRegistry,
    private readonly log: Logger,
    private readonly metrics: BrokerMetrics,
    /**
     * The cluster state each request's context carries, read per request: it exists only once
     * the listener is bound (the advertised port may be the one the OS picked).
     */
    private readonly cluster: () => ClusterContext | undefined = () => undefined,
    /** The broker's client quotas; none enforced without. */
    private readonly quotas: ClientQuotas | null = null,
    /** Decides which requests an unauthenticated connection of a SASL listener may send; none without SASL listeners. */
    private readonly authenticator?: SaslAuthenticator,
    /** Holds requests that arrive before the broker can serve them; none held without. */
    private readonly gate?: ServingGate,
  ) {}

  /**
   * The share sessions the connection opened end, and their members' acquired records are
   * released (as Kafka's ShareSessionCache on disconnect). Never rejects: the connection calls it
   * as it goes away and nothing is left to answer, so a failure is logged here (an unhandled
   * rejection would stop the broker).
   */
  async connectionClosed(session: Session): Promise<void> {
    try {
      const shares = this.cluster()?.shares;
      if (shares === undefined) return;
      await Promise.all(shares.sessions.connectionClosed(session).map((key) => shares.partitions.releaseMember(key.groupId, key.memberId)));
    } catch (err) {
      this.log.error('releasing the share sessions of a closed connection failed', {
        client: session.clientAddress,
        principal: session.principal,
        error: err instanceof Error ? err.stack : String(err),
      });
    }
  }

  async dispatch(
    header: RequestHeaderData,
    body: Reader,
    session: Session,
    throttle: (ms: number) => void = () => {},
  ): Promise<FrameParts | FinalResponse | null> {
    if (this.gate !== undefined && !this.gate.isOpen) await this.gate.passed();
    const apiKey = header.requestApiKey;
    const version = header.requestApiVersion;
    const handler = this.registry.get(apiKey);
    if (handler === undefined) throw new DecodeError(`API key ${apiKey} is not served by this broker`);
    const started = performance.now();
    if (!this.registry.supports(apiKey, version)) {
      if (apiKey !== API_VERSIONS_KEY) {
        this.metrics.requestFailed(handler.name);
        throw new DecodeError(`unsupported version ${version} of ${handler.name}`);
      }
      // KIP-511: answer with version 0, the error and our ranges, so the client can pick a version.
      const response = apiVersionsBody(ErrorCode.UNSUPPORTED_VERSION, this.registry.supportedApis);
      this.metrics.requestError(handler.name, ErrorCode.UNSUPPORTED_VERSION, errorName(ErrorCode.UNSUPPORTED_VERSION));
      this.metrics.requestServed(handler.name, 0, (performance.now() - started) / 1000);
      return encodeResponse(apiKey, 0, header.correlationId, (w) => ApiVersionsResponse.write(w, response, 0));
    }
    if (this.authenticator?.admit(session, apiKey) === 'close') {
      this.metrics.requestFailed(handler.name);
      throw new DecodeError(`${handler.name} request not allowed in the connection's SASL state`);
    }
    const quotas = this.quotas?.forRequest(session.principal, header.clientId ?? '', throttle);
    if (quotas !== undefined) {
      quotas.requestBytes = body.buf.length;
      if (QUOTA_EXEMPT_APIS.has(apiKey)) quotas.exempt();
    }
    const ctx: RequestContext = {
      header,
      session,
      supportedApis: this.registry.supportedApis,
      onResponse: this.errorCounter(handler.name),
      metrics: this.metrics,
      cluster: this.cluster(),
      authenticator: this.authenticator,
      ...(quotas === undefined ? {} : { quotas }),
    };
    try {
      const invoked = handler.invoke(body, ctx);
      if (quotas !== undefined) quotas.handlerMs = performance.now() - started;
      const response = await invoked;
      const frame = response === NO_RESPONSE ? null : encodeResponse(apiKey, version, header.correlationId, response);
      this.metrics.requestServed(handler.name, version, (performance.now() - started) / 1000);
      const closingDelay = frame === null ? null : (this.authenticator?.takeClosingDelay(session) ?? null);
      return closingDelay === null ? frame : { finalFrame: frame!, delayMs: closingDelay };
    } catch (err) {
      this.metrics.requestFailed(handler.name);
      if (!(err instanceof DecodeError)) {
        this.log.error('request failed', {
          client: session.clientAddress,
          principal: session.principal,
          clientId: header.clientId,
          api: handler.name,
          version,
          correlationId: header.correlationId,
          error: err instanceof Error ? err.stack : String(err),
        });
      }
      throw err;
    }
  }

  private errorCounter(api: string): (response: unknown) => void {
    let counter = this.errorCounters.get(api);
    if (counter === undefined) {
      const count = (errorCode: number): void => this.metrics.requestError(api, errorCode, errorName(errorCode));
      counter = (response) => forEachErrorCode(response, count);
      this.errorCounters.set(api, counter);
    }
    return counter;
  }
}
