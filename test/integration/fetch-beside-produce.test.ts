// A consumer's long poll is answered while a producer keeps the partition's worker busy: its
// read goes on the worker's priority lane, served before the appends queued ahead of it
// (docs/journal/consume-and-compressed-produce.md). Over real sockets, one worker; asserts
// causality (what the fetch saw, which answer came first), never times.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeResponseHeader, encodeRequest } from '@sluice/protocol/envelope.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import * as M from '@sluice/protocol/messages/index.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import { encodeRecordBatch } from '@sluice/protocol/records/index.js';
import { startBrokerProcess, type BrokerProcess } from '../helpers/broker-process.js';
import { wireCall } from '../helpers/wire-call.js';
import { WireClient } from '../helpers/wire-client.js';

const PRODUCE_VERSION = 9;
const FETCH_VERSION = 12;
/**
 * 32 batches of 60,000 one-byte records (~0.5 MB each, two turns of the worker's 8 MiB command
 * ring), pipelined on one connection: the worker checks every record of a batch, so it appends
 * far slower than the main thread queues, as under a flood.
 */
const PRODUCES = 32;
const RECORDS_PER_BATCH = 60_000;

describe('a long poll beside a producer flooding the same worker', () => {
  let broker: BrokerProcess;

  before(async () => {
    broker = await startBrokerProcess({ 'num.partition.workers': '1', 'auto.create.topics.enable': 'false' });
    const res = await wireCall(broker.bootstrap, M.CreateTopicsRequest, M.CreateTopicsResponse, 7, {
      timeoutMs: 10_000,
      topics: [{ name: 'flood', numPartitions: 1, replicationFactor: 1, configs: [] }],
    });
    assert.equal(res.topics[0]!.errorCode, ErrorCode.NONE);
  });
  after(async () => {
    await broker?.stop();
  });

  test('is answered before the appends queued behind its wake-up, with what the log held then', async () => {
    const consumer = await WireClient.connect(broker.host, broker.port);
    const producer = await WireClient.connect(broker.host, broker.port);
    try {
      const arrivals: string[] = [];
      consumer.send(
        encodeRequest(M.FetchRequest.apiKey!, FETCH_VERSION, 1, 'lane-consumer', (w) =>
          M.FetchRequest.write(
            w,
            {
              replicaId: -1,
              maxWaitMs: 30_000,
              minBytes: 1,
              maxBytes: 1,
              sessionId: 0,
              sessionEpoch: -1,
              topics: [{ topic: 'flood', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 }] }],
            },
            FETCH_VERSION,
          ),
        ),
      );
      const fetched = consumer.readFrame(60_000).then((frame) => {
        arrivals.push('fetch');
        const { bodyOffset } = decodeResponseHeader(frame, M.FetchRequest.apiKey!, FETCH_VERSION);
        return M.FetchResponse.read(new Reader(frame, bodyOffset), FETCH_VERSION);
      });
      // The fetch waits in the purgatory of an empty partition; the first append wakes it.
      const timestamp = BigInt(Date.now());
      const records = encodeRecordBatch({
        records: Array.from({ length: RECORDS_PER_BATCH }, () => ({ key: null, value: Buffer.alloc(1, 7), timestamp })),
      });
      const frames = Array.from({ length: PRODUCES }, (_, i) =>
        encodeRequest(M.ProduceRequest.apiKey!, PRODUCE_VERSION, 100 + i, 'lane-producer', (w) =>
          M.ProduceRequest.write(
            w,
            { acks: 1, timeoutMs: 30_000, topicData: [{ name: 'flood', partitionData: [{ index: 0, records }] }] },
            PRODUCE_VERSION,
          ),
        ),
      );
      producer.send(Buffer.concat(frames));
      const produced: M.ProduceResponseData[] = [];
      for (let i = 0; i < PRODUCES; i++) {
        const frame = await producer.readFrame(60_000);
        const { bodyOffset } = decodeResponseHeader(frame, M.ProduceRequest.apiKey!, PRODUCE_VERSION);
        produced.push(M.ProduceResponse.read(new Reader(frame, bodyOffset), PRODUCE_VERSION));
        arrivals.push(`produce ${i}`);
      }
      const fetch = await fetched;

      const answers = produced.map((r) => [
        r.responses[0]!.partitionResponses[0]!.errorCode,
        r.responses[0]!.partitionResponses[0]!.baseOffset,
      ]);
      assert.deepEqual(
        answers,
        Array.from({ length: PRODUCES }, (_, i) => [ErrorCode.NONE, BigInt(i * RECORDS_PER_BATCH)]),
        'every append went in, in order',
      );
      const partition = fetch.responses[0]!.partitions[0]!;
      assert.equal(partition.errorCode, ErrorCode.NONE);
      assert.ok(((partition.records as Uint8Array | null)?.byteLength ?? 0) > 0, 'the fetch got the first batch');
      // Served on the priority lane, the read runs after the append in progress when the first
      // append's reply woke the fetch (1–2 of 32 in the runs so far); queued behind the appends
      // it ran after all those queued by then (8–32 of 32). Half is the bound that holds for the
      // first under any scheduling seen, not a proof: the ring tests (command-lanes) are that.
      const half = BigInt((PRODUCES / 2) * RECORDS_PER_BATCH);
      assert.ok(
        partition.highWatermark < half,
        `the read ran before most queued appends (high watermark ${partition.highWatermark}, ${RECORDS_PER_BATCH} records per append)`,
      );
      const answeredAt = arrivals.indexOf('fetch');
      assert.ok(
        answeredAt < arrivals.indexOf(`produce ${PRODUCES - 1}`),
        `the fetch was answered before the last produce: ${arrivals.join(', ')}`,
      );
      assert.ok(answeredAt < PRODUCES / 2, `the fetch was answered before most produces (after ${answeredAt})`);
    } finally {
      consumer.close();
      producer.close();
    }
  });
});
