/**
 * A lean pipelined Kafka connection for the group benchmarks. Unlike the client's
 * KafkaConnection it sends each API at a version the caller pins, so Sluice and Kafka receive
 * byte-for-byte the same request shapes (Kafka 4.4 negotiates OffsetCommit v10, Sluice v9), and
 * it sets no timer per request: with thousands of commits a second on a shared 2-vCPU machine,
 * client overhead would otherwise be part of what is measured.
 */
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { decodeResponseHeader, encodeRequest } from '@sluice/protocol/envelope.js';
import { FrameDecoder } from '@sluice/protocol/framing.js';
import type { MessageCodec } from '@sluice/protocol/primitives/codec-support.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import { ApiVersionsRequest, ApiVersionsResponse } from '@sluice/protocol/messages/index.js';

/** The versions every benchmark request is sent at; both brokers must serve them (checked on connect). */
export const PINNED_VERSIONS = {
  OffsetCommit: 9,
  FindCoordinator: 4,
  JoinGroup: 9,
  Heartbeat: 4,
  LeaveGroup: 5,
  SyncGroup: 5,
  DescribeGroups: 5,
  CreateTopics: 7,
} as const;

type PinnedApi = keyof typeof PINNED_VERSIONS;

const API_VERSIONS_V3 = 3;
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

interface Pending {
  readonly apiKey: number;
  readonly version: number;
  readonly resolve: (frame: Buffer, bodyOffset: number) => void;
  readonly reject: (err: Error) => void;
}

export class WireConnection {
  private readonly frames = new FrameDecoder(MAX_RESPONSE_BYTES);
  private readonly pending = new Map<number, Pending>();
  private nextCorrelationId = 0;
  private closedWith: Error | null = null;

  private constructor(
    private readonly socket: Socket,
    private readonly clientId: string,
  ) {
    socket.on('data', (chunk: Buffer) => this.frames.push(chunk, (f) => this.onFrame(f)));
    socket.on('error', (err) => this.shutDown(err));
    socket.on('close', () => this.shutDown(new Error('connection closed')));
  }

  /** Connects and checks with ApiVersions that the broker serves every pinned version. */
  static async open(host: string, port: number, clientId: string): Promise<WireConnection> {
    const socket = connect({ host, port, noDelay: true });
    await once(socket, 'connect');
    const c = new WireConnection(socket, clientId);
    const res = await c.request(ApiVersionsRequest, ApiVersionsResponse, API_VERSIONS_V3, {
      clientSoftwareName: 'sluice-bench',
      clientSoftwareVersion: '0.1.0',
    });
    if (res.errorCode !== 0) throw new Error(`ApiVersions v3 answered error ${res.errorCode}`);
    for (const name of Object.keys(PINNED_VERSIONS) as PinnedApi[]) {
      const version = PINNED_VERSIONS[name];
      const range = res.apiKeys.find((k) => k.apiKey === API_KEYS[name]);
      if (range === undefined || version < range.minVersion || version > range.maxVersion) {
        c.close();
        throw new Error(
          `${host}:${port} does not serve ${name} v${version} (serves ${range ? `${range.minVersion}-${range.maxVersion}` : 'none'})`,
        );
      }
    }
    return c;
  }

  request<T, I>(req: MessageCodec<unknown, I>, res: MessageCodec<T, unknown>, version: number, body: I): Promise<T> {
    if (this.closedWith !== null) return Promise.reject(this.closedWith);
    const apiKey = req.apiKey;
    if (apiKey === null) throw new TypeError(`${req.name} is not a request`);
    const correlationId = this.nextCorrelationId;
    this.nextCorrelationId = (correlationId + 1) & 0x7fffffff;
    const frame = encodeRequest(apiKey, version, correlationId, this.clientId, (w) => req.write(w, body, version));
    return new Promise<T>((resolve, reject) => {
      this.pending.set(correlationId, {
        apiKey,
        version,
        resolve: (f, offset) => resolve(res.read(new Reader(f, offset), version)),
        reject,
      });
      this.socket.write(frame);
    });
  }

  close(): void {
    this.shutDown(new Error('connection closed by the benchmark'));
  }

  private onFrame(frame: Buffer): void {
    const correlationId = frame.readInt32BE(0);
    const p = this.pending.get(correlationId);
    if (p === undefined) {
      this.shutDown(new Error(`response with unknown correlation id ${correlationId}`));
      return;
    }
    this.pending.delete(correlationId);
    try {
      p.resolve(frame, decodeResponseHeader(frame, p.apiKey, p.version).bodyOffset);
    } catch (err) {
      p.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private shutDown(reason: Error): void {
    if (this.closedWith !== null) return;
    this.closedWith = reason;
    this.socket.destroy();
    for (const p of this.pending.values()) p.reject(reason);
    this.pending.clear();
  }
}

const API_KEYS: Record<PinnedApi, number> = {
  OffsetCommit: 8,
  FindCoordinator: 10,
  JoinGroup: 11,
  Heartbeat: 12,
  LeaveGroup: 13,
  SyncGroup: 14,
  DescribeGroups: 15,
  CreateTopics: 19,
};
