/**
 * One client connection, on the main thread: frames the byte stream, decodes request headers,
 * dispatches to handlers and writes responses strictly in request order, even when a later
 * request finishes first. Bad input (oversized or malformed frames, unknown APIs, unparsable
 * requests) closes only this connection, as Kafka does.
 */
import type { Socket } from 'node:net';
import type { Logger } from '../common/logger.js';
import { ErrorCode } from '../protocol/errors.js';
import { API_VERSIONS_KEY, decodeRequestHeader, encodeResponse } from '../protocol/envelope.js';
import { FrameDecoder } from '../protocol/framing.js';
import { ApiVersionsResponse } from '../protocol/messages/index.js';
import { DecodeError } from '../protocol/primitives/decode-error.js';
import { Reader } from '../protocol/primitives/reader.js';
import { NO_RESPONSE, type RegisteredApi, type RequestContext } from '../handlers/handler.js';
import { apiVersionsBody } from '../handlers/18-api-versions.js';
import type { HandlerRegistry } from '../handlers/registry.js';

export interface ConnectionOptions {
  readonly maxFrameBytes: number;
  /** Stop reading from the socket while this many requests await their responses. */
  readonly maxInFlightRequests: number;
}

interface PendingResponse {
  frame: Buffer | null;
  done: boolean;
}

export class Connection {
  private readonly decoder: FrameDecoder;
  private readonly pending: PendingResponse[] = [];
  private readonly clientAddress: string;
  private closed = false;

  constructor(
    private readonly socket: Socket,
    private readonly registry: HandlerRegistry,
    private readonly options: ConnectionOptions,
    private readonly log: Logger,
  ) {
    this.decoder = new FrameDecoder(options.maxFrameBytes);
    this.clientAddress = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => this.log.debug('connection error', { client: this.clientAddress, error: err.message }));
    socket.on('close', () => {
      this.closed = true;
    });
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
    const apiKey = header.requestApiKey;
    const version = header.requestApiVersion;
    const handler = this.registry.get(apiKey);
    if (handler === undefined) {
      throw new DecodeError(`API key ${apiKey} is not served by this broker`);
    }
    const slot: PendingResponse = { frame: null, done: false };
    this.pending.push(slot);
    if (this.pending.length >= this.options.maxInFlightRequests) this.socket.pause();

    if (!this.registry.supports(apiKey, version)) {
      if (apiKey !== API_VERSIONS_KEY) throw new DecodeError(`unsupported version ${version} of API ${apiKey}`);
      // KIP-511: answer with version 0, the error and our ranges, so the client can pick a version.
      const body = apiVersionsBody(ErrorCode.UNSUPPORTED_VERSION, this.registry.supportedApis);
      this.complete(slot, encodeResponse(apiKey, 0, header.correlationId, (w) => ApiVersionsResponse.write(w, body, 0)));
      return;
    }

    const ctx: RequestContext = { header, clientAddress: this.clientAddress, supportedApis: this.registry.supportedApis };
    void this.serve(handler, frame, bodyOffset, ctx, slot);
  }

  private async serve(handler: RegisteredApi, frame: Buffer, bodyOffset: number, ctx: RequestContext, slot: PendingResponse): Promise<void> {
    const { header } = ctx;
    try {
      const body = await handler.invoke(new Reader(frame, bodyOffset), ctx);
      const response = body === NO_RESPONSE ? null : encodeResponse(handler.apiKey, header.requestApiVersion, header.correlationId, body);
      this.complete(slot, response);
    } catch (err) {
      if (err instanceof DecodeError) {
        this.closeForBadInput(err);
        return;
      }
      this.log.error('request failed', {
        client: this.clientAddress,
        clientId: header.clientId,
        api: handler.name,
        version: header.requestApiVersion,
        correlationId: header.correlationId,
        error: err instanceof Error ? err.stack : String(err),
      });
      this.closed = true;
      this.socket.destroy();
    }
  }

  private complete(slot: PendingResponse, frame: Buffer | null): void {
    slot.frame = frame;
    slot.done = true;
    while (this.pending.length > 0 && this.pending[0]!.done) {
      const head = this.pending.shift()!;
      if (head.frame !== null && !this.closed) this.socket.write(head.frame);
    }
    if (this.pending.length < this.options.maxInFlightRequests && this.socket.isPaused()) this.socket.resume();
  }

  private closeForBadInput(err: unknown): void {
    this.log.warn('closing connection after bad input', {
      client: this.clientAddress,
      error: err instanceof Error ? err.message : String(err),
    });
    this.closed = true;
    this.socket.destroy();
  }
}
