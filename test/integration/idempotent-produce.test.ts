/**
 * The idempotent producer contract over the wire, against the broker process: a retried batch
 * is acknowledged with its original offset and not written twice, a sequence gap is refused,
 * an old epoch is fenced, and the state survives a restart (the retry of the last batch is
 * still recognised) and is visible through DescribeProducers.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeResponseHeader, encodeRequest } from '@sluice/protocol/envelope.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  DescribeProducersRequest,
  DescribeProducersResponse,
  InitProducerIdRequest,
  InitProducerIdResponse,
  ListOffsetsRequest,
  ListOffsetsResponse,
  MetadataRequest,
  MetadataResponse,
  ProduceRequest,
  ProduceResponse,
} from '@sluice/protocol/messages/index.js';
import type { MessageCodec } from '@sluice/protocol/primitives/codec-support.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import type { Writer } from '@sluice/protocol/primitives/writer.js';
import { encodeRecordBatch } from '@sluice/protocol/records/index.js';
import { startBrokerProcess, type BrokerProcess } from '../helpers/broker-process.js';
import { WireClient } from '../helpers/wire-client.js';

const TOPIC = 'idem';
let correlation = 0;

async function call<Res>(
  client: WireClient,
  apiKey: number,
  version: number,
  write: (w: Writer) => void,
  response: MessageCodec<Res, never>,
): Promise<Res> {
  const id = ++correlation;
  client.send(encodeRequest(apiKey, version, id, 'idempotence-test', write));
  const frame = await client.readFrame();
  const { correlationId, bodyOffset } = decodeResponseHeader(frame, apiKey, version);
  assert.equal(correlationId, id);
  return response.read(new Reader(frame, bodyOffset), version);
}

function batch(producerId: bigint, producerEpoch: number, baseSequence: number, values: string[]): Buffer {
  return encodeRecordBatch({
    producerId,
    producerEpoch,
    baseSequence,
    records: values.map((v, i) => ({ key: null, value: Buffer.from(v), headers: [], timestamp: BigInt(Date.now()) + BigInt(i) })),
  });
}

async function produce(client: WireClient, records: Buffer): Promise<{ errorCode: number; baseOffset: bigint }> {
  const res = await call(
    client,
    0,
    9,
    (w) => ProduceRequest.write(w, { acks: -1, timeoutMs: 5000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records }] }] }, 9),
    ProduceResponse,
  );
  const p = res.responses[0]!.partitionResponses[0]!;
  return { errorCode: p.errorCode, baseOffset: p.baseOffset };
}

async function logEnd(client: WireClient): Promise<bigint> {
  const res = await call(
    client,
    2,
    7,
    (w) =>
      ListOffsetsRequest.write(w, { replicaId: -1, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, timestamp: -1n }] }] }, 7),
    ListOffsetsResponse,
  );
  return res.topics[0]!.partitions[0]!.offset;
}

describe('idempotent produce', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-idem-'));
  let broker: BrokerProcess;
  let client: WireClient;
  let producerId = -1n;

  before(async () => {
    broker = await startBrokerProcess({ 'log.dirs': dir });
    client = await WireClient.connect(broker.host, broker.port);
    const md = await call(
      client,
      3,
      12,
      (w) => MetadataRequest.write(w, { topics: [{ name: TOPIC }], allowAutoTopicCreation: true }, 12),
      MetadataResponse,
    );
    assert.equal(md.topics[0]!.errorCode, ErrorCode.NONE, 'the topic is auto-created');
  });
  after(async () => {
    client.close();
    await broker.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('InitProducerId hands out a producer id at epoch 0', async () => {
    const res = await call(
      client,
      22,
      4,
      (w) => InitProducerIdRequest.write(w, { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1 }, 4),
      InitProducerIdResponse,
    );
    assert.equal(res.errorCode, ErrorCode.NONE);
    assert.ok(res.producerId >= 0n);
    assert.equal(res.producerEpoch, 0);
    producerId = res.producerId;
  });

  test('a retried batch gets its original offset and is not written twice', async () => {
    const first = await produce(client, batch(producerId, 0, 0, ['a', 'b']));
    assert.deepEqual(first, { errorCode: ErrorCode.NONE, baseOffset: 0n });
    const retry = await produce(client, batch(producerId, 0, 0, ['a', 'b']));
    assert.deepEqual(retry, { errorCode: ErrorCode.NONE, baseOffset: 0n });
    assert.equal(await logEnd(client), 2n);
    assert.deepEqual(await produce(client, batch(producerId, 0, 2, ['c'])), { errorCode: ErrorCode.NONE, baseOffset: 2n });
  });

  test('a sequence gap is OUT_OF_ORDER_SEQUENCE_NUMBER and nothing is written', async () => {
    assert.equal((await produce(client, batch(producerId, 0, 10, ['gap']))).errorCode, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert.equal(await logEnd(client), 3n);
  });

  test('producer state survives a restart and DescribeProducers shows it', async () => {
    client.close();
    await broker.stop();
    broker = await startBrokerProcess({ 'log.dirs': dir });
    client = await WireClient.connect(broker.host, broker.port);
    assert.deepEqual(
      await produce(client, batch(producerId, 0, 2, ['c'])),
      { errorCode: ErrorCode.NONE, baseOffset: 2n },
      'retry after restart',
    );
    assert.equal(await logEnd(client), 3n);
    const res = await call(
      client,
      61,
      0,
      (w) => DescribeProducersRequest.write(w, { topics: [{ name: TOPIC, partitionIndexes: [0] }] }, 0),
      DescribeProducersResponse,
    );
    const producers = res.topics[0]!.partitions[0]!.activeProducers;
    assert.deepEqual(
      producers.map((p) => [p.producerId, p.producerEpoch, p.lastSequence]),
      [[producerId, 0, 2]],
    );
  });

  test('a newer epoch starting at sequence 0 fences the old epoch', async () => {
    assert.equal((await produce(client, batch(producerId, 1, 0, ['new']))).errorCode, ErrorCode.NONE);
    assert.equal((await produce(client, batch(producerId, 0, 3, ['old']))).errorCode, ErrorCode.INVALID_PRODUCER_EPOCH);
  });
});
