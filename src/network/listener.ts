/**
 * The TCP listener of one Kafka listener: accepts sockets within the broker's connection limits,
 * enables TCP keepalive so half-open connections behind firewalls are found, performs the TLS
 * handshake on SSL listeners (bounded in time, so a flood of stalled or garbage handshakes only
 * costs their own sockets), decides the principal of a client certificate, and hands each socket
 * to a Connection.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger } from '../common/logger.js';
import { nodeTls } from '@sluice/protocol/common/node-tls.js';
import { ANONYMOUS_PRINCIPAL } from '../common/session.js';
import { rfc2253Name } from '@sluice/protocol/common/ssl-principal-mapper.js';
import type { ServerTls } from '@sluice/protocol/common/tls-config.js';
import { Connection, type ConnectionOptions } from './connection.js';
import type { ConnectionLimits } from './connection-limits.js';
import { normalizeIp } from './connection-limits.js';
import type { Dispatcher } from './dispatcher.js';

const KEEPALIVE_INITIAL_DELAY_MS = 60_000;

/** How long a clean shutdown waits for requests in progress before closing their connections. */
const SHUTDOWN_GRACE_MS = 5_000;

/** A client that has not completed its TLS handshake by then is disconnected (Kafka has no key for it). */
const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;

export interface ListenerOptions extends ConnectionOptions {
  /** Set on SSL and SASL_SSL listeners. */
  readonly tls: ServerTls | null;
  /** Shared by every listener of the broker. */
  readonly limits: ConnectionLimits;
  readonly handshakeTimeoutMs?: number;
}

export class Listener {
  private readonly server: Server;
  private readonly connections = new Set<Connection>();
  /** Accepted sockets of a TLS listener still in their handshake, by the client's address:port. */
  private readonly handshaking = new Map<string, Socket>();

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly options: ListenerOptions,
    private readonly log: Logger,
  ) {
    const tls = options.tls;
    if (tls === null) {
      this.server = createServer((socket: Socket) => {
        if (this.admit(socket)) this.open(socket, ANONYMOUS_PRINCIPAL);
      });
      return;
    }
    const handshakeTimeoutMs = options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
    this.server = nodeTls().createServer(
      {
        ...tls.contextOptions,
        requestCert: tls.clientAuth !== 'none',
        // With `requested` a client may go without a certificate; one it presents must still be trusted (checked below).
        rejectUnauthorized: tls.clientAuth === 'required',
        handshakeTimeout: handshakeTimeoutMs,
      },
      (secure: TLSSocket) => this.onSecure(secure, tls),
    );
    this.server.on('connection', (socket: Socket) => {
      if (!this.admit(socket)) return;
      const client = clientOf(socket);
      this.handshaking.set(client, socket);
      socket.once('close', () => this.handshaking.delete(client));
    });
    // Node reports a failed or timed-out handshake here but leaves the socket open.
    this.server.on('tlsClientError', (err: Error, secure: TLSSocket) => {
      secure.destroy();
      this.options.clientWarnings.warn('TLS handshake failed', {
        listener: options.listenerName,
        client: clientOf(secure),
        reason: err.message.trim(),
      });
    });
  }

  /** Counts the socket against the connection limits, or closes it at once when over them. */
  private admit(socket: Socket): boolean {
    const ip = normalizeIp(socket.remoteAddress);
    const refused = this.options.limits.tryAcquire(ip);
    if (refused !== null) {
      this.options.clientWarnings.warn('refusing connection', { listener: this.options.listenerName, client: ip, reason: refused });
      socket.destroy();
      return false;
    }
    socket.once('close', () => this.options.limits.release(ip));
    socket.setKeepAlive(true, KEEPALIVE_INITIAL_DELAY_MS);
    return true;
  }

  private onSecure(secure: TLSSocket, tls: ServerTls): void {
    this.handshaking.delete(clientOf(secure));
    const principal = this.principalOf(secure, tls);
    if (principal instanceof Error) {
      this.options.clientWarnings.warn('TLS client authentication failed', {
        listener: this.options.listenerName,
        client: clientOf(secure),
        reason: principal.message,
      });
      secure.destroy();
      return;
    }
    this.log.debug('TLS client authenticated', { listener: this.options.listenerName, client: clientOf(secure), principal });
    this.open(secure, principal);
  }

  /** The client certificate's principal, anonymous without one; an Error when it must be refused. */
  private principalOf(secure: TLSSocket, tls: ServerTls): string | Error {
    const certificate = secure.getPeerX509Certificate();
    if (certificate === undefined) return ANONYMOUS_PRINCIPAL;
    // Java refuses an untrusted certificate even when client authentication is only requested.
    if (!secure.authorized) return new Error(`the client certificate is not trusted: ${String(secure.authorizationError)}`);
    try {
      return `User:${tls.principalMapper.nameOf(rfc2253Name(certificate.subject))}`;
    } catch (err) {
      return err as Error;
    }
  }

  private open(socket: Socket, principal: string): void {
    const connection = new Connection(socket, this.dispatcher, this.options, this.log, principal);
    this.connections.add(connection);
    socket.on('close', () => this.connections.delete(connection));
  }

  listen(host: string, port: number): Promise<{ host: string; port: number }> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        const address = this.server.address();
        if (address === null || typeof address === 'string') {
          reject(new Error(`unexpected listener address ${String(address)}`));
          return;
        }
        resolve({ host: address.address, port: address.port });
      });
    });
  }

  /**
   * Stops accepting and reading new requests at once, lets the requests already received finish
   * (up to a grace period; the caller should wake long-poll fetches meanwhile), then closes
   * every connection.
   */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    // Handshakes in progress have no request to finish.
    for (const socket of this.handshaking.values()) socket.destroy();
    const drained = Promise.all([...this.connections].map((c) => c.quiesce()));
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_GRACE_MS)));
    await Promise.race([drained, grace]);
    clearTimeout(timer);
    for (const c of this.connections) c.close();
    await closed;
  }
}

function clientOf(socket: Socket): string {
  return `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
}
