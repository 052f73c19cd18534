import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { buildConfig, ConfigError } from '../../../src/broker/config.js';
import { TOPIC_CONFIG_BY_NAME, validateValue } from '../../../src/metadata/config/config-definitions.js';
import { collisionKey, topicNameProblem } from '../../../src/metadata/topic-names.js';
import { LocalController } from '../../../src/controller/local/local-controller.js';
import { MetadataStore, METADATA_FILE } from '../../../src/metadata/metadata-store.js';
import { loadOrFormatLogDirs } from '../../../src/broker/log-dir-format.js';

const settings = (o: Record<string, string>) => new Map(Object.entries(o));

describe('broker configuration', () => {
  test('Kafka defaults; typed values; unknown keys reported', () => {
    const { config, unknownKeys } = buildConfig(settings({ 'num.partitions': '3', 'auto.create.topics.enable': 'FALSE', 'foo.bar': 'x' }));
    assert.equal(config.numPartitions, 3);
    assert.equal(config.autoCreateTopicsEnable, false);
    assert.equal(config.deleteTopicEnable, true);
    assert.equal(config.connectionsMaxIdleMs, 600000);
    assert.equal(config.offsetsTopicNumPartitions, 50);
    assert.deepEqual(config.logDirs, ['./data']);
    assert.equal(config.nodeId, 0);
    assert.deepEqual(unknownKeys, ['foo.bar']);
    assert.deepEqual([...config.staticSettings.keys()], ['num.partitions', 'auto.create.topics.enable']);
  });

  test('log.dirs wins over log.dir; broker.id stands for node.id and must agree with it', () => {
    assert.deepEqual(buildConfig(settings({ 'log.dir': '/a', 'log.dirs': '/b, /c' })).config.logDirs, ['/b', '/c']);
    assert.equal(buildConfig(settings({ 'broker.id': '4' })).config.nodeId, 4);
    assert.throws(
      () => buildConfig(settings({ 'broker.id': '4', 'node.id': '5' })),
      (e: unknown) => e instanceof ConfigError && e.key === 'broker.id',
    );
  });

  test('advertises the listener, refuses 0.0.0.0 unless advertised.listeners names a reachable host', () => {
    const c = buildConfig(settings({ listeners: 'PLAINTEXT://127.0.0.1:9999' })).config;
    assert.deepEqual([c.listeners[0]!.advertisedHost, c.listeners[0]!.advertisedPort], ['127.0.0.1', 9999]);
    assert.throws(
      () => buildConfig(settings({ listeners: 'PLAINTEXT://0.0.0.0:9092' })),
      (e: unknown) => e instanceof ConfigError && e.key === 'advertised.listeners',
    );
    const adv = buildConfig(
      settings({ listeners: 'PLAINTEXT://0.0.0.0:9092', 'advertised.listeners': 'PLAINTEXT://kafka.local:19092' }),
    ).config;
    assert.deepEqual(
      [adv.listeners[0]!.host, adv.listeners[0]!.advertisedHost, adv.listeners[0]!.advertisedPort],
      ['0.0.0.0', 'kafka.local', 19092],
    );
  });

  test('invalid values are ConfigErrors naming the key', () => {
    for (const [key, value] of [
      ['num.partitions', '0'],
      ['num.partitions', 'x'],
      ['log.retention.ms', '9223372036854775808'],
      ['auto.create.topics.enable', 'yes'],
      ['log.cleanup.policy', 'delete,shred'],
      ['log.message.timestamp.type', 'Now'],
      ['log.segment.bytes', '100'],
      ['listeners', 'PLAINTEXT://h:1,PLAINTEXT://h:2'],
    ] as const) {
      assert.throws(
        () => buildConfig(settings({ [key]: value })),
        (e: unknown) => e instanceof ConfigError && e.key === key,
        `${key}=${value}`,
      );
    }
  });

  test('topic config validation phrased as Kafka', () => {
    const v = (k: string, x: string) => validateValue(TOPIC_CONFIG_BY_NAME.get(k)!, x);
    assert.equal(v('retention.ms', 'abc'), 'Invalid value abc for configuration retention.ms: Not a number of type LONG');
    assert.equal(v('segment.bytes', '1'), 'Invalid value 1 for configuration segment.bytes: Value must be at least 1048576');
    assert.equal(
      v('cleanup.policy', 'nope'),
      'Invalid value nope for configuration cleanup.policy: String must be one of: compact, delete',
    );
    assert.equal(
      v('min.cleanable.dirty.ratio', '1.5'),
      'Invalid value 1.5 for configuration min.cleanable.dirty.ratio: Value must be no more than 1',
    );
    assert.equal(v('cleanup.policy', 'compact, delete'), null);
    assert.equal(v('retention.ms', '-1'), null);
  });
});

describe('topic names', () => {
  test('Kafka rules', () => {
    assert.equal(topicNameProblem('orders.v1_x-2'), null);
    assert.equal(topicNameProblem('x'.repeat(249)), null);
    for (const bad of ['', '.', '..', 'x'.repeat(250), 'a b', 'é', 'a/b'])
      assert.notEqual(topicNameProblem(bad), null, JSON.stringify(bad));
    assert.equal(collisionKey('a.b'), collisionKey('a_b'));
  });

  test('property: a name is legal exactly when it is 1..249 chars of [a-zA-Z0-9._-] and not . or ..', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'Z', '0', '.', '_', '-', ' ', '/', 'é'), maxLength: 260 }), (name) => {
        const legal = name.length > 0 && name.length <= 249 && /^[a-zA-Z0-9._-]+$/.test(name) && name !== '.' && name !== '..';
        assert.equal(topicNameProblem(name) === null, legal);
      }),
    );
  });
});

describe('cluster metadata persistence', () => {
  const node = { nodeId: 0, host: 'h', port: 1, rack: null, endpoints: [] };

  test('topics, ids, partition registrations, overrides and dynamic configs survive a reload; the file is replaced atomically', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-meta-'));
    try {
      const a = new LocalController('cid', node, new MetadataStore(dir));
      a.createTopic(a.proposeTopic('t', 'TTTTTTTTTTTTTTTTTTTTTg', 3, new Map([['retention.ms', '5']])));
      a.createTopic(a.proposeTopic('__consumer_offsets', 'OOOOOOOOOOOOOOOOOOOOOg', 50, new Map()));
      a.addPartitions('t', 4);
      a.setDynamicConfigs('node', new Map([['log.retention.ms', '1000']]));
      const b = new LocalController('cid', node, new MetadataStore(dir));
      assert.deepEqual(b.image.topic('t'), a.image.topic('t'));
      assert.deepEqual(b.image.partition('t', 3), {
        partition: 3,
        leader: 0,
        leaderEpoch: 0,
        partitionEpoch: 0,
        replicas: [0],
        isr: [0],
        offlineReplicas: [],
      });
      assert.equal(b.image.topicById('OOOOOOOOOOOOOOOOOOOOOg')!.internal, true);
      assert.equal(b.image.dynamicConfigs('node').get('log.retention.ms'), '1000');
      assert.deepEqual(b.image.brokers(), [node]);
      assert.equal(b.image.controllerId, 0);
      assert.deepEqual(readdirSync(dir), [METADATA_FILE], 'no temporary file left behind');
      b.removeTopic('t');
      assert.equal(new LocalController('cid', node, new MetadataStore(dir)).image.topic('t'), undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('partitions in a failed log dir are served offline (no leader, this broker an offline replica) but never persisted; a recreated topic is online', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-meta-'));
    try {
      const c = new LocalController('cid', node, new MetadataStore(dir));
      c.createTopic(c.proposeTopic('t', 'TTTTTTTTTTTTTTTTTTTTTg', 2, new Map()));
      c.markReplicasOffline([{ topic: 't', partition: 1 }]);
      assert.deepEqual(c.image.partition('t', 1), {
        partition: 1,
        leader: -1,
        leaderEpoch: 0,
        partitionEpoch: 0,
        replicas: [0],
        isr: [0],
        offlineReplicas: [0],
      });
      assert.equal(c.image.partition('t', 0)!.leader, 0);
      c.setTopicConfigs('t', new Map([['retention.ms', '5']]));
      assert.equal(c.image.partition('t', 1)!.leader, -1, 'a later change keeps it offline');
      assert.equal(
        new LocalController('cid', node, new MetadataStore(dir)).image.partition('t', 1)!.leader,
        0,
        'a restart checks the dir again',
      );
      c.removeTopic('t');
      c.createTopic(c.proposeTopic('t', 'UUUUUUUUUUUUUUUUUUUUUg', 2, new Map()));
      assert.deepEqual(c.image.partition('t', 1)!.offlineReplicas, []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an image is immutable: a reader keeps the one it read while a change makes the next', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-meta-'));
    try {
      const c = new LocalController('cid', node, new MetadataStore(dir));
      c.createTopic(c.proposeTopic('t', 'TTTTTTTTTTTTTTTTTTTTTg', 1, new Map()));
      const before = c.image;
      c.addPartitions('t', 2);
      c.removeTopic('t');
      assert.equal(before.topic('t')!.partitionCount, 1);
      assert.equal(c.image.topic('t'), undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a change that cannot be persisted does not become current', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-meta-'));
    try {
      const store = new MetadataStore(dir);
      const c = new LocalController('cid', node, store);
      c.createTopic(c.proposeTopic('t', 'TTTTTTTTTTTTTTTTTTTTTg', 1, new Map()));
      store.save = () => {
        throw new Error('disk full');
      };
      assert.throws(() => c.addPartitions('t', 5), /disk full/);
      assert.throws(() => c.createTopic(c.proposeTopic('u', 'UUUUUUUUUUUUUUUUUUUUUg', 1, new Map())), /disk full/);
      assert.equal(c.image.topic('t')!.partitionCount, 1);
      assert.equal(c.image.topic('u'), undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a version 1 file (a partition count per topic) loads as this broker leading every partition at epoch 0', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-meta-'));
    try {
      const v1 = {
        version: 1,
        topics: [{ name: 'orders', topicId: 'TTTTTTTTTTTTTTTTTTTTTg', partitions: 2, configs: { 'retention.ms': '5' }, internal: false }],
        brokerConfigs: { clusterDefault: {}, node: { 'log.retention.ms': '7' } },
      };
      writeFileSync(join(dir, METADATA_FILE), JSON.stringify(v1));
      const c = new LocalController('cid', { ...node, nodeId: 3 }, new MetadataStore(dir));
      const topic = c.image.topic('orders')!;
      assert.equal(topic.partitionCount, 2);
      assert.deepEqual(topic.partitions[1], {
        partition: 1,
        leader: 3,
        leaderEpoch: 0,
        partitionEpoch: 0,
        replicas: [3],
        isr: [3],
        offlineReplicas: [],
      });
      assert.equal(topic.configs.get('retention.ms'), '5');
      assert.equal(c.image.dynamicConfigs('node').get('log.retention.ms'), '7');
      c.setTopicConfigs('orders', new Map());
      const saved = JSON.parse(readFileSync(join(dir, METADATA_FILE), 'utf8')) as {
        version: number;
        topics: Array<{ partitions: unknown[] }>;
      };
      assert.equal(saved.version, 2, 'the next save writes version 2');
      assert.equal(saved.topics[0]!.partitions.length, 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a malformed partition registration is refused with the file named', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-meta-'));
    try {
      const bad = {
        version: 2,
        topics: [
          {
            name: 't',
            topicId: 'TTTTTTTTTTTTTTTTTTTTTg',
            configs: {},
            partitions: [{ partition: 1, replicas: [0], leader: 0, leaderEpoch: 0, partitionEpoch: 0, isr: [0] }],
          },
        ],
        brokerConfigs: { clusterDefault: {}, node: {} },
      };
      writeFileSync(join(dir, METADATA_FILE), JSON.stringify(bad));
      assert.throws(
        () => new LocalController('cid', node, new MetadataStore(dir)),
        /__cluster_metadata\.json: malformed partition 0 of topic t/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('meta.properties: generated once, kept, and a mismatching node id is refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-metaprops-'));
    try {
      const id = loadOrFormatLogDirs([dir], 0, null);
      assert.match(id, /^[A-Za-z0-9_-]{22}$/);
      assert.match(readFileSync(join(dir, 'meta.properties'), 'utf8'), new RegExp(`cluster.id=${id}`));
      assert.equal(loadOrFormatLogDirs([dir], 0, null), id);
      assert.throws(() => loadOrFormatLogDirs([dir], 1, null), ConfigError);
      assert.throws(() => loadOrFormatLogDirs([dir], 0, 'AAAAAAAAAAAAAAAAAAAAAw'), ConfigError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
