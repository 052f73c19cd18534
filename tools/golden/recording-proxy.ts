// A TCP proxy that forwards Kafka traffic unchanged between clients and a real broker while
// recording every frame and pairing each response with its request by correlation id.
// The broker must advertise the proxy's address (advertised.listeners) so that clients keep
// talking through the proxy after the bootstrap Metadata call; the proxy itself rewrites nothing.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { FrameSplitter } from './frame-splitter.js';

export interface CaptureLabel {
  client: string;
  /** What the client was doing, e.g. "produce-gzip"; lets selection keep one frame per variant. */
  scenario: string;
}

export interface RecordedFrame extends CaptureLabel {
  /** Order of arrival at the proxy, over all connections. */
  arrival: number;
  connection: number;
  direction: 'request' | 'response';
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  /** The frame without its 4-byte size prefix. */
  bytes: Buffer;
}

export interface Exchange {
  request: RecordedFrame;
  /** Null when the broker sent none (acks=0 produce) or the connection closed first. */
  response: RecordedFrame | null;
}

export class ProxyProtocolError extends Error {
  override name = 'ProxyProtocolError';
}

interface Connection {
  id: number;
  inFlight: Map<number, Exchange>;
}

export class RecordingProxy {
  label: CaptureLabel = { client: 'unlabelled', scenario: 'none' };
  private readonly recorded: Exchange[] = [];
  private readonly failures: Error[] = [];
  private readonly sockets = new Set<Socket>();
  private arrivals = 0;
  private connections = 0;

  private constructor(
    private readonly server: Server,
    private readonly targetPort: number,
  ) {}

  static async start(listenPort: number, targetPort: number): Promise<RecordingProxy> {
    const server = createServer();
    const proxy = new RecordingProxy(server, targetPort);
    server.on('connection', (socket) => proxy.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(listenPort, '127.0.0.1', () => resolve());
    });
    return proxy;
  }

  /** Exchanges in request order. */
  exchanges(): readonly Exchange[] {
    return this.recorded;
  }

  /** Frames the proxy could not interpret; a capture with any of these is not trustworthy. */
  errors(): readonly Error[] {
    return this.failures;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve, reject) => this.server.close((err) => (err ? reject(err) : resolve())));
  }

  private accept(client: Socket): void {
    const conn: Connection = { id: ++this.connections, inFlight: new Map() };
    const upstream = connect({ host: '127.0.0.1', port: this.targetPort });
    this.sockets.add(client);
    this.sockets.add(upstream);
    const requests = new FrameSplitter((frame) => this.onRequest(conn, frame));
    const responses = new FrameSplitter((frame) => this.onResponse(conn, frame));
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      this.observe(() => requests.push(chunk));
    });
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      this.observe(() => responses.push(chunk));
    });
    const closeBoth = (): void => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    // A peer resetting the connection is normal client behaviour at shutdown, not a capture failure.
    client.on('error', closeBoth);
    upstream.on('error', closeBoth);
    client.on('close', closeBoth);
    upstream.on('close', closeBoth);
  }

  /** Recording must never disturb forwarding, so its failures are collected for the capture to report. */
  private observe(step: () => void): void {
    try {
      step();
    } catch (err) {
      this.failures.push(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private onRequest(conn: Connection, bytes: Buffer): void {
    if (bytes.length < 8) throw new ProxyProtocolError(`connection ${conn.id}: request of ${bytes.length} bytes has no header`);
    const request: RecordedFrame = {
      ...this.label,
      arrival: ++this.arrivals,
      connection: conn.id,
      direction: 'request',
      apiKey: bytes.readInt16BE(0),
      apiVersion: bytes.readInt16BE(2),
      correlationId: bytes.readInt32BE(4),
      bytes,
    };
    const exchange: Exchange = { request, response: null };
    conn.inFlight.set(request.correlationId, exchange);
    this.recorded.push(exchange);
  }

  private onResponse(conn: Connection, bytes: Buffer): void {
    if (bytes.length < 4) throw new ProxyProtocolError(`connection ${conn.id}: response of ${bytes.length} bytes has no header`);
    const correlationId = bytes.readInt32BE(0);
    const exchange = conn.inFlight.get(correlationId);
    if (exchange === undefined) {
      throw new ProxyProtocolError(`connection ${conn.id}: response with unknown correlation id ${correlationId}`);
    }
    conn.inFlight.delete(correlationId);
    const { request } = exchange;
    exchange.response = {
      client: request.client,
      scenario: request.scenario,
      arrival: ++this.arrivals,
      connection: conn.id,
      direction: 'response',
      apiKey: request.apiKey,
      apiVersion: request.apiVersion,
      correlationId,
      bytes,
    };
  }
}
