/**
 * Two brokers started in this process with `Broker.start`, side by side: different node ids and
 * log dirs, the same topic name on each. A KafkaJS producer and consumer group on each broker
 * see only that broker's records, and each broker's /metrics counts only the requests it
 * served — nothing the two record is process-wide.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import type { Broker } from '../../src/broker/broker.js';
import { startInProcessBrokers, type InProcessBrokers } from '../helpers/in-process-brokers.js';
import { decodeResponseHeader, encodeRequest } from '@sluice/protocol/envelope.js';
import { ApiVersionsRequest } from '@sluice/protocol/messages/index.js';
import { parseExposition, total, type Sample } from '../unit/metrics/prometheus-text-helper.js';
import { WireClient } from '../helpers/wire-client.js';
import { waitFor } from './groups/group-helpers.js';

const TOPIC = 'side-by-side';

/** Records produced to each broker. */
const VALUES: readonly (readonly string[])[] = [1, 2].map((nodeId, i) =>
  Array.from({ length: 3 + 2 * i }, (_, n) => `node ${nodeId} record ${n}`),
);

async function scrape(broker: Broker): Promise<Sample[]> {
  const res = await fetch(broker.metrics!.url);
  assert.equal(res.status, 200);
  return parseExposition(await res.text());
}

/** Produces `values` with KafkaJS, then reads them back with a consumer group; returns what the group read. */
async function produceAndConsume(broker: Broker, values: readonly string[]): Promise<string[]> {
  const kafka = new Kafka({
    brokers: [broker.bootstrap],
    clientId: `node-${broker.config.nodeId}`,
    logLevel: logLevel.NOTHING,
    retry: { retries: 5, initialRetryTime: 100 },
  });
  const admin = kafka.admin();
  await admin.connect();
  const cluster = await admin.describeCluster();
  assert.deepEqual(
    cluster.brokers.map((b) => [b.nodeId, b.port]),
    [[broker.config.nodeId, broker.port]],
  );
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1 }] });
  await admin.disconnect();
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: TOPIC, acks: -1, messages: values.map((value) => ({ value })) });
  await producer.disconnect();
  const read: string[] = [];
  const consumer = kafka.consumer({ groupId: 'readers', heartbeatInterval: 500, maxWaitTimeInMs: 200 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void read.push(message.value!.toString()) });
    await waitFor(`the group on node ${broker.config.nodeId} to read ${values.length} records`, 30_000, () =>
      read.length >= values.length ? true : undefined,
    );
  } finally {
    await consumer.disconnect();
  }
  return read;
}

describe('two brokers in one process', () => {
  let cluster: InProcessBrokers | undefined;
  const running: Array<{ broker: Broker; values: readonly string[] }> = [];

  before(async () => {
    cluster = await startInProcessBrokers(2, {
      'metrics.listener': 'http://127.0.0.1:0',
      'num.partition.workers': '1',
      'offsets.topic.num.partitions': '1',
      'group.initial.rebalance.delay.ms': '0',
    });
    cluster.brokers.forEach((broker, i) => running.push({ broker, values: VALUES[i]! }));
  });
  after(async () => {
    await cluster?.stop();
  });

  test('each serves its own producer and consumer group, as its own node, on its own port and log dir', async () => {
    const [a, b] = running;
    assert.notEqual(a!.broker.port, b!.broker.port);
    assert.notEqual(a!.broker.metrics!.url, b!.broker.metrics!.url);
    // One after the other, so that each broker's counts below are only its own clients'.
    for (const r of running) assert.deepEqual(await produceAndConsume(r.broker, r.values), r.values);
  });

  test("each /metrics counts only that broker's records and requests", async () => {
    const [a, b] = running;
    const [beforeA, beforeB] = [await scrape(a!.broker), await scrape(b!.broker)];
    for (const r of running) {
      assert.equal(
        total(await scrape(r.broker), 'sluice_topic_messages_in_total', { topic: TOPIC }),
        r.values.length,
        `node ${r.broker.config.nodeId}`,
      );
    }

    // Four ApiVersions requests to the first broker only.
    const client = await WireClient.connect(a!.broker.host, a!.broker.port);
    try {
      for (let id = 1; id <= 4; id++) {
        client.send(encodeRequest(18, 3, id, 'in-process-test', (w) => ApiVersionsRequest.write(w, {}, 3)));
        assert.equal(decodeResponseHeader(await client.readFrame(), 18, 3).correlationId, id);
      }
    } finally {
      client.close();
    }
    const apiVersions = (s: readonly Sample[]): number => total(s, 'sluice_requests_total', { api: 'ApiVersions', version: '3' });
    assert.equal(apiVersions(await scrape(a!.broker)) - apiVersions(beforeA), 4);
    assert.equal(apiVersions(await scrape(b!.broker)) - apiVersions(beforeB), 0);
  });
});
