/**
 * One socket to one Kafka broker. Requests are pipelined: each gets the next correlation id and
 * is matched to its response by that id, so any number may be in flight. On connect the
 * connection asks ApiVersions and from then on sends every API at the highest version both
 * sides support.
 *
 * A request that times out closes the connection, as Kafka's NetworkClient does: the broker may
 * still answer it, and a connection whose responses can no longer be trusted to line up is
 * worth less than a new one. Every failure is a `KafkaError` (see `client-errors.ts`).
 */
import { connect, isIP, type Socket } from 'node:net';
import { checkServerIdentity, connect as connectTls } from 'node:tls';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import type { ClientTls } from '@sluice/protocol/common/tls-config.js';
import { API_VERSIONS_KEY, decodeResponseHeader, encodeRequest } from '@sluice/protocol/envelope.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { FrameDecoder } from '@sluice/protocol/framing.js';
import { ApiVersionsRequest, ApiVersionsResponse, type ApiVersionsResponseData } from '@sluice/protocol/messages/index.js';
import type { MessageCodec } from '@sluice/protocol/primitives/codec-support.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import type { Writer } from '@sluice/protocol/primitives/writer.js';
import { ApiVersionTable, CLIENT_API_RANGES } from './api-versions.js';
import { brokerError, networkError, timeoutError } from './client-errors.js';
import { authenticate, roundTripsOver, type SaslCredentials } from './sasl-client.js';

export interface ConnectionOptions {
  readonly host: string;
  readonly port: number;
  readonly clientId?: string;
  readonly connectTimeoutMs?: number;
  /** How long a request may wait for its response; a request may ask for more (a long-polling fetch). */
  readonly requestTimeoutMs?: number;
  /** Larger response frames close the connection before anything is allocated. */
  readonly maxResponseBytes?: number;
  /** Authenticate with SASL after the version negotiation (the broker's listener is SASL_PLAINTEXT). */
  readonly sasl?: SaslCredentials;
  /** Connect with TLS (an SSL listener); absent, in plaintext. */
  readonly tls?: ClientTls | null;
}

export interface RequestOptions {
  readonly timeoutMs?: number;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** Fetch responses are bounded by the request's maxBytes; this leaves room above Kafka's 50 MiB default. */
const DEFAULT_MAX_RESPONSE_BYTES = 128 * 1024 * 1024;
/** ApiVersions v3+ carries the client's name and version; Kafka checks them against `[a-zA-Z0-9.-]`. */
const CLIENT_SOFTWARE = { clientSoftwareName: 'sluice', clientSoftwareVersion: '0.1.0' };

interface PendingRequest {
  readonly apiKey: number;
  readonly version: number;
  readonly timer: NodeJS.Timeout;
  readonly receive: (frame: Buffer, bodyOffset: number) => void;
  readonly fail: (err: KafkaError) => void;
}

export class KafkaConnection {
  readonly address: string;
  private readonly socket: Socket;
  private readonly clientId: string;
  private readonly requestTimeoutMs: number;
  private readonly frames: FrameDecoder;
  private readonly pending = new Map<number, PendingRequest>();
  private nextCorrelationId = 0;
  private closedWith: KafkaError | null = null;
  private negotiated: ApiVersionTable | null = null;

  private constructor(socket: Socket, options: ConnectionOptions) {
    this.socket = socket;
    this.address = `${options.host}:${options.port}`;
    this.clientId = options.clientId ?? 'sluice';
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.frames = new FrameDecoder(options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => this.shutDown(networkError(`connection to ${this.address} failed: ${err.message}`, err)));
    socket.on('close', () => this.shutDown(networkError(`connection to ${this.address} was closed`)));
  }

  /** Opens the socket and negotiates API versions; rejects with a KafkaError if either fails. */
  static async connect(options: ConnectionOptions): Promise<KafkaConnection> {
    const socket = await openSocket(
      options.host,
      options.port,
      options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      options.tls ?? null,
    );
    const connection = new KafkaConnection(socket, options);
    try {
      connection.negotiated = await connection.negotiateVersions();
      if (options.sasl !== undefined)
        await authenticate(
          roundTripsOver((req, res, body) => connection.request(req, res, body)),
          options.sasl,
        );
    } catch (err) {
      connection.close();
      throw err;
    }
    return connection;
  }

  get versions(): ApiVersionTable {
    if (this.negotiated === null) throw new Error('API versions are read before they were negotiated');
    return this.negotiated;
  }

  get isClosed(): boolean {
    return this.closedWith !== null;
  }

  /**
   * Sends a request at the negotiated version and resolves with the decoded response. `body`
   * receives that version, for the fields whose shape changed between versions.
   */
  async request<T, I>(
    request: MessageCodec<unknown, I>,
    response: MessageCodec<T, unknown>,
    body: (version: number) => I,
    options: RequestOptions = {},
  ): Promise<T> {
    const apiKey = requestApiKey(request);
    const version = this.versions.version(apiKey, request.name);
    return this.send(
      apiKey,
      version,
      (w) => request.write(w, body(version), version),
      (frame, offset) => response.read(new Reader(frame, offset), version),
      options.timeoutMs,
    );
  }

  /** For a request the broker does not answer (Produce with acks=0): resolves once the bytes are handed to the socket. */
  async requestWithoutResponse<I>(request: MessageCodec<unknown, I>, body: (version: number) => I): Promise<void> {
    const apiKey = requestApiKey(request);
    const version = this.versions.version(apiKey, request.name);
    if (this.closedWith !== null) throw this.closedWith;
    const frame = encodeRequest(apiKey, version, this.takeCorrelationId(), this.clientId, (w) => request.write(w, body(version), version));
    return new Promise((resolve, reject) => {
      this.socket.write(frame, (err) => (err ? reject(networkError(`write to ${this.address} failed: ${err.message}`, err)) : resolve()));
    });
  }

  close(): void {
    this.shutDown(networkError(`connection to ${this.address} was closed by the client`));
  }

  private send<T>(
    apiKey: number,
    version: number,
    writeBody: (w: Writer) => void,
    read: (frame: Buffer, bodyOffset: number) => T,
    timeoutMs = this.requestTimeoutMs,
  ): Promise<T> {
    if (this.closedWith !== null) return Promise.reject(this.closedWith);
    const correlationId = this.takeCorrelationId();
    const frame = encodeRequest(apiKey, version, correlationId, this.clientId, writeBody);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(correlationId);
        reject(timeoutError(`no response from ${this.address} to API ${apiKey} v${version} within ${timeoutMs} ms`));
        this.close();
      }, timeoutMs);
      this.pending.set(correlationId, {
        apiKey,
        version,
        timer,
        receive: (f, offset) => resolve(read(f, offset)),
        fail: reject,
      });
      this.socket.write(frame);
    });
  }

  private takeCorrelationId(): number {
    const id = this.nextCorrelationId;
    this.nextCorrelationId = (id + 1) & 0x7fffffff;
    return id;
  }

  private onData(chunk: Buffer): void {
    try {
      this.frames.push(chunk, (frame) => this.onFrame(frame));
    } catch (err) {
      this.shutDown(protocolError(this.address, err));
    }
  }

  private onFrame(frame: Buffer): void {
    // The correlation id leads every response header version, so it can be read before the
    // request it answers (and so the header version) is known.
    if (frame.length < 4) throw new KafkaError(ErrorCode.CORRUPT_MESSAGE, `response frame of ${frame.length} bytes`);
    const correlationId = frame.readInt32BE(0);
    const pending = this.pending.get(correlationId);
    if (pending === undefined) throw new KafkaError(ErrorCode.CORRUPT_MESSAGE, `response with unknown correlation id ${correlationId}`);
    this.pending.delete(correlationId);
    clearTimeout(pending.timer);
    try {
      const { bodyOffset } = decodeResponseHeader(frame, pending.apiKey, pending.version);
      pending.receive(frame, bodyOffset);
    } catch (err) {
      pending.fail(protocolError(this.address, err));
    }
  }

  private shutDown(reason: KafkaError): void {
    if (this.closedWith !== null) return;
    this.closedWith = reason;
    this.socket.destroy();
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.fail(reason);
    }
    this.pending.clear();
  }

  /**
   * Asks ApiVersions at the newest version this client knows. A broker that does not know that
   * version answers at v0 with UNSUPPORTED_VERSION and its own range (KIP-511); ask again at
   * the newest version both know.
   */
  private async negotiateVersions(): Promise<ApiVersionTable> {
    const ours = CLIENT_API_RANGES.get(API_VERSIONS_KEY)!;
    let version = ours.max;
    for (;;) {
      const asked = version;
      const res = await this.send(
        API_VERSIONS_KEY,
        asked,
        (w) => ApiVersionsRequest.write(w, CLIENT_SOFTWARE, asked),
        (frame, offset) => readApiVersions(frame, offset, asked),
      );
      if (res.errorCode === ErrorCode.UNSUPPORTED_VERSION) {
        const theirs = res.apiKeys.find((k) => k.apiKey === API_VERSIONS_KEY);
        const retry = theirs === undefined ? -1 : Math.min(theirs.maxVersion, ours.max);
        if (retry < 0 || retry >= asked || retry < ours.min)
          throw brokerError(res.errorCode, null, `ApiVersions v${asked} to ${this.address}`);
        version = retry;
        continue;
      }
      if (res.errorCode !== ErrorCode.NONE) throw brokerError(res.errorCode, null, `ApiVersions to ${this.address}`);
      return new ApiVersionTable(res.apiKeys.map((k) => ({ apiKey: k.apiKey, min: k.minVersion, max: k.maxVersion })));
    }
  }
}

/** An UNSUPPORTED_VERSION answer is written at v0 whatever version was asked; the error code leads every version. */
function readApiVersions(frame: Buffer, bodyOffset: number, asked: number): ApiVersionsResponseData {
  const errorCode = frame.length >= bodyOffset + 2 ? frame.readInt16BE(bodyOffset) : ErrorCode.NONE;
  return ApiVersionsResponse.read(new Reader(frame, bodyOffset), errorCode === ErrorCode.UNSUPPORTED_VERSION ? 0 : asked);
}

function requestApiKey(codec: MessageCodec<unknown, never>): number {
  if (codec.apiKey === null) throw new TypeError(`${codec.name} is not a request`);
  return codec.apiKey;
}

function protocolError(address: string, cause: unknown): KafkaError {
  if (cause instanceof KafkaError) return cause;
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new KafkaError(ErrorCode.CORRUPT_MESSAGE, `undecodable response from ${address}: ${detail}`, { cause });
}

/** Resolves once connected — with TLS, once the handshake is done and the broker's certificate checked. */
function openSocket(host: string, port: number, timeoutMs: number, tls: ClientTls | null): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket =
      tls === null
        ? connect({ host, port, noDelay: true, keepAlive: true })
        : connectTls({
            host,
            port,
            secureContext: tls.context,
            ...(isIP(host) === 0 ? { servername: host } : {}),
            checkServerIdentity: tls.verifyHostname ? checkServerIdentity : () => undefined,
          })
            .setNoDelay(true)
            .setKeepAlive(true);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(timeoutError(`could not connect to ${host}:${port} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once(tls === null ? 'connect' : 'secureConnect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (err: Error) => {
      clearTimeout(timer);
      reject(networkError(`could not connect to ${host}:${port}: ${err.message}`, err));
    });
  });
}
