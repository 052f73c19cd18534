/**
 * One client connection, on the main thread: frames the byte stream, decodes request headers,
 * hands them to the dispatcher and writes responses strictly in request order, even when a later
 * request finishes first. Bad input (oversized or malformed frames, unknown APIs, unparsable
 * requests) closes only this connection, as Kafka does.
 */
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { Logger } from '../common/logger.js';
import type { RateLimitedLog } from '../common/rate-limited-log.js';
import type { BrokerMetrics } from '../common/metrics/broker-metrics.js';
import { ANONYMOUS_PRINCIPAL, type SecurityProtocol, type Session } from '../common/session.js';
import { decodeRequestHeader } from '../protocol/envelope.js';
import { FrameDecoder } from '../protocol/framing.js';
import { DecodeError } from '../protocol/primitives/decode-error.js';
import { Reader } from '../protocol/primitives/reader.js';
import type { FrameParts } from '../protocol/primitives/writer.js';
import type { Dispatcher } from './dispatcher.js';
import { OutboundQueue } from './outbound-queue.js';

export interface ConnectionOptions {
  /** The listener's name and security protocol, as `listener.security.protocol.map` pairs them. */
  readonly listenerName: string;
  readonly securityProtocol: SecurityProtocol;
  readonly maxFrameBytes: number;
  /** Stop reading from the socket while this many requests await their responses. */
  readonly maxInFlightRequests: number;
  /**
   * `connections.max.idle.ms`: close a connection with no traffic for this long, so half-open
   * connections left behind by firewalls do not pile up. 0 disables it.
   */
  readonly idleTimeoutMs: number;
  /** The broker's instruments, which count the response bytes sent. */
  readonly metrics: BrokerMetrics;
  /** Where bad input is reported: rate-limited for the whole broker. */
  readonly clientWarnings: RateLimitedLog;
}

interface PendingResponse {
  frame: FrameParts | null;
  done: boolean;
}

export class Connection {
  private readonly decoder: FrameDecoder;
  private readonly pending: PendingResponse[] = [];
  private readonly session: Session;
  private readonly outbound: OutboundQueue;
  private closed = false;
  /** Resolvers of `quiesce()`, called once no request is pending and everything is sent. */
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly socket: Socket,
    private readonly dispatcher: Dispatcher,
    private readonly options: ConnectionOptions,
    private readonly log: Logger,
    /** Already authenticated by the transport (a TLS client certificate); SASL may set it later. */
    principal: string = ANONYMOUS_PRINCIPAL,
  ) {
    this.decoder = new FrameDecoder(options.maxFrameBytes);
    this.session = {
      listenerName: options.listenerName,
      securityProtocol: options.securityProtocol,
      principal,
      clientAddress: `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`,
      clientHost: socket.remoteAddress ?? '?',
    };
    this.outbound = new OutboundQueue(
      socket,
      !(socket instanceof TLSSocket),
      options.metrics,
      (err) => {
        this.log.debug('send failed', { client: this.session.clientAddress, error: err instanceof Error ? err.message : String(err) });
        this.close();
      },
      () => this.notifyIfIdle(),
    );
    socket.setNoDelay(true);
    if (options.idleTimeoutMs > 0) {
      socket.setTimeout(options.idleTimeoutMs, () => {
        // A long-poll fetch in progress is not idleness: Kafka counts only connections with nothing pending.
        if (this.pending.length > 0) return;
        this.log.debug('closing idle connection', { client: this.session.clientAddress, idleMs: options.idleTimeoutMs });
        this.close();
      });
    }
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => this.log.debug('connection error', { client: this.session.clientAddress, error: err.message }));
    socket.on('close', () => this.close());
  }

  private onData(chunk: Buffer): void {
    try {
      this.decoder.push(chunk, (frame) => this.onFrame(frame));
    } catch (err) {
      this.closeForBadInput(err);
    }
  }

  private onFrame(frame: Buffer): void {
    if (this.closed) return;
    const { header, bodyOffset } = decodeRequestHeader(frame);
    const slot: PendingResponse = { frame: null, done: false };
    this.pending.push(slot);
    if (this.pending.length >= this.options.maxInFlightRequests) this.socket.pause();
    this.dispatcher.dispatch(header, new Reader(frame, bodyOffset), this.session).then(
      (response) => this.complete(slot, response),
      (err: unknown) => this.closeAfterFailure(err),
    );
  }

  private complete(slot: PendingResponse, frame: FrameParts | null): void {
    slot.frame = frame;
    slot.done = true;
    while (this.pending.length > 0 && this.pending[0]!.done) {
      const head = this.pending.shift()!;
      if (head.frame !== null) this.outbound.enqueue(head.frame);
    }
    if (this.pending.length < this.options.maxInFlightRequests && this.socket.isPaused() && this.idleWaiters.length === 0) this.socket.resume();
    this.notifyIfIdle();
  }

  /**
   * For a clean shutdown: stops reading new requests and resolves once every request already
   * received has been answered and its response handed to the socket (or the connection closed).
   */
  quiesce(): Promise<void> {
    this.socket.pause();
    return new Promise((resolve) => {
      this.idleWaiters.push(resolve);
      this.notifyIfIdle();
    });
  }

  private notifyIfIdle(): void {
    if (this.idleWaiters.length === 0) return;
    if (!this.closed && (this.pending.length > 0 || !this.outbound.idle)) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private closeForBadInput(err: unknown): void {
    this.options.clientWarnings.warn('closing connection after bad input', {
      client: this.session.clientAddress,
      error: err instanceof Error ? err.message : String(err),
    });
    this.close();
  }

  /** Bad input was already described by the dispatcher's error; anything else it has logged. */
  private closeAfterFailure(err: unknown): void {
    if (err instanceof DecodeError) {
      this.closeForBadInput(err);
      return;
    }
    this.close();
  }

  /** Idempotent: stops sending, releases queued file ranges, destroys the socket. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.outbound.fail();
    this.socket.destroy();
    this.notifyIfIdle();
  }
}
