/**
 * One client connection, on the main thread: frames the byte stream, decodes request headers,
 * hands them to the dispatcher and writes responses strictly in request order, even when a later
 * request finishes first. Bad input (oversized or malformed frames, unknown APIs, unparsable
 * requests) closes only this connection, as Kafka does. A client quota's throttle mutes the
 * connection: its response still goes out at once, but nothing more is read until the throttle
 * time has passed (KIP-219), as Kafka's socket server mutes a throttled channel.
 */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger } from '../common/logger.js';
import type { RateLimitedLog } from '../common/rate-limited-log.js';
import type { BrokerMetrics } from '../common/metrics/broker-metrics.js';
import { ANONYMOUS_PRINCIPAL, type SecurityProtocol, type Session } from '../common/session.js';
import { decodeRequestHeader } from '@sluice/protocol/envelope.js';
import type { FrameBufferPool } from '@sluice/protocol/frame-buffer-pool.js';
import { FrameDecoder, type FinalResponse } from '@sluice/protocol/framing.js';
import { DecodeError } from '@sluice/protocol/primitives/decode-error.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import type { FrameParts } from '@sluice/protocol/primitives/writer.js';
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
  /** Memory for frames that span socket chunks, shared by the broker's connections; none: allocated per frame. */
  readonly framePool?: FrameBufferPool;
}

/**
 * APIs whose handler keeps no view of its request frame once it has answered, so the frame's
 * memory may serve a later one. Produce awaits every append before it answers (acks=0
 * included), and copies what it samples. An append whose worker reads the batch in the frame
 * itself holds the frame (`holdSharedFrame`): given back, it is lent again only once every such
 * append is answered, whatever answered the Produce first.
 */
const FRAME_FREE_AFTER_ANSWER: ReadonlySet<number> = new Set([0 /* Produce */]);

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
  /** A final response is on its way: nothing more is read, and the socket ends once it is sent. */
  private finishing = false;
  /** Resolvers of `quiesce()`, called once no request is pending and everything is sent. */
  private idleWaiters: Array<() => void> = [];
  /** Ends the current quota throttle; set while the connection is muted for one. */
  private throttleTimer: NodeJS.Timeout | null = null;
  private throttledUntilMs = 0;
  private readonly throttle = (ms: number): void => this.mute(ms);

  constructor(
    private readonly socket: Socket,
    private readonly dispatcher: Dispatcher,
    private readonly options: ConnectionOptions,
    private readonly log: Logger,
    /** Already authenticated by the transport (a TLS client certificate); SASL may set it later. */
    principal: string = ANONYMOUS_PRINCIPAL,
  ) {
    const pool = options.framePool;
    this.decoder =
      pool === undefined ? new FrameDecoder(options.maxFrameBytes) : new FrameDecoder(options.maxFrameBytes, (size) => pool.take(size));
    this.session = {
      listenerName: options.listenerName,
      securityProtocol: options.securityProtocol,
      principal,
      clientAddress: `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`,
      clientHost: socket.remoteAddress ?? '?',
    };
    this.outbound = new OutboundQueue(
      socket,
      // A TLSSocket says so in `encrypted` (an instanceof check would load node:tls into plaintext brokers).
      (socket as Partial<TLSSocket>).encrypted !== true,
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
    if (this.closed || this.finishing) return;
    const { header, bodyOffset } = decodeRequestHeader(frame);
    const slot: PendingResponse = { frame: null, done: false };
    this.pending.push(slot);
    if (this.pending.length >= this.options.maxInFlightRequests) this.socket.pause();
    const reusable = this.options.framePool !== undefined && FRAME_FREE_AFTER_ANSWER.has(header.requestApiKey);
    this.dispatcher.dispatch(header, new Reader(frame, bodyOffset), this.session, this.throttle).then(
      (response) => {
        if (reusable) this.options.framePool.give(frame);
        if (isFinal(response)) this.finish(slot, response);
        else this.complete(slot, response);
      },
      (err: unknown) => this.closeAfterFailure(err),
    );
  }

  private finish(slot: PendingResponse, response: FinalResponse): void {
    this.finishing = true;
    this.socket.pause();
    setTimeout(() => {
      if (this.closed) return;
      this.complete(slot, response.finalFrame);
      this.endWhenSent();
    }, response.delayMs).unref();
  }

  /** Ends the socket once every response before the final one is written (end() flushes, then closes). */
  private endWhenSent(): void {
    if (this.closed) return;
    if (this.pending.length > 0 || !this.outbound.idle) {
      this.idleWaiters.push(() => this.endWhenSent());
      return;
    }
    this.socket.end(() => this.close());
  }

  private complete(slot: PendingResponse, frame: FrameParts | null): void {
    slot.frame = frame;
    slot.done = true;
    while (this.pending.length > 0 && this.pending[0]!.done) {
      const head = this.pending.shift()!;
      if (head.frame !== null) this.outbound.enqueue(head.frame);
    }
    this.resumeIfAllowed();
    this.notifyIfIdle();
  }

  /** Stops reading for `ms` (or until an earlier throttle ends, if that is later). */
  private mute(ms: number): void {
    const until = Date.now() + ms;
    if (this.closed || ms <= 0 || until <= this.throttledUntilMs) return;
    this.throttledUntilMs = until;
    this.socket.pause();
    if (this.throttleTimer !== null) clearTimeout(this.throttleTimer);
    this.throttleTimer = setTimeout(() => {
      this.throttleTimer = null;
      this.resumeIfAllowed();
    }, ms);
  }

  /** Reading resumes only when no throttle, no full in-flight window and no quiesce holds it. */
  private resumeIfAllowed(): void {
    if (this.closed || this.finishing || this.throttleTimer !== null || this.idleWaiters.length > 0) return;
    if (this.pending.length < this.options.maxInFlightRequests && this.socket.isPaused()) this.socket.resume();
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
    if (this.throttleTimer !== null) clearTimeout(this.throttleTimer);
    this.outbound.fail();
    this.socket.destroy();
    this.dispatcher.connectionClosed?.(this.session);
    this.notifyIfIdle();
  }
}

function isFinal(response: FrameParts | FinalResponse | null): response is FinalResponse {
  return response !== null && !Array.isArray(response);
}
