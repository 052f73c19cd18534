import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { KafkaConnection } from '../src/connection.js';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { decodeRequestHeader, encodeResponse } from '@sluice/protocol/envelope.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { FrameDecoder } from '@sluice/protocol/framing.js';
import {
  ApiVersionsRequest,
  ApiVersionsResponse,
  MetadataRequest,
  MetadataResponse,
  ProduceRequest,
  ProduceResponse,
  type RequestHeaderData,
} from '@sluice/protocol/messages/index.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import type { FrameParts } from '@sluice/protocol/primitives/writer.js';

interface Received {
  readonly header: RequestHeaderData;
  readonly body: Reader;
  readonly socket: Socket;
}

/** A scripted broker: ApiVersions answered from `ranges` (up to `apiVersionsMax`), everything else handed to `onRequest`. */
class FakeBroker {
  readonly apiVersionsAsked: number[] = [];
  readonly softwareNames: string[] = [];
  onRequest: (r: Received) => void = () => undefined;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly ranges: ReadonlyArray<{ apiKey: number; minVersion: number; maxVersion: number }>,
    private readonly apiVersionsMax = 5,
  ) {
    this.server = createServer((socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      const frames = new FrameDecoder(1 << 20);
      socket.on('data', (chunk: Buffer) => frames.push(chunk, (frame) => this.receive(frame, socket)));
      socket.on('error', () => undefined);
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private receive(frame: Buffer, socket: Socket): void {
    const { header, bodyOffset } = decodeRequestHeader(frame);
    if (header.requestApiKey !== ApiVersionsRequest.apiKey) {
      this.onRequest({ header, body: new Reader(frame, bodyOffset), socket });
      return;
    }
    const asked = header.requestApiVersion;
    this.apiVersionsAsked.push(asked);
    if (asked > this.apiVersionsMax) {
      // KIP-511: an unknown ApiVersions version is answered at v0 with the supported ranges.
      send(
        socket,
        encodeResponse(18, 0, header.correlationId, (w) =>
          ApiVersionsResponse.write(w, { errorCode: ErrorCode.UNSUPPORTED_VERSION, apiKeys: [...this.ranges] }, 0),
        ),
      );
      return;
    }
    this.softwareNames.push(ApiVersionsRequest.read(new Reader(frame, bodyOffset), asked).clientSoftwareName);
    send(
      socket,
      encodeResponse(18, asked, header.correlationId, (w) => ApiVersionsResponse.write(w, { apiKeys: [...this.ranges] }, asked)),
    );
  }
}

function send(socket: Socket, parts: FrameParts): void {
  for (const part of parts) {
    if (!Buffer.isBuffer(part)) throw new Error('the fake broker sends no file regions');
    socket.write(part);
  }
}

function answerMetadata(r: Received, clusterId: string): void {
  const v = r.header.requestApiVersion;
  MetadataRequest.read(r.body, v);
  send(
    r.socket,
    encodeResponse(3, v, r.header.correlationId, (w) => MetadataResponse.write(w, { clusterId, controllerId: 1 }, v)),
  );
}

const RANGES = [
  { apiKey: 18, minVersion: 0, maxVersion: 4 },
  { apiKey: 3, minVersion: 0, maxVersion: 9 },
];

function isKafkaError(code: number): (err: unknown) => boolean {
  return (err: unknown) => err instanceof KafkaError && err.code === code;
}

describe('KafkaConnection', () => {
  let broker: FakeBroker;
  let port: number;
  before(async () => {
    broker = new FakeBroker(RANGES, 4);
    port = await broker.listen();
  });
  after(() => broker.close());

  test('negotiates versions on connect and sends each API at the highest common version', async () => {
    const versionsSeen: number[] = [];
    broker.onRequest = (r) => {
      versionsSeen.push(r.header.requestApiVersion);
      answerMetadata(r, 'fake');
    };
    const connection = await KafkaConnection.connect({ host: '127.0.0.1', port });
    try {
      assert.equal(connection.versions.version(3, 'Metadata'), 9);
      assert.equal(connection.versions.has(0), false, 'Produce is not advertised');
      const res = await connection.request(MetadataRequest, MetadataResponse, () => ({ topics: null }));
      assert.equal(res.clusterId, 'fake');
      assert.deepEqual(versionsSeen, [9]);
      assert.equal(broker.softwareNames.at(-1), 'sluice');
    } finally {
      connection.close();
    }
  });

  test('falls back to the broker’s ApiVersions version when it answers UNSUPPORTED_VERSION (KIP-511)', () => {
    // The client knows ApiVersions v5; this broker only v0-4 and answers v5 at v0.
    assert.deepEqual(broker.apiVersionsAsked.slice(0, 2), [5, 4]);
  });

  test('pipelined requests are matched to responses by correlation id, whatever the order', async () => {
    const held: Received[] = [];
    broker.onRequest = (r) => {
      held.push(r);
      if (held.length === 3) for (const h of held.reverse()) answerMetadata(h, `c${h.header.correlationId}`);
    };
    const connection = await KafkaConnection.connect({ host: '127.0.0.1', port });
    try {
      const results = await Promise.all([0, 1, 2].map(() => connection.request(MetadataRequest, MetadataResponse, () => ({ topics: [] }))));
      const ids = held.map((h) => h.header.correlationId).sort((a, b) => a - b);
      assert.equal(new Set(ids).size, 3);
      assert.deepEqual(
        results.map((r) => r.clusterId),
        ids.map((id) => `c${id}`),
      );
    } finally {
      connection.close();
    }
  });

  test('a request without an answer times out with REQUEST_TIMED_OUT and closes the connection', async () => {
    broker.onRequest = () => undefined;
    const connection = await KafkaConnection.connect({ host: '127.0.0.1', port });
    const other = connection.request(MetadataRequest, MetadataResponse, () => ({ topics: [] }));
    await assert.rejects(
      connection.request(MetadataRequest, MetadataResponse, () => ({ topics: [] }), { timeoutMs: 100 }),
      isKafkaError(ErrorCode.REQUEST_TIMED_OUT),
    );
    assert.equal(connection.isClosed, true);
    await assert.rejects(other, isKafkaError(ErrorCode.NETWORK_EXCEPTION), 'the other in-flight request fails with the connection');
    await assert.rejects(
      connection.request(MetadataRequest, MetadataResponse, () => ({ topics: [] })),
      isKafkaError(ErrorCode.NETWORK_EXCEPTION),
    );
  });

  test('the broker closing the socket fails in-flight requests with NETWORK_EXCEPTION', async () => {
    broker.onRequest = (r) => r.socket.destroy();
    const connection = await KafkaConnection.connect({ host: '127.0.0.1', port });
    await assert.rejects(
      connection.request(MetadataRequest, MetadataResponse, () => ({ topics: [] })),
      isKafkaError(ErrorCode.NETWORK_EXCEPTION),
    );
  });

  test('an undecodable response is CORRUPT_MESSAGE', async () => {
    broker.onRequest = (r) =>
      send(
        r.socket,
        encodeResponse(3, r.header.requestApiVersion, r.header.correlationId, (w) => w.int32(1)),
      );
    const connection = await KafkaConnection.connect({ host: '127.0.0.1', port });
    try {
      await assert.rejects(
        connection.request(MetadataRequest, MetadataResponse, () => ({ topics: [] })),
        isKafkaError(ErrorCode.CORRUPT_MESSAGE),
      );
    } finally {
      connection.close();
    }
  });

  test('an API the broker does not offer is refused before anything is sent', async () => {
    const connection = await KafkaConnection.connect({ host: '127.0.0.1', port });
    try {
      let built = false;
      const body = () => {
        built = true;
        return {};
      };
      await assert.rejects(connection.request(ProduceRequest, ProduceResponse, body), isKafkaError(ErrorCode.UNSUPPORTED_VERSION));
      assert.equal(built, false);
    } finally {
      connection.close();
    }
  });

  test('a refused connection is NETWORK_EXCEPTION', async () => {
    const closed = new FakeBroker(RANGES);
    const closedPort = await closed.listen();
    await closed.close();
    await assert.rejects(KafkaConnection.connect({ host: '127.0.0.1', port: closedPort }), isKafkaError(ErrorCode.NETWORK_EXCEPTION));
  });
});
