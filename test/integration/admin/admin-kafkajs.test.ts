import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import * as M from '@sluice/protocol/messages/index.js';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { wireCall } from '../../helpers/wire-call.js';

const TOPIC = 2;
const BROKER = 4;

async function withAdmin<T>(bootstrap: string, run: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = new Kafka({ brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 3, initialRetryTime: 100 } }).admin();
  await admin.connect();
  try {
    return await run(admin);
  } finally {
    await admin.disconnect();
  }
}

function kafkaErrorType(err: unknown): string | undefined {
  const e = err as { type?: string; errors?: { type?: string }[] };
  return e.type ?? e.errors?.[0]?.type;
}

describe('admin APIs against a broker process, driven by KafkaJS', () => {
  let dir: string;
  let broker: BrokerProcess;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-admin-it-'));
    broker = await startBrokerProcess({ 'log.dirs': dir, 'num.partitions': '2' });
  });
  after(async () => {
    await broker.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('create (configs, validateOnly, duplicate), list, metadata, partitions on disk', async () => {
    await withAdmin(broker.bootstrap, async (admin) => {
      assert.equal(
        await admin.createTopics({ validateOnly: true, waitForLeaders: false, topics: [{ topic: 'vo', numPartitions: 3 }] }),
        true,
      );
      assert.equal(
        await admin.createTopics({
          topics: [{ topic: 'orders', numPartitions: 3, configEntries: [{ name: 'retention.ms', value: '60000' }] }, { topic: 'dflt' }],
        }),
        true,
      );
      assert.equal(
        await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 3 }] }),
        false,
        'KafkaJS answers false for TOPIC_ALREADY_EXISTS',
      );
      assert.deepEqual((await admin.listTopics()).sort(), ['dflt', 'orders']);
      const md = await admin.fetchTopicMetadata({ topics: ['orders', 'dflt'] });
      assert.deepEqual(md.topics.map((t) => [t.name, t.partitions.length]).sort(), [
        ['dflt', 2],
        ['orders', 3],
      ]);
      assert.deepEqual(
        md.topics.find((t) => t.name === 'orders')!.partitions.map((p) => [p.leader, p.replicas, p.isr]),
        [0, 1, 2].map(() => [0, [0], [0]]),
      );
    });
    const dup = await wireCall(broker.bootstrap, M.CreateTopicsRequest, M.CreateTopicsResponse, 7, {
      topics: [{ name: 'orders', numPartitions: 1, replicationFactor: 1 }],
    });
    assert.equal(dup.topics[0]!.errorCode, 36);
    assert.match(readFileSync(join(dir, 'orders-2', 'partition.metadata'), 'utf8'), /^version: 0\ntopic_id: [A-Za-z0-9_-]{22}\n?$/);
  });

  test('describeConfigs (topic and broker, with synonyms), alterConfigs, incremental', async () => {
    await withAdmin(broker.bootstrap, async (admin) => {
      const d = await admin.describeConfigs({
        includeSynonyms: true,
        resources: [
          { type: TOPIC, name: 'orders', configNames: ['retention.ms', 'cleanup.policy'] },
          { type: BROKER, name: '0', configNames: ['num.partitions', 'log.retention.hours'] },
        ],
      });
      const topicEntries = new Map(d.resources[0]!.configEntries.map((e) => [e.configName, e]));
      assert.equal(topicEntries.get('retention.ms')!.configValue, '60000');
      assert.equal(topicEntries.get('retention.ms')!.configSource, 1);
      // As Kafka 4.4: the default broker key behind retention.ms (log.retention.hours) is not a synonym of a topic override.
      assert.deepEqual(
        topicEntries.get('retention.ms')!.configSynonyms.map((s) => s.configName),
        ['retention.ms'],
      );
      const brokerEntries = new Map(d.resources[1]!.configEntries.map((e) => [e.configName, e]));
      assert.deepEqual([brokerEntries.get('num.partitions')!.configValue, brokerEntries.get('num.partitions')!.configSource], ['2', 4]);

      await admin.alterConfigs({
        validateOnly: false,
        resources: [{ type: TOPIC, name: 'orders', configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }],
      });
      const after = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: TOPIC, name: 'orders', configNames: ['retention.ms', 'cleanup.policy'] }],
      });
      const values = Object.fromEntries(after.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
      assert.deepEqual(values, { 'retention.ms': '604800000', 'cleanup.policy': 'compact' }, 'AlterConfigs replaces every override');
      await assert.rejects(
        admin.alterConfigs({
          validateOnly: false,
          resources: [{ type: TOPIC, name: 'orders', configEntries: [{ name: 'retention.ms', value: 'soon' }] }],
        }),
        (e) => kafkaErrorType(e) === 'INVALID_CONFIG',
      );
    });
    const res = await wireCall(broker.bootstrap, M.IncrementalAlterConfigsRequest, M.IncrementalAlterConfigsResponse, 1, {
      resources: [
        { resourceType: TOPIC, resourceName: 'orders', configs: [{ name: 'cleanup.policy', configOperation: 2, value: 'delete' }] },
      ],
    });
    assert.equal(res.responses[0]!.errorCode, 0);
    const check = await wireCall(broker.bootstrap, M.DescribeConfigsRequest, M.DescribeConfigsResponse, 4, {
      resources: [{ resourceType: TOPIC, resourceName: 'orders', configurationKeys: ['cleanup.policy'] }],
    });
    assert.equal(check.results[0]!.configs[0]!.value, 'compact,delete');
  });

  test('createPartitions, describeCluster, deleteTopics', async () => {
    await withAdmin(broker.bootstrap, async (admin) => {
      await admin.createPartitions({ topicPartitions: [{ topic: 'dflt', count: 4 }] });
      await assert.rejects(
        admin.createPartitions({ topicPartitions: [{ topic: 'dflt', count: 1 }] }),
        (e) => kafkaErrorType(e) === 'INVALID_PARTITIONS',
      );
      const md = await admin.fetchTopicMetadata({ topics: ['dflt'] });
      assert.equal(md.topics[0]!.partitions.length, 4);
      const cluster = await admin.describeCluster();
      assert.equal(cluster.controller, 0);
      assert.deepEqual(
        cluster.brokers.map((b) => `${b.host}:${b.port}`),
        [broker.bootstrap],
      );
      assert.match(cluster.clusterId, /^[A-Za-z0-9_-]{22}$/);
      await admin.deleteTopics({ topics: ['dflt'] });
      assert.deepEqual(await admin.listTopics(), ['orders']);
    });
  });

  test('metadata auto-creation is on by default; topics and ids survive a restart', async () => {
    const producerMetadata = await wireCall(broker.bootstrap, M.MetadataRequest, M.MetadataResponse, 12, {
      topics: [{ name: 'auto.created' }],
      allowAutoTopicCreation: true,
    });
    assert.deepEqual([producerMetadata.topics[0]!.errorCode, producerMetadata.topics[0]!.partitions.length], [0, 2]);
    const before = await wireCall(broker.bootstrap, M.MetadataRequest, M.MetadataResponse, 12, { topics: null });
    assert.equal(await broker.stop(), 0);
    broker = await startBrokerProcess({ 'log.dirs': dir, 'num.partitions': '2' });
    const afterRestart = await wireCall(broker.bootstrap, M.MetadataRequest, M.MetadataResponse, 12, { topics: null });
    const ids = (r: M.MetadataResponseData) => r.topics.map((t) => [t.name, t.topicId, t.partitions.length]);
    assert.deepEqual(ids(afterRestart), ids(before));
    assert.equal(afterRestart.clusterId, before.clusterId);
  });
});

describe('auto.create.topics.enable=false', () => {
  test('unknown topics answer UNKNOWN_TOPIC_OR_PARTITION and are not created', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-admin-noauto-'));
    const broker = await startBrokerProcess({ 'log.dirs': dir, 'auto.create.topics.enable': 'false' });
    try {
      const md = await wireCall(broker.bootstrap, M.MetadataRequest, M.MetadataResponse, 12, {
        topics: [{ name: 'nope' }],
        allowAutoTopicCreation: true,
      });
      assert.equal(md.topics[0]!.errorCode, 3);
      const all = await wireCall(broker.bootstrap, M.MetadataRequest, M.MetadataResponse, 12, { topics: null });
      assert.deepEqual(all.topics, []);
    } finally {
      await broker.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an invalid configuration value stops start-up with a message naming the key', async () => {
    await assert.rejects(startBrokerProcess({ 'num.partitions': 'many' }), /num\.partitions/);
    await assert.rejects(startBrokerProcess({ listeners: 'PLAINTEXT://0.0.0.0:0' }), /advertised\.listeners/);
  });
});
