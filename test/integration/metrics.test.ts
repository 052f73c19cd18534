/**
 * /metrics against the broker process: raw Produce and Fetch requests, then a scrape, and every
 * counter moved by exactly what the requests carried — bytes and messages in for the topic are
 * the produced batches, bytes out and zero-copy bytes are the fetched records, requests and
 * errors are counted per API, and the workers' appends and flushes reach the main thread's
 * exposition. An idle broker starts no partition worker; one starts with the first partition it
 * owns, and after a restart the owners of the partitions on disk start with the broker.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeResponseHeader, encodeRequest } from '@sluice/protocol/envelope.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  FetchRequest,
  FetchResponse,
  MetadataRequest,
  MetadataResponse,
  ProduceRequest,
  ProduceResponse,
} from '@sluice/protocol/messages/index.js';
import type { MessageCodec } from '@sluice/protocol/primitives/codec-support.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import type { Writer } from '@sluice/protocol/primitives/writer.js';
import { encodeRecordBatch } from '@sluice/protocol/records/index.js';
import { metricsUrl, startBrokerProcess, type BrokerProcess } from '../helpers/broker-process.js';
import { WireClient } from '../helpers/wire-client.js';
import { parseExposition, select, total, type Sample } from '../unit/metrics/prometheus-text-helper.js';
import { waitFor, when } from '../helpers/wait-for.js';

const TOPIC = 'metered';
const WORKERS = 2;
let correlation = 0;

async function call<Res>(
  client: WireClient,
  apiKey: number,
  version: number,
  write: (w: Writer) => void,
  response: MessageCodec<Res, never>,
): Promise<Res> {
  const id = ++correlation;
  client.send(encodeRequest(apiKey, version, id, 'metrics-test', write));
  const frame = await client.readFrame();
  const { correlationId, bodyOffset } = decodeResponseHeader(frame, apiKey, version);
  assert.equal(correlationId, id);
  return response.read(new Reader(frame, bodyOffset), version);
}

function batch(count: number): Buffer {
  return encodeRecordBatch({
    records: Array.from({ length: count }, (_, i) => ({
      key: null,
      value: Buffer.from(`value ${i} `.repeat(10)),
      headers: [],
      timestamp: BigInt(Date.now()),
    })),
  });
}

describe('/metrics of the broker process', () => {
  let broker: BrokerProcess;
  let client: WireClient;
  let url: string;

  const scrape = async (): Promise<Sample[]> => {
    const res = await fetch(url);
    assert.equal(res.status, 200);
    return parseExposition(await res.text());
  };

  before(async () => {
    broker = await startBrokerProcess({
      'metrics.listener': 'http://127.0.0.1:0',
      'num.partition.workers': String(WORKERS),
      // Every append fsyncs, so the workers' flush histogram moves with each produce.
      'log.flush.interval.messages': '1',
    });
    url = await metricsUrl(broker);
    client = await WireClient.connect(broker.host, broker.port);
    const md = await call(
      client,
      3,
      12,
      (w) => MetadataRequest.write(w, { topics: [{ name: TOPIC }], allowAutoTopicCreation: true }, 12),
      MetadataResponse,
    );
    assert.equal(md.topics[0]!.errorCode, ErrorCode.NONE);
  });
  after(async () => {
    client?.close();
    await broker?.stop();
  });

  test('produce and fetch move the counters by what they carried', async () => {
    const before = await scrape();
    const batches = [batch(3), batch(5)];
    const producedBytes = batches[0]!.length + batches[1]!.length;
    for (const records of batches) {
      const res = await call(
        client,
        0,
        9,
        (w) =>
          ProduceRequest.write(w, { acks: -1, timeoutMs: 5000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records }] }] }, 9),
        ProduceResponse,
      );
      assert.equal(res.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.NONE);
    }
    // One request with a good partition and a missing one: one batch appended, one error.
    const appended = batch(2);
    const mixed = await call(
      client,
      0,
      9,
      (w) =>
        ProduceRequest.write(
          w,
          {
            acks: 1,
            timeoutMs: 5000,
            topicData: [
              {
                name: TOPIC,
                partitionData: [
                  { index: 0, records: appended },
                  { index: 5, records: batch(1) },
                ],
              },
            ],
          },
          9,
        ),
      ProduceResponse,
    );
    assert.deepEqual(
      mixed.responses[0]!.partitionResponses.map((p) => p.errorCode),
      [ErrorCode.NONE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
    );
    const mixedBytes = appended.length;

    const fetched = await call(
      client,
      1,
      12,
      (w) =>
        FetchRequest.write(
          w,
          {
            replicaId: -1,
            maxWaitMs: 0,
            minBytes: 0,
            maxBytes: 1 << 20,
            topics: [{ topic: TOPIC, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
          },
          12,
        ),
      FetchResponse,
    );
    const fetchedBytes = fetched.responses[0]!.partitions[0]!.records?.length ?? 0;
    assert.equal(fetchedBytes, producedBytes + mixedBytes, 'the fetch returns every produced batch');

    // The sendfile's completion is counted when the kernel has taken the bytes: poll briefly.
    let now = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}): number => total(now, name, labels) - total(before, name, labels);
    await waitFor(
      'the zero-copy bytes counted',
      5000,
      async () => {
        now = await scrape();
        return when(delta('sluice_network_bytes_sent_total', { path: 'zero_copy' }) >= fetchedBytes);
      },
      20,
    ).catch(() => undefined); // the assertions below say what is missing

    assert.equal(delta('sluice_topic_bytes_in_total', { topic: TOPIC }), producedBytes + mixedBytes);
    assert.equal(delta('sluice_topic_messages_in_total', { topic: TOPIC }), 3 + 5 + 2);
    assert.equal(delta('sluice_topic_bytes_out_total', { topic: TOPIC }), fetchedBytes);
    assert.equal(delta('sluice_network_bytes_sent_total', { path: 'zero_copy' }), fetchedBytes);
    assert.ok(delta('sluice_network_bytes_sent_total', { path: 'buffered' }) > 0, 'response headers go through the socket buffers');

    assert.equal(delta('sluice_requests_total', { api: 'Produce', version: '9' }), 3);
    assert.equal(delta('sluice_requests_total', { api: 'Fetch', version: '12' }), 1);
    assert.equal(delta('sluice_request_duration_seconds_count', { api: 'Produce', version: '9' }), 3);
    assert.equal(delta('sluice_request_errors_total', { api: 'Produce', error_code: '3', error: 'UNKNOWN_TOPIC_OR_PARTITION' }), 1);
    assert.equal(delta('sluice_request_errors_total', { api: 'Fetch' }), 0);

    assert.equal(delta('sluice_produce_batch_size_bytes_count'), 3);
    assert.equal(delta('sluice_produce_batch_size_bytes_sum'), producedBytes + mixedBytes);
    assert.equal(delta('sluice_produce_batch_records_sum'), 10);
    assert.equal(delta('sluice_produce_request_batches_count'), 3);
    assert.equal(delta('sluice_produce_request_batches_sum'), 4);

    // Worker metrics, pulled from the workers by the scrape.
    assert.equal(delta('sluice_worker_appends_total'), 3);
    assert.equal(delta('sluice_worker_appended_bytes_total'), producedBytes + mixedBytes);
    assert.equal(delta('sluice_log_flush_seconds_count'), 3, 'flush.messages=1: every append flushed');
    assert.equal(total(now, 'sluice_worker_partitions'), 1);
    assert.ok(total(now, 'sluice_worker_segments') >= 1);
    assert.equal(total(now, 'sluice_partition_workers_started'), 1, 'the other worker, with no partition, has not started');
    assert.equal(select(now, 'sluice_worker_partitions').length, 1, 'one series per started worker');
  });

  test('rings, process metrics and the workers are all in a scrape', async () => {
    const s = await scrape();
    for (let worker = 0; worker < WORKERS; worker++) {
      for (const direction of ['commands', 'priority', 'replies']) {
        assert.equal(total(s, 'sluice_worker_ring_capacity_bytes', { worker: String(worker), direction }), 8 * 1024 * 1024);
        assert.equal(select(s, 'sluice_worker_ring_used_bytes', { worker: String(worker), direction }).length, 1);
      }
    }
    assert.ok(total(s, 'process_resident_memory_bytes') > 0);
    assert.ok(total(s, 'process_cpu_seconds_total') > 0);
    assert.equal(select(s, 'nodejs_eventloop_lag_seconds').length, 1);
    assert.ok(select(s, 'sluice_log_maintenance_seconds_count').length === 1);
    assert.ok(total(s, 'sluice_requests_total', { api: 'Metadata', version: '12' }) >= 1);
  });
});

describe('partition workers start when needed', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-lazy-workers-'));
  let broker: BrokerProcess | undefined;
  const start = async (): Promise<{ client: WireClient; scrape: () => Promise<Sample[]> }> => {
    broker = await startBrokerProcess({
      'log.dirs': dataDir,
      'metrics.listener': 'http://127.0.0.1:0',
      'num.partition.workers': String(WORKERS),
    });
    const url = await metricsUrl(broker);
    const client = await WireClient.connect(broker.host, broker.port);
    return { client, scrape: async () => parseExposition(await (await fetch(url)).text()) };
  };
  after(async () => {
    await broker?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('an idle broker runs none; the first partition starts its owner; after a restart its owner starts at once and still has the records', async () => {
    let { client, scrape } = await start();
    const first = await scrape();
    assert.equal(total(first, 'sluice_partition_workers_started'), 0);
    assert.deepEqual(select(first, 'sluice_worker_partitions'), [], 'no worker was asked for its metrics');
    const md = await call(
      client,
      3,
      12,
      (w) => MetadataRequest.write(w, { topics: [{ name: 'lazy' }], allowAutoTopicCreation: true }, 12),
      MetadataResponse,
    );
    assert.equal(md.topics[0]!.errorCode, ErrorCode.NONE);
    const produced = await call(
      client,
      0,
      9,
      (w) =>
        ProduceRequest.write(
          w,
          { acks: -1, timeoutMs: 5000, topicData: [{ name: 'lazy', partitionData: [{ index: 0, records: batch(4) }] }] },
          9,
        ),
      ProduceResponse,
    );
    assert.equal(produced.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.NONE);
    assert.equal(total(await scrape(), 'sluice_partition_workers_started'), 1);
    client.close();
    assert.equal(await broker!.stop(), 0);

    ({ client, scrape } = await start());
    const restarted = await scrape();
    assert.equal(total(restarted, 'sluice_partition_workers_started'), 1, 'the owner of lazy-0 started with the broker');
    assert.equal(total(restarted, 'sluice_worker_partitions'), 1);
    const fetched = await call(
      client,
      1,
      12,
      (w) =>
        FetchRequest.write(
          w,
          {
            replicaId: -1,
            maxWaitMs: 0,
            minBytes: 0,
            maxBytes: 1 << 20,
            topics: [{ topic: 'lazy', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
          },
          12,
        ),
      FetchResponse,
    );
    assert.equal(fetched.responses[0]!.partitions[0]!.highWatermark, 4n);
    client.close();
  });
});
