// Bad input over a real socket, each case followed by proof that the broker still serves a
// normal client (kcat produce + consume). Every request is built with the generated codecs; the
// expected error codes are Apache Kafka 4.4's answers to the same frames.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeRequest } from '@sluice/protocol/envelope.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import * as M from '@sluice/protocol/messages/index.js';
import { CRC_OFFSET } from '@sluice/protocol/records/batch-layout.js';
import { encodeRecordBatch } from '@sluice/protocol/records/index.js';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { kcat, kcatRead } from '../../helpers/interop.js';
import { WireClient } from '../../helpers/wire-client.js';
import { wireCall } from '../../helpers/wire-call.js';
import { kcatSkip } from '../../helpers/requirements.js';

const PRODUCE_VERSION = 11; // by topic name; served by Sluice and Kafka 4.4 alike
const FETCH_VERSION = 12; // by topic name, the last version before topic ids

function batch(values: readonly string[]): Buffer {
  return encodeRecordBatch({
    records: values.map((v) => ({ key: Buffer.from('k'), value: Buffer.from(v), timestamp: BigInt(Date.now()) })),
  });
}

function produceBody(topic: string, partition: number, records: Buffer, acks: number): M.ProduceRequestDataInput {
  return { acks, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] };
}

async function produce(
  bootstrap: string,
  topic: string,
  partition: number,
  records: Buffer,
): Promise<M.ProduceResponsePartitionProduceResponse> {
  const res = await wireCall(bootstrap, M.ProduceRequest, M.ProduceResponse, PRODUCE_VERSION, produceBody(topic, partition, records, -1));
  return res.responses[0]!.partitionResponses[0]!;
}

async function fetch(bootstrap: string, topic: string, partition: number, fetchOffset: bigint): Promise<M.FetchResponsePartitionData> {
  const res = await wireCall(bootstrap, M.FetchRequest, M.FetchResponse, FETCH_VERSION, {
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1 << 20,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [{ topic, partitions: [{ partition, fetchOffset, partitionMaxBytes: 1 << 20 }] }],
  });
  return res.responses[0]!.partitions[0]!;
}

async function createTopic(bootstrap: string, name: string, configs: Record<string, string> = {}): Promise<void> {
  const res = await wireCall(bootstrap, M.CreateTopicsRequest, M.CreateTopicsResponse, 7, {
    timeoutMs: 10_000,
    topics: [{ name, numPartitions: 1, replicationFactor: 1, configs: Object.entries(configs).map(([n, value]) => ({ name: n, value })) }],
  });
  assert.equal(res.topics[0]!.errorCode, ErrorCode.NONE, `create ${name}: ${res.topics[0]!.errorMessage}`);
}

describe('bad input from a raw socket, then a normal client', { skip: kcatSkip() }, () => {
  let dir: string;
  let broker: BrokerProcess;
  let round = 0;

  /** A kcat producer and consumer still work, and the broker process is alive. */
  async function assertServesClients(): Promise<void> {
    const value = `still serving ${++round}`;
    await kcat(['-b', broker.bootstrap, '-P', '-t', 'healthy', '-p', '0'], `${value}\n`);
    const read = await kcatRead(broker.bootstrap, 'healthy');
    assert.equal(read.length, round);
    assert.equal(Buffer.from(read[read.length - 1]!.value!, 'hex').toString(), value);
    assert.equal(broker.child.exitCode, null, 'broker still running');
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-interop-bad-'));
    broker = await startBrokerProcess({ 'log.dirs': dir, 'auto.create.topics.enable': 'false' });
    await createTopic(broker.bootstrap, 'healthy');
    await createTopic(broker.bootstrap, 'target');
    await createTopic(broker.bootstrap, 'small', { 'max.message.bytes': '1024' });
  });
  after(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a batch whose CRC does not match is refused with CORRUPT_MESSAGE and not appended', async () => {
    const corrupt = batch(['one', 'two']);
    corrupt[corrupt.length - 1]! ^= 0xff; // a value byte, covered by the CRC
    const res = await produce(broker.bootstrap, 'target', 0, corrupt);
    assert.equal(res.errorCode, ErrorCode.CORRUPT_MESSAGE);
    const badCrc = batch(['one']);
    badCrc.writeUInt32BE((badCrc.readUInt32BE(CRC_OFFSET) ^ 1) >>> 0, CRC_OFFSET); // the stored CRC itself
    assert.equal((await produce(broker.bootstrap, 'target', 0, badCrc)).errorCode, ErrorCode.CORRUPT_MESSAGE);
    assert.equal((await fetch(broker.bootstrap, 'target', 0, 0n)).highWatermark, 0n, 'nothing appended');
    await assertServesClients();
  });

  test('a batch larger than the topic max.message.bytes is refused with MESSAGE_TOO_LARGE', async () => {
    const res = await produce(broker.bootstrap, 'small', 0, batch(['x'.repeat(2000)]));
    assert.equal(res.errorCode, ErrorCode.MESSAGE_TOO_LARGE);
    const ok = await produce(broker.bootstrap, 'small', 0, batch(['x'.repeat(500)]));
    assert.equal(ok.errorCode, ErrorCode.NONE, 'a batch under the limit is accepted');
    await assertServesClients();
  });

  test('acks=0: a success gets no response, a failure closes the connection', async () => {
    const client = await WireClient.connect(broker.host, broker.port);
    try {
      const good = produceBody('target', 0, batch(['acks0']), 0);
      client.send(encodeRequest(0, PRODUCE_VERSION, 1, 'bad-input', (w) => M.ProduceRequest.write(w, good, PRODUCE_VERSION)));
      client.send(
        encodeRequest(18, 3, 2, 'bad-input', (w) =>
          M.ApiVersionsRequest.write(w, { clientSoftwareName: 'x', clientSoftwareVersion: '1' }, 3),
        ),
      );
      const frame = await client.readFrame();
      assert.equal(frame.readInt32BE(0), 2, 'the first response is the ApiVersions one: acks=0 got none');

      const bad = produceBody('target', 7, batch(['nowhere']), 0);
      client.send(encodeRequest(0, PRODUCE_VERSION, 3, 'bad-input', (w) => M.ProduceRequest.write(w, bad, PRODUCE_VERSION)));
      assert.equal(await client.closedWithin(5000), true, 'connection closed after the failed acks=0 produce');
    } finally {
      client.close();
    }
    assert.equal((await fetch(broker.bootstrap, 'target', 0, 0n)).highWatermark, 1n, 'the acks=0 record was appended');
    await assertServesClients();
  });

  test('a fetch beyond the log end answers OFFSET_OUT_OF_RANGE', async () => {
    const res = await fetch(broker.bootstrap, 'target', 0, 1000n);
    assert.equal(res.errorCode, ErrorCode.OFFSET_OUT_OF_RANGE);
    assert.equal(res.records?.length ?? 0, 0);
    const atEnd = await fetch(broker.bootstrap, 'target', 0, 1n);
    assert.equal(atEnd.errorCode, ErrorCode.NONE, 'fetching at the log end is fine');
    await assertServesClients();
  });

  test('the OFFSET_OUT_OF_RANGE partition carries -1 for high watermark, last stable offset and log start offset, as Kafka sends', async () => {
    const res = await fetch(broker.bootstrap, 'target', 0, 1000n);
    assert.deepEqual(
      [res.errorCode, res.highWatermark, res.lastStableOffset, res.logStartOffset],
      [ErrorCode.OFFSET_OUT_OF_RANGE, -1n, -1n, -1n],
    );
  });

  test('produce to an unknown partition or topic answers UNKNOWN_TOPIC_OR_PARTITION', async () => {
    assert.equal((await produce(broker.bootstrap, 'target', 5, batch(['p5']))).errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    assert.equal((await produce(broker.bootstrap, 'no-such-topic', 0, batch(['t']))).errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    await assertServesClients();
  });
});
