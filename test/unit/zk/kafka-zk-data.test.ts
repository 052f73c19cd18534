/**
 * The znode formats against JSON as Kafka 3.9 writes and reads it (`kafka.zk.ZkData`): every
 * encoder's exact output, and decoders fed what Kafka writes, including older versions.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as D from '../../../src/zk/kafka-zk-data.js';
import { KafkaZkDataError } from '../../../src/zk/kafka-zk-errors.js';

const json = (b: Buffer): unknown => JSON.parse(b.toString('utf8'));
const buf = (s: string): Buffer => Buffer.from(s, 'utf8');

describe("Kafka's znode paths", () => {
  test('paths as ZkData builds them', () => {
    assert.equal(D.partitionStatePath('orders', 3), '/brokers/topics/orders/partitions/3/state');
    assert.equal(D.configEntityPath('brokers', D.DEFAULT_ENTITY), '/config/brokers/<default>');
    assert.equal(D.deleteTopicPath('t'), '/admin/delete_topics/t');
    assert.equal(D.brokerIdPath(7), '/brokers/ids/7');
  });

  test('the persistent paths of a broker start-up', () => {
    assert.deepEqual([...D.PERSISTENT_PATHS].sort(), [
      '/admin/delete_topics',
      '/brokers/ids',
      '/brokers/seqid',
      '/brokers/topics',
      '/config/brokers',
      '/config/changes',
      '/config/clients',
      '/config/ips',
      '/config/topics',
      '/config/users',
      '/consumers',
      '/isr_change_notification',
      '/latest_producer_id_block',
      '/log_dir_event_notification',
    ]);
  });
});

describe('broker registration (version 5)', () => {
  const info: D.BrokerInfo = {
    id: 1,
    endpoints: [
      { listenerName: 'INTERNAL', securityProtocol: 'SSL', host: 'b1.internal', port: 9093 },
      { listenerName: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: '::1', port: 9092 },
    ],
    rack: 'r1',
  };

  test('encodes every field Kafka writes, host and port from the PLAINTEXT endpoint', () => {
    assert.deepEqual(json(D.encodeBrokerInfo(info, 1700000000000)), {
      features: {},
      listener_security_protocol_map: { INTERNAL: 'SSL', PLAINTEXT: 'PLAINTEXT' },
      endpoints: ['INTERNAL://b1.internal:9093', 'PLAINTEXT://[::1]:9092'],
      jmx_port: -1,
      port: 9092,
      host: '::1',
      rack: 'r1',
      version: 5,
      timestamp: '1700000000000',
    });
  });

  test('no PLAINTEXT endpoint: host null and port -1, rack left out when none', () => {
    const only = json(D.encodeBrokerInfo({ id: 2, endpoints: [info.endpoints[0]!] }, 1)) as Record<string, unknown>;
    assert.equal(only['host'], null);
    assert.equal(only['port'], -1);
    assert.equal('rack' in only, false);
  });

  test('round trip', () => {
    const decoded = D.decodeBrokerInfo(
      1,
      D.encodeBrokerInfo({ ...info, features: { 'metadata.version': { minVersion: 1, maxVersion: 21 } } }, 5),
    );
    assert.deepEqual(decoded.endpoints, info.endpoints);
    assert.equal(decoded.rack, 'r1');
    assert.deepEqual(decoded.features, { 'metadata.version': { minVersion: 1, maxVersion: 21 } });
  });

  test('reads what Kafka 3.x wrote, and the version 1 and 2 formats', () => {
    const kafka = buf(
      '{"features":{},"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://kafka-0:9092"],"jmx_port":-1,"port":9092,"host":"kafka-0","version":5,"timestamp":"1690000000000"}',
    );
    const b = D.decodeBrokerInfo(0, kafka);
    assert.deepEqual(b.endpoints, [{ listenerName: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: 'kafka-0', port: 9092 }]);
    assert.equal(b.rack, null);
    const v1 = D.decodeBrokerInfo(3, buf('{"version":1,"host":"h","port":9092,"jmx_port":9999,"timestamp":"1"}'));
    assert.deepEqual(v1.endpoints, [{ listenerName: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: 'h', port: 9092 }]);
    const v2 = D.decodeBrokerInfo(
      4,
      buf('{"version":2,"host":"h","port":9092,"jmx_port":-1,"timestamp":"1","endpoints":["PLAINTEXT://h:9092","SSL://h:9093"]}'),
    );
    assert.deepEqual(
      v2.endpoints.map((e) => e.securityProtocol),
      ['PLAINTEXT', 'SSL'],
    );
  });

  test('malformed registrations are refused with the path', () => {
    assert.throws(
      () => D.decodeBrokerInfo(1, buf('{"version":5,"jmx_port":-1,"endpoints":["nonsense"]}')),
      (e: unknown) => {
        return e instanceof KafkaZkDataError && e.path === '/brokers/ids/1';
      },
    );
    assert.throws(() => D.decodeBrokerInfo(1, buf('not json')), KafkaZkDataError);
  });
});

describe('controller, epoch, cluster id', () => {
  test('the controller znode is version 2 with kraftControllerEpoch -1', () => {
    assert.equal(D.encodeController(2, 123).toString(), '{"version":2,"brokerid":2,"timestamp":"123","kraftControllerEpoch":-1}');
    assert.equal(D.decodeController(buf('{"version":1,"brokerid":5,"timestamp":"1"}')), 5);
  });

  test('the controller epoch is plain decimal text', () => {
    assert.equal(D.encodeControllerEpoch(7).toString(), '7');
    assert.equal(D.decodeControllerEpoch(buf('12')), 12);
    assert.throws(() => D.decodeControllerEpoch(buf('x')), KafkaZkDataError);
  });

  test('the cluster id has a string version', () => {
    assert.equal(D.encodeClusterId('abc').toString(), '{"version":"1","id":"abc"}');
    assert.equal(D.decodeClusterId(buf('{"version":"1","id":"q1"}')), 'q1');
  });
});

describe('topic assignment (version 3)', () => {
  test('encodes the brief example exactly', () => {
    const bytes = D.encodeTopicAssignment({ topicId: 'AAAAAAAAAAAAAAAAAAAAAg', partitions: new Map([[0, [1, 2, 3]]]) });
    assert.equal(
      bytes.toString(),
      '{"version":3,"topic_id":"AAAAAAAAAAAAAAAAAAAAAg","partitions":{"0":[1,2,3]},"adding_replicas":{},"removing_replicas":{}}',
    );
  });

  test('partitions sorted, empty adding/removing lists left out', () => {
    const bytes = D.encodeTopicAssignment({
      topicId: null,
      partitions: new Map([
        [1, [2, 3]],
        [0, [1, 2]],
      ]),
      addingReplicas: new Map([
        [0, [3]],
        [1, []],
      ]),
    });
    assert.equal(bytes.toString(), '{"version":3,"partitions":{"0":[1,2],"1":[2,3]},"adding_replicas":{"0":[3]},"removing_replicas":{}}');
  });

  test('reads version 1 (no topic id, no reassignment maps)', () => {
    const a = D.decodeTopicAssignment('t', buf('{"version":1,"partitions":{"1":[2,1],"0":[1,2]}}'));
    assert.equal(a.topicId, null);
    assert.deepEqual(
      [...a.partitions],
      [
        [0, [1, 2]],
        [1, [2, 1]],
      ],
    );
    assert.equal(a.addingReplicas.size, 0);
  });
});

describe('partition state', () => {
  test("encodes Kafka's fields in Kafka's usual order; recovery state only when RECOVERING", () => {
    assert.equal(
      D.encodePartitionState({ leader: 1, leaderEpoch: 0, isr: [1, 2], controllerEpoch: 1 }).toString(),
      '{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2]}',
    );
    const recovering = json(D.encodePartitionState({ leader: 1, leaderEpoch: 4, isr: [1], controllerEpoch: 2, leaderRecoveryState: 1 }));
    assert.equal((recovering as Record<string, unknown>)['leader_recovery_state'], 1);
  });

  test('decodes what Kafka writes', () => {
    assert.deepEqual(D.decodePartitionState('t', 0, buf('{"controller_epoch":3,"leader":-1,"version":1,"leader_epoch":7,"isr":[2]}')), {
      leader: -1,
      leaderEpoch: 7,
      isr: [2],
      controllerEpoch: 3,
    });
  });
});

describe('configs and change notifications', () => {
  test('entity config', () => {
    assert.equal(D.encodeEntityConfig({ 'retention.ms': '1000' }).toString(), '{"version":1,"config":{"retention.ms":"1000"}}');
    assert.deepEqual(D.decodeEntityConfig('/config/topics/t', buf('{"version":1,"config":{"a":"b"}}')), { a: 'b' });
    assert.deepEqual(D.decodeEntityConfig('/config/topics/t', null), {});
  });

  test('change notification version 2, and version 1 read', () => {
    assert.equal(D.encodeConfigChange('topics/t').toString(), '{"version":2,"entity_path":"topics/t"}');
    assert.equal(
      D.decodeConfigChange(
        '/config/changes/config_change_0000000000',
        buf('{"version":1,"entity_type":"brokers","entity_name":"<default>"}'),
      ),
      'brokers/<default>',
    );
  });
});

describe('producer id block', () => {
  test('block_start and block_end are strings, block_end inclusive', () => {
    const bytes = D.encodeProducerIdBlock({ brokerId: 1, firstProducerId: 1000n, size: 1000 });
    assert.equal(bytes.toString(), '{"version":1,"broker":1,"block_start":"1000","block_end":"1999"}');
    assert.deepEqual(D.decodeProducerIdBlock(bytes), { brokerId: 1, firstProducerId: 1000n, size: 1000 });
  });

  test('ids past 2^53 survive', () => {
    const big = D.decodeProducerIdBlock(buf('{"version":1,"broker":0,"block_start":"9007199254740993","block_end":"9007199254741992"}'));
    assert.equal(big.firstProducerId, 9007199254740993n);
    assert.equal(big.size, 1000);
  });
});

describe('/feature (FeatureZNode)', () => {
  test("written as Kafka 3.9's version 2, a level per feature, status Enabled", () => {
    assert.deepEqual(
      json(
        D.encodeFeatures(
          new Map([
            ['transaction.version', 2],
            ['group.version', 1],
          ]),
        ),
      ),
      {
        features: { 'transaction.version': { max_version_level: 2 }, 'group.version': { max_version_level: 1 } },
        version: 2,
        status: 1,
      },
    );
  });

  test('read from what Kafka writes: version 1 with min levels, version 2, a Disabled node finalizes nothing; bad nodes refused', () => {
    assert.deepEqual(
      D.decodeFeatures(buf('{"features":{"group.version":{"max_version_level":1}},"version":2,"status":1}')),
      new Map([['group.version', 1]]),
    );
    assert.deepEqual(
      D.decodeFeatures(buf('{"version":1,"status":1,"features":{"x":{"min_version_level":1,"max_version_level":3}}}')),
      new Map([['x', 3]]),
    );
    assert.deepEqual(D.decodeFeatures(buf('{"version":2,"status":0,"features":{"x":{"max_version_level":3}}}')), new Map());
    for (const bad of [
      '{"version":3,"status":1,"features":{}}',
      '{"version":2,"features":{}}',
      '{"version":2,"status":1}',
      '{"version":2,"status":1,"features":{"x":{"max_version_level":0}}}',
    ]) {
      assert.throws(() => D.decodeFeatures(buf(bad)), KafkaZkDataError, bad);
    }
  });
});
