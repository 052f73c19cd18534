/**
 * A scripted one-node broker for the batching producer's tests: ApiVersions, Metadata (one
 * topic, its partitions led by this node) and Produce, whose requests are recorded and answered
 * by a test-supplied policy — at once, later, with an error, or (acks=0) never.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { decodeRequestHeader, encodeResponse } from '@sluice/protocol/envelope.js';
import { FrameDecoder } from '@sluice/protocol/framing.js';
import {
  ApiVersionsRequest,
  ApiVersionsResponse,
  MetadataRequest,
  MetadataResponse,
  ProduceRequest,
  ProduceResponse,
} from '@sluice/protocol/messages/index.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import { readBatchHeader } from '@sluice/protocol/records/index.js';

export interface ProducePartition {
  readonly partition: number;
  readonly recordCount: number;
}

export interface ProduceCall {
  readonly acks: number;
  readonly partitions: readonly ProducePartition[];
  /** Answers with these error codes per partition (missing: NONE); assigns offsets to the successes. */
  respond(errors?: ReadonlyMap<number, number>): void;
}

const TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';

export class FakeProduceBroker {
  readonly calls: ProduceCall[] = [];
  /** Called for each Produce (with acks != 0); by default answers at once. */
  onProduce: (call: ProduceCall) => void = (call) => call.respond();
  private readonly nextOffset = new Map<number, bigint>();
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private port = 0;

  constructor(
    private readonly topic: string,
    private readonly partitions: number,
  ) {
    this.server = createServer((socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
      const frames = new FrameDecoder(64 << 20);
      socket.on('data', (chunk: Buffer) => frames.push(chunk, (frame) => this.receive(frame, socket)));
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return `127.0.0.1:${this.port}`;
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private receive(frame: Buffer, socket: Socket): void {
    const { header, bodyOffset } = decodeRequestHeader(frame);
    const v = header.requestApiVersion;
    const body = new Reader(frame, bodyOffset);
    const reply = (apiKey: number, write: Parameters<typeof encodeResponse>[3]): void => {
      for (const part of encodeResponse(apiKey, v, header.correlationId, write)) socket.write(part as Buffer);
    };
    if (header.requestApiKey === ApiVersionsRequest.apiKey) {
      const apiKeys = [
        { apiKey: 18, minVersion: 0, maxVersion: 3 },
        { apiKey: 3, minVersion: 0, maxVersion: 12 },
        // Below v13, so topics are named, not numbered.
        { apiKey: 0, minVersion: 3, maxVersion: 11 },
      ];
      reply(18, (w) => ApiVersionsResponse.write(w, { apiKeys }, v));
    } else if (header.requestApiKey === MetadataRequest.apiKey) {
      MetadataRequest.read(body, v);
      const partitions = Array.from({ length: this.partitions }, (_, i) => ({
        partitionIndex: i,
        leaderId: 1,
        replicaNodes: [1],
        isrNodes: [1],
      }));
      reply(3, (w) =>
        MetadataResponse.write(
          w,
          {
            brokers: [{ nodeId: 1, host: '127.0.0.1', port: this.port }],
            controllerId: 1,
            topics: [{ name: this.topic, topicId: TOPIC_ID, partitions }],
          },
          v,
        ),
      );
    } else if (header.requestApiKey === ProduceRequest.apiKey) {
      const req = ProduceRequest.read(body, v);
      const partitions = req.topicData.flatMap((t) =>
        t.partitionData.map((p) => ({
          partition: p.index,
          recordCount: p.records === null ? 0 : readBatchHeader(p.records, 0)!.recordsCount,
        })),
      );
      const call: ProduceCall = {
        acks: req.acks,
        partitions,
        respond: (errors = new Map()) => {
          const partitionResponses = partitions.map(({ partition, recordCount }) => {
            const errorCode = errors.get(partition) ?? 0;
            const baseOffset = this.nextOffset.get(partition) ?? 0n;
            if (errorCode === 0) this.nextOffset.set(partition, baseOffset + BigInt(recordCount));
            return { index: partition, errorCode, baseOffset: errorCode === 0 ? baseOffset : -1n };
          });
          reply(0, (w) => ProduceResponse.write(w, { responses: [{ name: this.topic, partitionResponses }] }, v));
        },
      };
      this.calls.push(call);
      if (req.acks !== 0) this.onProduce(call);
    }
  }
}
