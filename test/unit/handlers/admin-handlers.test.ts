import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as M from '@sluice/protocol/messages/index.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { ZERO_UUID } from '@sluice/protocol/common/uuid.js';
import { ConfigSource } from '../../../src/metadata/config/config-definitions.js';
import { metadataHandler } from '../../../src/handlers/03-metadata.js';
import { createTopicsHandler } from '../../../src/handlers/19-create-topics.js';
import { deleteTopicsHandler } from '../../../src/handlers/20-delete-topics.js';
import { describeConfigsHandler } from '../../../src/handlers/32-describe-configs.js';
import { alterConfigsHandler } from '../../../src/handlers/33-alter-configs.js';
import { alterReplicaLogDirsHandler } from '../../../src/handlers/34-alter-replica-log-dirs.js';
import { describeLogDirsHandler } from '../../../src/handlers/35-describe-log-dirs.js';
import { createPartitionsHandler } from '../../../src/handlers/37-create-partitions.js';
import { incrementalAlterConfigsHandler } from '../../../src/handlers/44-incremental-alter-configs.js';
import { describeClusterHandler } from '../../../src/handlers/60-describe-cluster.js';
import { listConfigResourcesHandler } from '../../../src/handlers/74-list-config-resources.js';
import { describeTopicPartitionsHandler } from '../../../src/handlers/75-describe-topic-partitions.js';
import { call, harness, versions, type Harness } from './admin-harness.js';
import { ClusterMetadataCache } from '../../../src/metadata/cluster-metadata-cache.js';
import type { ClusterContext } from '../../../src/handlers/cluster-context.js';

const open: Harness[] = [];
function fresh(options: Parameters<typeof harness>[0] = {}): Harness {
  const h = harness(options);
  open.push(h);
  return h;
}
afterEach(() => {
  for (const h of open.splice(0)) h.close();
});

async function createTopic(h: Harness, name: string, numPartitions = 1, configs: { name: string; value: string }[] = []) {
  const res = await call(
    createTopicsHandler,
    M.CreateTopicsRequest,
    M.CreateTopicsResponse,
    7,
    { topics: [{ name, numPartitions, replicationFactor: -1, configs }] },
    h.cluster,
  );
  assert.equal(res.topics[0]!.errorCode, ErrorCode.NONE, res.topics[0]!.errorMessage ?? '');
  return res.topics[0]!;
}

describe('CreateTopics', () => {
  test('creates with defaults at every version; v5+ reports counts and configs, v7 the topic id', async () => {
    const h = fresh();
    for (const v of versions(M.CreateTopicsRequest)) {
      const res = await call(
        createTopicsHandler,
        M.CreateTopicsRequest,
        M.CreateTopicsResponse,
        v,
        { topics: [{ name: `t${v}`, numPartitions: -1, replicationFactor: -1 }] },
        h.cluster,
      );
      const t = res.topics[0]!;
      assert.equal(t.errorCode, ErrorCode.NONE);
      const stored = h.cluster.metadata.topic(`t${v}`)!;
      assert.equal(stored.partitionCount, 1);
      assert.ok(h.partitions.partitions.has(`t${v}-0`));
      if (v >= 5) {
        assert.equal(t.numPartitions, 1);
        assert.equal(t.replicationFactor, 1);
        assert.equal(t.configs!.find((c) => c.name === 'retention.ms')?.value, '604800000');
      }
      assert.equal(t.topicId, v >= 7 ? stored.topicId : ZERO_UUID);
    }
  });

  test('Kafka error codes: names, duplicates, collisions, counts, replication, configs, assignments', async () => {
    const h = fresh();
    await createTopic(h, 'a.b', 2);
    const res = await call(
      createTopicsHandler,
      M.CreateTopicsRequest,
      M.CreateTopicsResponse,
      7,
      {
        topics: [
          { name: 'bad name', numPartitions: 1, replicationFactor: 1 },
          { name: '..', numPartitions: 1, replicationFactor: 1 },
          { name: 'x'.repeat(250), numPartitions: 1, replicationFactor: 1 },
          { name: 'a.b', numPartitions: 1, replicationFactor: 1 },
          { name: 'a_b', numPartitions: 1, replicationFactor: 1 },
          { name: 'dup', numPartitions: 1, replicationFactor: 1 },
          { name: 'dup', numPartitions: 1, replicationFactor: 1 },
          { name: 'zero', numPartitions: 0, replicationFactor: 1 },
          { name: 'rf3', numPartitions: 1, replicationFactor: 3 },
          { name: 'badcfg', numPartitions: 1, replicationFactor: 1, configs: [{ name: 'retention.ms', value: 'abc' }] },
          { name: 'unkcfg', numPartitions: 1, replicationFactor: 1, configs: [{ name: 'foo.bar', value: '1' }] },
          { name: 'enumcfg', numPartitions: 1, replicationFactor: 1, configs: [{ name: 'cleanup.policy', value: 'nope' }] },
          { name: 'rangecfg', numPartitions: 1, replicationFactor: 1, configs: [{ name: 'segment.bytes', value: '1' }] },
          { name: 'nullcfg', numPartitions: 1, replicationFactor: 1, configs: [{ name: 'retention.ms', value: null }] },
          { name: 'assignbad', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [7] }] },
          { name: 'assignboth', numPartitions: 2, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [0] }] },
          { name: '__cluster_metadata', numPartitions: 1, replicationFactor: 1 },
        ],
      },
      h.cluster,
    );
    const codes = Object.fromEntries(res.topics.map((t) => [t.name.length > 20 ? 'long' : t.name, t.errorCode]));
    assert.deepEqual(codes, {
      'bad name': 17,
      '..': 17,
      long: 17,
      'a.b': 36,
      a_b: 17,
      dup: 42,
      zero: 37,
      rf3: 38,
      badcfg: 40,
      unkcfg: 40,
      enumcfg: 40,
      rangecfg: 40,
      nullcfg: 40,
      assignbad: 39,
      assignboth: 42,
      __cluster_metadata: 42,
    });
    assert.equal(res.topics.find((t) => t.name === 'a_b')!.errorMessage, "Topic 'a_b' collides with existing topic: a.b");
    assert.equal(
      res.topics.find((t) => t.name === 'badcfg')!.errorMessage,
      'Invalid value abc for configuration retention.ms: Not a number of type LONG',
    );
    assert.equal(h.cluster.metadata.topics().length, 1, 'nothing else was created');
  });

  test('validate_only checks without creating; manual assignments set the partition count', async () => {
    const h = fresh();
    const vo = await call(
      createTopicsHandler,
      M.CreateTopicsRequest,
      M.CreateTopicsResponse,
      7,
      { validateOnly: true, topics: [{ name: 'vo', numPartitions: 3, replicationFactor: 1 }] },
      h.cluster,
    );
    assert.equal(vo.topics[0]!.errorCode, 0);
    assert.equal(vo.topics[0]!.numPartitions, 3);
    assert.equal(h.cluster.metadata.topic('vo'), undefined);
    assert.equal(h.partitions.partitions.size, 0);
    await call(
      createTopicsHandler,
      M.CreateTopicsRequest,
      M.CreateTopicsResponse,
      7,
      {
        topics: [
          {
            name: 'man',
            numPartitions: -1,
            replicationFactor: -1,
            assignments: [
              { partitionIndex: 1, brokerIds: [0] },
              { partitionIndex: 0, brokerIds: [0] },
            ],
          },
        ],
      },
      h.cluster,
    );
    assert.equal(h.cluster.metadata.topic('man')!.partitionCount, 2);
  });
});

describe('Metadata', () => {
  test('every version: broker, cluster id, controller, partitions led by this node', async () => {
    const h = fresh();
    const created = await createTopic(h, 'orders', 3);
    for (const v of versions(M.MetadataRequest)) {
      const res = await call(
        metadataHandler,
        M.MetadataRequest,
        M.MetadataResponse,
        v,
        { topics: [{ name: 'orders' }], allowAutoTopicCreation: v < 4 },
        h.cluster,
      );
      assert.deepEqual(
        res.brokers.map((b) => [b.nodeId, b.host, b.port]),
        [[0, '127.0.0.1', 9092]],
      );
      if (v >= 2) assert.equal(res.clusterId, 'c1uSTeR1dAAAAAAAAAAAAA');
      if (v >= 1) assert.equal(res.controllerId, 0);
      const t = res.topics[0]!;
      assert.equal(t.errorCode, 0);
      assert.equal(t.topicId, v >= 10 ? created.topicId : ZERO_UUID);
      assert.deepEqual(
        t.partitions.map((p) => [p.partitionIndex, p.leaderId, p.leaderEpoch, p.replicaNodes, p.isrNodes]),
        [0, 1, 2].map((i) => [i, 0, v >= 7 ? 0 : -1, [0], [0]]),
      );
      if (v >= 8) assert.equal(t.topicAuthorizedOperations, -2147483648);
    }
  });

  test('null topics = all, empty = none (all at v0); authorized operations when asked', async () => {
    const h = fresh();
    await createTopic(h, 'a');
    await createTopic(h, 'b');
    const all = await call(metadataHandler, M.MetadataRequest, M.MetadataResponse, 12, { topics: null }, h.cluster);
    assert.deepEqual(
      all.topics.map((t) => t.name),
      ['a', 'b'],
    );
    const none = await call(metadataHandler, M.MetadataRequest, M.MetadataResponse, 12, { topics: [] }, h.cluster);
    assert.deepEqual(none.topics, []);
    const v0 = await call(metadataHandler, M.MetadataRequest, M.MetadataResponse, 0, { topics: [] }, h.cluster);
    assert.deepEqual(
      v0.topics.map((t) => t.name),
      ['a', 'b'],
    );
    const ops = await call(
      metadataHandler,
      M.MetadataRequest,
      M.MetadataResponse,
      8,
      { topics: null, includeClusterAuthorizedOperations: true, includeTopicAuthorizedOperations: true },
      h.cluster,
    );
    assert.equal(ops.clusterAuthorizedOperations, 8096);
    assert.equal(ops.topics[0]!.topicAuthorizedOperations, 3576);
  });

  test('auto-creation only when the client allows it and auto.create.topics.enable is on', async () => {
    const on = fresh();
    const res = await call(
      metadataHandler,
      M.MetadataRequest,
      M.MetadataResponse,
      9,
      { topics: [{ name: 'auto1' }, { name: 'bad name' }], allowAutoTopicCreation: true },
      on.cluster,
    );
    assert.deepEqual(
      res.topics.map((t) => [t.name, t.errorCode, t.partitions.length]),
      [
        ['auto1', 0, 1],
        ['bad name', 17, 0],
      ],
    );
    assert.ok(on.partitions.partitions.has('auto1-0'));
    const denied = await call(
      metadataHandler,
      M.MetadataRequest,
      M.MetadataResponse,
      9,
      { topics: [{ name: 'auto2' }], allowAutoTopicCreation: false },
      on.cluster,
    );
    assert.equal(denied.topics[0]!.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const off = fresh({ autoCreate: false });
    const offRes = await call(metadataHandler, M.MetadataRequest, M.MetadataResponse, 3, { topics: [{ name: 'auto3' }] }, off.cluster);
    assert.equal(offRes.topics[0]!.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    assert.equal(off.cluster.metadata.topic('auto3'), undefined);
  });

  test('a cluster member before its first UpdateMetadata knows no broker: an unknown topic is LEADER_NOT_AVAILABLE (retriable), not auto-created', async () => {
    const h = fresh();
    const unaware: ClusterContext = { ...h.cluster, metadata: new ClusterMetadataCache('cluster').image };
    const res = await call(
      metadataHandler,
      M.MetadataRequest,
      M.MetadataResponse,
      9,
      { topics: [{ name: 'exists-elsewhere' }], allowAutoTopicCreation: true },
      unaware,
    );
    assert.deepEqual(
      res.topics.map((t) => [t.name, t.errorCode]),
      [['exists-elsewhere', ErrorCode.LEADER_NOT_AVAILABLE]],
    );
    assert.equal(h.partitions.partitions.size, 0, 'nothing created');
  });

  test('topic ids (v10+): known ids resolve, unknown ones answer UNKNOWN_TOPIC_ID', async () => {
    const h = fresh();
    const t = await createTopic(h, 'byid');
    const res = await call(
      metadataHandler,
      M.MetadataRequest,
      M.MetadataResponse,
      12,
      {
        topics: [
          { topicId: t.topicId, name: null },
          { topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', name: null },
        ],
      },
      h.cluster,
    );
    assert.deepEqual(
      res.topics.map((x) => [x.name, x.errorCode]),
      [
        ['byid', 0],
        [null, 100],
      ],
    );
  });
});

describe('DeleteTopics', () => {
  test('by name and by id; unknown names, unknown ids, duplicates', async () => {
    const h = fresh();
    await createTopic(h, 'n1', 2);
    const byId = await createTopic(h, 'i1');
    const res = await call(
      deleteTopicsHandler,
      M.DeleteTopicsRequest,
      M.DeleteTopicsResponse,
      6,
      {
        topics: [
          { name: 'n1' },
          { name: null, topicId: byId.topicId },
          { name: 'nope' },
          { name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' },
          { name: 'd' },
          { name: 'd' },
        ],
      },
      h.cluster,
    );
    assert.deepEqual(
      res.responses.map((r) => [r.name, r.errorCode]),
      [
        ['n1', 0],
        ['i1', 0],
        ['nope', 3],
        [null, 100],
        ['d', 42],
      ],
    );
    assert.equal(h.partitions.partitions.size, 0);
    for (const v of versions(M.DeleteTopicsRequest).filter((x) => x < 6)) {
      await createTopic(h, 'again');
      const old = await call(deleteTopicsHandler, M.DeleteTopicsRequest, M.DeleteTopicsResponse, v, { topicNames: ['again'] }, h.cluster);
      assert.equal(old.responses[0]!.errorCode, 0, `v${v}`);
    }
  });

  test('TOPIC_DELETION_DISABLED when delete.topic.enable is off', async () => {
    const h = fresh({ deleteEnable: false });
    await createTopic(h, 'keep');
    const res = await call(deleteTopicsHandler, M.DeleteTopicsRequest, M.DeleteTopicsResponse, 5, { topicNames: ['keep'] }, h.cluster);
    assert.equal(res.responses[0]!.errorCode, ErrorCode.TOPIC_DELETION_DISABLED);
    assert.ok(h.cluster.metadata.topic('keep'));
  });
});

describe('CreatePartitions', () => {
  test('increase only; validate_only; assignment counts; unknown topics', async () => {
    const h = fresh();
    await createTopic(h, 'grow', 2);
    const check = await call(
      createPartitionsHandler,
      M.CreatePartitionsRequest,
      M.CreatePartitionsResponse,
      3,
      { validateOnly: true, topics: [{ name: 'grow', count: 4, assignments: null }] },
      h.cluster,
    );
    assert.equal(check.results[0]!.errorCode, 0);
    assert.equal(h.cluster.metadata.topic('grow')!.partitionCount, 2);
    const res = await call(
      createPartitionsHandler,
      M.CreatePartitionsRequest,
      M.CreatePartitionsResponse,
      0,
      {
        topics: [
          { name: 'grow', count: 4, assignments: null },
          { name: 'nope', count: 3, assignments: null },
        ],
      },
      h.cluster,
    );
    assert.deepEqual(
      res.results.map((r) => r.errorCode),
      [0, 3],
    );
    assert.ok(h.partitions.partitions.has('grow-3'));
    const bad = await call(
      createPartitionsHandler,
      M.CreatePartitionsRequest,
      M.CreatePartitionsResponse,
      3,
      {
        topics: [{ name: 'grow', count: 3, assignments: null }],
      },
      h.cluster,
    );
    assert.equal(bad.results[0]!.errorCode, ErrorCode.INVALID_PARTITIONS);
    assert.equal(bad.results[0]!.errorMessage, 'The topic grow currently has 4 partition(s); 3 would not be an increase.');
    const assign = await call(
      createPartitionsHandler,
      M.CreatePartitionsRequest,
      M.CreatePartitionsResponse,
      3,
      {
        topics: [{ name: 'grow', count: 6, assignments: [{ brokerIds: [0] }] }],
      },
      h.cluster,
    );
    assert.equal(assign.results[0]!.errorCode, ErrorCode.INVALID_REPLICA_ASSIGNMENT);
  });
});

describe('DescribeConfigs / AlterConfigs / IncrementalAlterConfigs', () => {
  test('topic configs: sources, synonyms, types, documentation only when asked', async () => {
    const h = fresh({ staticSettings: new Map([['log.retention.hours', '24']]) });
    await createTopic(h, 'cfg', 1, [{ name: 'segment.bytes', value: '2097152' }]);
    for (const v of versions(M.DescribeConfigsRequest)) {
      const res = await call(
        describeConfigsHandler,
        M.DescribeConfigsRequest,
        M.DescribeConfigsResponse,
        v,
        {
          includeSynonyms: true,
          includeDocumentation: v >= 3,
          resources: [{ resourceType: 2, resourceName: 'cfg', configurationKeys: ['segment.bytes', 'retention.ms', 'cleanup.policy'] }],
        },
        h.cluster,
      );
      const byName = new Map(res.results[0]!.configs.map((c) => [c.name, c]));
      assert.equal(byName.get('segment.bytes')!.configSource, ConfigSource.DYNAMIC_TOPIC_CONFIG);
      assert.equal(byName.get('retention.ms')!.value, String(24 * 3600000));
      // As Kafka's ConfigHelper: synonyms are listed from the setting's own broker key
      // (log.retention.ms) on, and the source is the first one listed; with that key unset, none.
      assert.equal(byName.get('retention.ms')!.configSource, ConfigSource.DEFAULT_CONFIG);
      assert.deepEqual(byName.get('retention.ms')!.synonyms, []);
      if (v >= 3) {
        assert.equal(byName.get('cleanup.policy')!.configType, 7);
        assert.equal(typeof byName.get('cleanup.policy')!.documentation, 'string');
      }
    }
    const plain = await call(
      describeConfigsHandler,
      M.DescribeConfigsRequest,
      M.DescribeConfigsResponse,
      4,
      { resources: [{ resourceType: 2, resourceName: 'cfg', configurationKeys: null }] },
      h.cluster,
    );
    assert.equal(plain.results[0]!.configs.length, 37);
    assert.ok(plain.results[0]!.configs.every((c) => c.synonyms.length === 0 && c.documentation === null));
  });

  test("topic config synonyms: by source, then by key, from the setting's own broker key on", async () => {
    const h = fresh({
      staticSettings: new Map([
        ['log.retention.hours', '24'],
        ['log.retention.ms', '5000'],
      ]),
    });
    await createTopic(h, 'syn', 1, []);
    const res = await call(
      describeConfigsHandler,
      M.DescribeConfigsRequest,
      M.DescribeConfigsResponse,
      4,
      {
        includeSynonyms: true,
        resources: [{ resourceType: 2, resourceName: 'syn', configurationKeys: ['retention.ms', 'segment.ms'] }],
      },
      h.cluster,
    );
    const byName = new Map(res.results[0]!.configs.map((c) => [c.name, c]));
    assert.equal(byName.get('retention.ms')!.value, '5000');
    assert.equal(byName.get('retention.ms')!.configSource, ConfigSource.STATIC_BROKER_CONFIG);
    assert.deepEqual(
      byName.get('retention.ms')!.synonyms.map((s) => [s.name, s.value, s.source]),
      [
        ['log.retention.ms', '5000', 4],
        ['log.retention.hours', '24', 4],
        ['log.retention.hours', '168', 5],
      ],
    );
    assert.deepEqual(byName.get('segment.ms')!.synonyms, [], "log.roll.ms is set nowhere, so log.roll.hours's default is not listed");
  });

  test('broker resources: this node, the cluster default, wrong ids, unknown topics', async () => {
    const h = fresh({ staticSettings: new Map([['num.partitions', '3']]) });
    const res = await call(
      describeConfigsHandler,
      M.DescribeConfigsRequest,
      M.DescribeConfigsResponse,
      4,
      {
        resources: [
          { resourceType: 4, resourceName: '0', configurationKeys: ['num.partitions', 'log.segment.bytes'] },
          { resourceType: 4, resourceName: '7', configurationKeys: null },
          { resourceType: 4, resourceName: '', configurationKeys: null },
          { resourceType: 2, resourceName: 'nope', configurationKeys: null },
        ],
      },
      h.cluster,
    );
    assert.deepEqual(
      res.results.map((r) => r.errorCode),
      [0, 42, 0, 3],
    );
    const np = res.results[0]!.configs.find((c) => c.name === 'num.partitions')!;
    assert.deepEqual([np.value, np.configSource, np.readOnly], ['3', 4, true]);
    assert.equal(res.results[0]!.configs.find((c) => c.name === 'log.segment.bytes')!.readOnly, false);
    assert.deepEqual(res.results[2]!.configs, []);
  });

  test('AlterConfigs replaces overrides and reconfigures the live logs; errors as Kafka', async () => {
    const h = fresh();
    await createTopic(h, 'alt', 2, [{ name: 'segment.bytes', value: '2097152' }]);
    for (const v of versions(M.AlterConfigsRequest)) {
      const res = await call(
        alterConfigsHandler,
        M.AlterConfigsRequest,
        M.AlterConfigsResponse,
        v,
        {
          resources: [
            { resourceType: 2, resourceName: 'alt', configs: [{ name: 'retention.ms', value: String(5000 + v) }] },
            { resourceType: 2, resourceName: 'nope', configs: [{ name: 'retention.ms', value: '1' }] },
            { resourceType: 2, resourceName: 'alt', configs: [{ name: 'foo', value: '1' }] },
            { resourceType: 4, resourceName: '0', configs: [{ name: 'log.dirs', value: '/x' }] },
          ],
        },
        h.cluster,
      );
      assert.deepEqual(
        res.responses.map((r) => r.errorCode),
        [0, 3, 40, 42],
      );
      assert.deepEqual([...h.cluster.metadata.topic('alt')!.configs], [['retention.ms', String(5000 + v)]]);
      assert.equal(h.partitions.configUpdates.at(-1)!.config.get('retention.ms'), String(5000 + v));
      assert.equal(h.partitions.configUpdates.at(-1)!.config.get('segment.bytes'), '1073741824');
    }
  });

  test('IncrementalAlterConfigs: SET, DELETE, APPEND, SUBTRACT, duplicates, non-list APPEND, validate_only', async () => {
    const h = fresh();
    await createTopic(h, 'inc', 1, [{ name: 'retention.ms', value: '1000' }]);
    const inc = (
      configs: { name: string; configOperation: number; value: string | null }[],
      validateOnly = false,
      name = 'inc',
      type = 2,
    ) =>
      call(
        incrementalAlterConfigsHandler,
        M.IncrementalAlterConfigsRequest,
        M.IncrementalAlterConfigsResponse,
        1,
        { validateOnly, resources: [{ resourceType: type, resourceName: name, configs }] },
        h.cluster,
      );
    assert.equal(
      (
        await inc([
          { name: 'cleanup.policy', configOperation: 2, value: 'compact' },
          { name: 'retention.ms', configOperation: 1, value: null },
        ])
      ).responses[0]!.errorCode,
      0,
    );
    assert.deepEqual([...h.cluster.metadata.topic('inc')!.configs], [['cleanup.policy', 'delete,compact']]);
    assert.equal((await inc([{ name: 'cleanup.policy', configOperation: 3, value: 'delete' }])).responses[0]!.errorCode, 0);
    assert.equal(h.cluster.metadata.topic('inc')!.configs.get('cleanup.policy'), 'compact');
    const nonList = await inc([{ name: 'retention.ms', configOperation: 2, value: '5' }]);
    assert.deepEqual(
      [nonList.responses[0]!.errorCode, nonList.responses[0]!.errorMessage],
      [40, "Can't APPEND to key retention.ms because its type is not LIST."],
    );
    assert.equal(
      (
        await inc([
          { name: 'retention.ms', configOperation: 0, value: '5' },
          { name: 'retention.ms', configOperation: 0, value: '6' },
        ])
      ).responses[0]!.errorCode,
      42,
    );
    assert.equal((await inc([{ name: 'retention.ms', configOperation: 0, value: '7' }], true)).responses[0]!.errorCode, 0);
    assert.equal(h.cluster.metadata.topic('inc')!.configs.get('retention.ms'), undefined, 'validate_only changes nothing');
  });

  test('dynamic broker configs change topic defaults live; read-only keys are refused', async () => {
    const h = fresh();
    await createTopic(h, 'follow');
    const inc = (name: string, configs: { name: string; configOperation: number; value: string | null }[]) =>
      call(
        incrementalAlterConfigsHandler,
        M.IncrementalAlterConfigsRequest,
        M.IncrementalAlterConfigsResponse,
        0,
        { resources: [{ resourceType: 4, resourceName: name, configs }] },
        h.cluster,
      );
    assert.equal((await inc('0', [{ name: 'log.retention.ms', configOperation: 0, value: '1000' }])).responses[0]!.errorCode, 0);
    assert.equal(h.partitions.configUpdates.at(-1)!.config.get('retention.ms'), '1000');
    const d = await call(
      describeConfigsHandler,
      M.DescribeConfigsRequest,
      M.DescribeConfigsResponse,
      4,
      { resources: [{ resourceType: 2, resourceName: 'follow', configurationKeys: ['retention.ms'] }] },
      h.cluster,
    );
    assert.deepEqual(
      [d.results[0]!.configs[0]!.value, d.results[0]!.configs[0]!.configSource],
      ['1000', ConfigSource.DYNAMIC_BROKER_CONFIG],
    );
    const ro = await inc('', [{ name: 'num.partitions', configOperation: 0, value: '2' }]);
    assert.deepEqual(
      [ro.responses[0]!.errorCode, ro.responses[0]!.errorMessage],
      [42, 'Cannot update these configs dynamically: [num.partitions]'],
    );
    assert.equal(
      (await inc('0', [{ name: 'log.segment.bytes', configOperation: 0, value: '12' }])).responses[0]!.errorCode,
      ErrorCode.INVALID_REQUEST,
      'Kafka 4.4 refuses a broker value out of range as INVALID_REQUEST',
    );
  });
});

describe('DescribeCluster, DescribeLogDirs, DescribeTopicPartitions', () => {
  test('DescribeCluster at every version; the controller endpoint type is refused', async () => {
    const h = fresh();
    for (const v of versions(M.DescribeClusterRequest)) {
      const res = await call(describeClusterHandler, M.DescribeClusterRequest, M.DescribeClusterResponse, v, {}, h.cluster);
      assert.deepEqual(
        [res.errorCode, res.clusterId, res.controllerId, res.brokers.map((b) => b.brokerId)],
        [0, 'c1uSTeR1dAAAAAAAAAAAAA', 0, [0]],
      );
    }
    const ctrl = await call(describeClusterHandler, M.DescribeClusterRequest, M.DescribeClusterResponse, 1, { endpointType: 2 }, h.cluster);
    assert.equal(ctrl.errorCode, ErrorCode.MISMATCHED_ENDPOINT_TYPE);
  });

  test('DescribeLogDirs filters the partitions asked for', async () => {
    const h = fresh();
    await createTopic(h, 'logs', 3);
    await createTopic(h, 'other');
    for (const v of versions(M.DescribeLogDirsRequest)) {
      const res = await call(
        describeLogDirsHandler,
        M.DescribeLogDirsRequest,
        M.DescribeLogDirsResponse,
        v,
        { topics: [{ topic: 'logs', partitions: [0, 2, 9] }] },
        h.cluster,
      );
      const dir = res.results[0]!;
      assert.equal(dir.logDir, '/data');
      assert.deepEqual(
        dir.topics.map((t) => [t.name, t.partitions.map((p) => [p.partitionIndex, p.partitionSize])]),
        [
          [
            'logs',
            [
              [0, 100n],
              [2, 100n],
            ],
          ],
        ],
      );
      if (v >= 4) assert.deepEqual([dir.totalBytes, dir.usableBytes], [1000n, 500n]);
    }
    const all = await call(describeLogDirsHandler, M.DescribeLogDirsRequest, M.DescribeLogDirsResponse, 4, { topics: null }, h.cluster);
    assert.equal(all.results[0]!.topics.flatMap((t) => t.partitions).length, 4);
  });

  test('DescribeLogDirs answers an offline dir with KAFKA_STORAGE_ERROR alone and shows a future replica as isFutureKey', async () => {
    const h = fresh();
    await createTopic(h, 'logs', 1);
    h.partitions.describeLogDirs = async () => [
      {
        path: '/a',
        errorCode: ErrorCode.KAFKA_STORAGE_ERROR,
        totalBytes: 9n,
        usableBytes: 9n,
        partitions: [{ topic: 'logs', partition: 0, sizeBytes: 5n, offsetLag: 0n, isFuture: false }],
      },
      {
        path: '/b',
        errorCode: ErrorCode.NONE,
        totalBytes: 9n,
        usableBytes: 8n,
        partitions: [{ topic: 'logs', partition: 0, sizeBytes: 3n, offsetLag: 7n, isFuture: true }],
      },
    ];
    const res = await call(describeLogDirsHandler, M.DescribeLogDirsRequest, M.DescribeLogDirsResponse, 4, { topics: null }, h.cluster);
    assert.deepEqual(
      res.results.map((d) => [
        d.logDir,
        d.errorCode,
        d.totalBytes,
        d.usableBytes,
        d.topics.flatMap((t) => t.partitions.map((p) => [p.partitionIndex, p.partitionSize, p.offsetLag, p.isFutureKey])),
      ]),
      [
        ['/a', ErrorCode.KAFKA_STORAGE_ERROR, -1n, -1n, []],
        ['/b', ErrorCode.NONE, 9n, 8n, [[0, 3n, 7n, true]]],
      ],
    );
  });

  test('AlterReplicaLogDirs at every version: one answer per partition, by topic; a partition named twice moves to the last path; one the cluster lacks is unknown', async () => {
    const h = fresh();
    await createTopic(h, 'logs', 2);
    assert.deepEqual(versions(M.AlterReplicaLogDirsRequest), [1, 2]);
    for (const v of versions(M.AlterReplicaLogDirsRequest)) {
      h.partitions.logDirMoves.length = 0;
      const res = await call(
        alterReplicaLogDirsHandler,
        M.AlterReplicaLogDirsRequest,
        M.AlterReplicaLogDirsResponse,
        v,
        {
          dirs: [
            { path: '/elsewhere', topics: [{ name: 'logs', partitions: [0, 1] }] },
            {
              path: '/data',
              topics: [
                { name: 'logs', partitions: [1] },
                { name: 'absent', partitions: [0] },
              ],
            },
          ],
        },
        h.cluster,
      );
      assert.deepEqual(
        res.results.map((t) => [t.topicName, t.partitions.map((p) => [p.partitionIndex, p.errorCode])]),
        [
          [
            'logs',
            [
              [0, ErrorCode.LOG_DIR_NOT_FOUND],
              [1, ErrorCode.NONE],
            ],
          ],
          ['absent', [[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]],
        ],
      );
      assert.deepEqual(
        h.partitions.logDirMoves.map((m) => `${m.topic}-${m.partition}:${m.path}`),
        ['logs-0:/elsewhere', 'logs-1:/data', 'absent-0:/data'],
      );
    }
  });

  test('DescribeTopicPartitions pages through partitions with a cursor', async () => {
    const h = fresh();
    await createTopic(h, 'p1', 2);
    await createTopic(h, 'p2', 3);
    await createTopic(h, 'p3', 1);
    const seen: string[] = [];
    let cursor: { topicName: string; partitionIndex: number } | null = null;
    for (let page = 0; page < 10; page++) {
      const res: M.DescribeTopicPartitionsResponseData = await call(
        describeTopicPartitionsHandler,
        M.DescribeTopicPartitionsRequest,
        M.DescribeTopicPartitionsResponse,
        0,
        { topics: [], responsePartitionLimit: 2, cursor },
        h.cluster,
      );
      for (const t of res.topics) for (const p of t.partitions) seen.push(`${t.name}-${p.partitionIndex}`);
      assert.ok(res.topics.flatMap((t) => t.partitions).length <= 2);
      cursor = res.nextCursor === null ? null : { topicName: res.nextCursor.topicName, partitionIndex: res.nextCursor.partitionIndex };
      if (cursor === null) break;
    }
    assert.deepEqual(seen, ['p1-0', 'p1-1', 'p2-0', 'p2-1', 'p2-2', 'p3-0']);
    const named = await call(
      describeTopicPartitionsHandler,
      M.DescribeTopicPartitionsRequest,
      M.DescribeTopicPartitionsResponse,
      0,
      { topics: [{ name: 'p3' }, { name: 'nope' }], responsePartitionLimit: 100 },
      h.cluster,
    );
    assert.deepEqual(
      named.topics.map((t) => [t.name, t.errorCode]),
      [
        ['nope', 3],
        ['p3', 0],
      ],
    );
  });
});

describe('ListConfigResources', () => {
  const list = (h: Harness, version: number, resourceTypes: number[]) =>
    call(listConfigResourcesHandler, M.ListConfigResourcesRequest, M.ListConfigResourcesResponse, version, { resourceTypes }, h.cluster);
  const named = (r: M.ListConfigResourcesResponseData) => r.configResources.map((c) => `${c.resourceType}:${c.resourceName}`);

  test('all types: the broker logger, the broker, then every topic; a filter keeps that order', async () => {
    const h = fresh();
    await createTopic(h, 'b-topic');
    await createTopic(h, 'a-topic');
    assert.deepEqual(named(await list(h, 1, [])), ['8:0', '4:0', '2:a-topic', '2:b-topic']);
    assert.deepEqual(named(await list(h, 1, [2, 4])), ['4:0', '2:a-topic', '2:b-topic']);
    assert.deepEqual(named(await list(h, 1, [16, 32])), [], 'no client metrics subscriptions or group configs exist');
  });

  test('v0 (ListClientMetricsResources) lists client metrics only; a type without configs is UNSUPPORTED_VERSION', async () => {
    const h = fresh();
    await createTopic(h, 'a-topic');
    assert.deepEqual(named(await list(h, 0, [])), []);
    const unknown = await list(h, 1, [4, 99]);
    assert.equal(unknown.errorCode, ErrorCode.UNSUPPORTED_VERSION);
    assert.deepEqual(unknown.configResources, []);
  });
});
