/**
 * The authentication state of each connection on a SASL listener, as Kafka's
 * SaslServerAuthenticator and the socket server run it (KIP-43, KIP-152, KIP-368):
 *
 * - Before authentication only ApiVersions (once answered, no more) and SaslHandshake are
 *   served; after a successful handshake only SaslAuthenticate. Any other request closes the
 *   connection.
 * - A handshake naming a mechanism the listener does not enable is answered
 *   UNSUPPORTED_SASL_MECHANISM with the enabled list; a failed exchange SASL_AUTHENTICATION_FAILED
 *   with Kafka's message. Either response is held back `connection.failed.authentication.delay.ms`
 *   and the connection closed after it.
 * - Authenticated, the session's principal is `User:<name>` and, when `connections.max.reauth.ms`
 *   applies, the session expires after it (SaslAuthenticate v1+ tells the client). Once expired,
 *   any request other than a SaslHandshake that begins a re-authentication closes the
 *   connection. A re-authentication (at most one a second) must use the same mechanism and
 *   reach the same principal, or the connection closes.
 *
 * Connections on other listeners are not its business: `admit` serves all their requests, and
 * SaslHandshake/SaslAuthenticate there (or after authentication) get ILLEGAL_SASL_STATE.
 * State lives in a WeakMap keyed by the connection's Session, so the network layer carries
 * nothing SASL-specific.
 */
import type { Logger } from '../../common/logger.js';
import type { BrokerMetrics } from '../../common/metrics/broker-metrics.js';
import type { Session } from '../../common/session.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { InvalidSaslCredentials, SaslAuthenticationError, invalidCredentialsMessage, type SaslServerMechanism } from './mechanism.js';
import { PlainServer } from './plain-server.js';
import type { SaslConfig, SaslListenerConfig } from './sasl-config.js';
import { ScramServer, type ScramCredentialLookup } from './scram-server.js';
import { scramMechanism } from '@sluice/protocol/sasl/scram-formatter.js';

const API_VERSIONS = 18;
const SASL_HANDSHAKE = 17;
const SASL_AUTHENTICATE = 36;
/** Kafka ignores a re-authentication begun within a second of the previous one. */
const MIN_REAUTH_INTERVAL_MS = 1000;
/** At most one failed-authentication log line per this interval; the others are counted into it. */
const FAILURE_LOG_INTERVAL_MS = 10_000;

interface Authenticated {
  readonly mechanism: string;
  readonly user: string;
  /** Epoch ms after which the session is over; null when it never expires. */
  readonly expiresAtMs: number | null;
  readonly lastReauthStartMs: number | null;
}

type ConnectionState =
  | { readonly phase: 'handshake'; readonly versionsAnswered: boolean }
  | {
      readonly phase: 'authenticate';
      readonly server: SaslServerMechanism;
      readonly previous: Authenticated | null;
      readonly reauthStartMs: number | null;
    }
  | { readonly phase: 'reauth-bad-mechanism'; readonly message: string; readonly previous: Authenticated }
  | { readonly phase: 'complete'; readonly session: Authenticated }
  | { readonly phase: 'failed' };

export type Admission = 'serve' | 'close';

export interface HandshakeResult {
  readonly errorCode: number;
  readonly mechanisms: readonly string[];
}

export interface AuthenticateResult {
  readonly errorCode: number;
  readonly errorMessage: string | null;
  readonly authBytes: Buffer;
  readonly sessionLifetimeMs: number;
}

export class SaslAuthenticator {
  private readonly states = new WeakMap<Session, ConnectionState>();
  /** Sessions whose last response is the final one, with the delay before it goes out. */
  private readonly closing = new WeakMap<Session, number>();
  /** Re-authentications whose handshake is awaited: the session they renew and when they began. */
  private readonly reauthentications = new WeakMap<Session, { readonly previous: Authenticated; readonly startMs: number }>();
  private suppressedFailures = 0;
  private lastFailureLogMs = -Infinity;

  constructor(
    private readonly config: SaslConfig,
    private readonly credentials: ScramCredentialLookup,
    private readonly metrics: BrokerMetrics,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether a request may be served on this connection now; 'close' ends the connection without a response. */
  admit(session: Session, apiKey: number): Admission {
    if (!isSasl(session)) return 'serve';
    const listener = this.listenerOf(session);
    // A SASL listener without SASL settings authenticates nobody rather than everybody.
    if (listener === undefined) return 'close';
    const state = this.stateOf(session);
    switch (state.phase) {
      case 'handshake':
        if (apiKey === API_VERSIONS && !state.versionsAnswered) {
          this.states.set(session, { phase: 'handshake', versionsAnswered: true });
          return 'serve';
        }
        return apiKey === SASL_HANDSHAKE ? 'serve' : this.refuse(session, apiKey, 'during SASL handshake');
      case 'authenticate':
      case 'reauth-bad-mechanism':
        return apiKey === SASL_AUTHENTICATE ? 'serve' : this.refuse(session, apiKey, 'during SASL authentication');
      case 'failed':
        return 'close';
      case 'complete':
        return this.admitAuthenticated(session, listener, state.session, apiKey);
    }
  }

  private admitAuthenticated(session: Session, listener: SaslListenerConfig, current: Authenticated, apiKey: number): Admission {
    const now = this.now();
    const canReauthenticate =
      current.expiresAtMs !== null && (current.lastReauthStartMs === null || now - current.lastReauthStartMs >= MIN_REAUTH_INTERVAL_MS);
    if (apiKey === SASL_HANDSHAKE && canReauthenticate) {
      this.states.set(session, { phase: 'handshake', versionsAnswered: true });
      this.reauthentications.set(session, { previous: current, startMs: now });
      return 'serve';
    }
    if (current.expiresAtMs !== null && now >= current.expiresAtMs) {
      this.metrics.expiredConnectionKilled(listener.listenerName);
      this.log.debug('closing connection whose SASL session expired', { client: session.clientAddress, principal: session.principal });
      this.states.set(session, { phase: 'failed' });
      return 'close';
    }
    return 'serve';
  }

  private refuse(session: Session, apiKey: number, when: string): Admission {
    this.log.debug('closing connection: unexpected request', { client: session.clientAddress, apiKey, when });
    this.states.set(session, { phase: 'failed' });
    return 'close';
  }

  handshake(session: Session, mechanism: string): HandshakeResult {
    const listener = this.listenerOf(session);
    const state = listener === undefined ? undefined : this.stateOf(session);
    if (listener === undefined || state?.phase !== 'handshake') return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] };
    const reauth = this.reauthentications.get(session);
    this.reauthentications.delete(session);
    if (!listener.mechanisms.includes(mechanism)) {
      this.fail(session, listener, mechanism, reauth !== undefined, `Unsupported SASL mechanism ${mechanism}`);
      return { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms: listener.mechanisms };
    }
    if (reauth !== undefined && reauth.previous.mechanism !== mechanism) {
      this.states.set(session, {
        phase: 'reauth-bad-mechanism',
        previous: reauth.previous,
        message: `SASL mechanism '${mechanism}' requested by client is not supported for re-authentication of mechanism '${reauth.previous.mechanism}'`,
      });
      return { errorCode: ErrorCode.NONE, mechanisms: listener.mechanisms };
    }
    this.states.set(session, {
      phase: 'authenticate',
      server: this.serverFor(listener, mechanism),
      previous: reauth?.previous ?? null,
      reauthStartMs: reauth?.startMs ?? null,
    });
    return { errorCode: ErrorCode.NONE, mechanisms: listener.mechanisms };
  }

  authenticate(session: Session, authBytes: Buffer): AuthenticateResult {
    const listener = this.listenerOf(session);
    const state = listener === undefined ? undefined : this.stateOf(session);
    if (listener === undefined || state === undefined || (state.phase !== 'authenticate' && state.phase !== 'reauth-bad-mechanism')) {
      return {
        errorCode: ErrorCode.ILLEGAL_SASL_STATE,
        errorMessage: 'SaslAuthenticate request received after successful authentication',
        authBytes: Buffer.alloc(0),
        sessionLifetimeMs: 0,
      };
    }
    if (state.phase === 'reauth-bad-mechanism')
      return this.failure(session, listener, state.previous.mechanism, true, state.message, state.message);
    const reauthenticating = state.previous !== null;
    const mechanism = state.server.mechanism;
    let response: Buffer;
    try {
      response = state.server.evaluate(authBytes);
      if (state.server.complete && state.previous !== null && state.previous.user !== state.server.authorizationId) {
        throw new SaslAuthenticationError(
          `Cannot change principals during re-authentication from User.${state.previous.user}: User.${state.server.authorizationId}`,
        );
      }
    } catch (err) {
      if (err instanceof SaslAuthenticationError)
        return this.failure(session, listener, mechanism, reauthenticating, err.message, err.message);
      if (err instanceof InvalidSaslCredentials)
        return this.failure(
          session,
          listener,
          mechanism,
          reauthenticating,
          invalidCredentialsMessage(mechanism, reauthenticating),
          err.message,
        );
      throw err;
    }
    if (!state.server.complete) return { errorCode: ErrorCode.NONE, errorMessage: null, authBytes: response, sessionLifetimeMs: 0 };
    const now = this.now();
    const lifetimeMs = listener.maxReauthMs.get(mechanism) ?? 0;
    const user = state.server.authorizationId;
    this.states.set(session, {
      phase: 'complete',
      session: { mechanism, user, expiresAtMs: lifetimeMs > 0 ? now + lifetimeMs : null, lastReauthStartMs: state.reauthStartMs },
    });
    session.principal = `User:${user}`;
    this.metrics.authentication(listener.listenerName, mechanism, 'success', reauthenticating);
    return { errorCode: ErrorCode.NONE, errorMessage: null, authBytes: response, sessionLifetimeMs: lifetimeMs };
  }

  /**
   * After a response to this session is encoded: the delay before sending it when it is the
   * connection's last (a failed authentication), else null.
   */
  takeClosingDelay(session: Session): number | null {
    const delay = this.closing.get(session);
    if (delay === undefined) return null;
    this.closing.delete(session);
    return delay;
  }

  private failure(
    session: Session,
    listener: SaslListenerConfig,
    mechanism: string,
    reauthentication: boolean,
    clientMessage: string,
    detail: string,
  ): AuthenticateResult {
    this.fail(session, listener, mechanism, reauthentication, detail);
    return {
      errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED,
      errorMessage: clientMessage,
      authBytes: Buffer.alloc(0),
      sessionLifetimeMs: 0,
    };
  }

  private fail(session: Session, listener: SaslListenerConfig, mechanism: string, reauthentication: boolean, detail: string): void {
    this.states.set(session, { phase: 'failed' });
    this.closing.set(session, this.config.failedAuthenticationDelayMs);
    // The mechanism a client asked for is any string: only enabled ones become label values.
    this.metrics.authentication(
      listener.listenerName,
      listener.mechanisms.includes(mechanism) ? mechanism : 'other',
      'failure',
      reauthentication,
    );
    const now = this.now();
    if (now - this.lastFailureLogMs < FAILURE_LOG_INTERVAL_MS) {
      this.suppressedFailures++;
      return;
    }
    const suppressed = this.suppressedFailures;
    this.suppressedFailures = 0;
    this.lastFailureLogMs = now;
    this.log.info(`failed ${reauthentication ? 're-' : ''}authentication`, {
      client: session.clientAddress,
      listener: listener.listenerName,
      mechanism,
      reason: detail,
      ...(suppressed > 0 ? { moreFailuresSinceLastLine: suppressed } : {}),
    });
  }

  private serverFor(listener: SaslListenerConfig, mechanism: string): SaslServerMechanism {
    const scram = scramMechanism(mechanism);
    return scram === undefined ? new PlainServer(listener.plainUsers) : new ScramServer(scram, this.credentials);
  }

  private listenerOf(session: Session): SaslListenerConfig | undefined {
    return isSasl(session) ? this.config.listeners.get(session.listenerName) : undefined;
  }

  private stateOf(session: Session): ConnectionState {
    return this.states.get(session) ?? { phase: 'handshake', versionsAnswered: false };
  }
}

function isSasl(session: Session): boolean {
  return session.securityProtocol === 'SASL_PLAINTEXT' || session.securityProtocol === 'SASL_SSL';
}
