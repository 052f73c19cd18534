/**
 * Dynamic broker configs and group configs on a two-broker ZooKeeper cluster: the cluster default
 * set through broker 1 reaches broker 2 through ZooKeeper's change notification and acts there
 * live (a produce to a partition broker 2 leads is refused over the lowered message.max.bytes),
 * Kafka 3.9's own `kafka-configs.sh --zookeeper` reads what Sluice wrote, in Kafka's layout, and a
 * broker started after 3.9 wrote its entity starts with it. Finalized features changed through
 * one broker (UpdateFeatures, stored in `/feature`) reach the other.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import * as M from '@sluice/protocol/messages/index.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { startCluster, type TestCluster } from '../../helpers/cluster.js';
import { runProcess } from '../../helpers/interop.js';
import { zooKeeperSkip } from '../../helpers/requirements.js';
import { eventually } from '../../helpers/wait-for.js';
import { wireCall } from '../../helpers/wire-call.js';
import { kafkaClasspath, kafkaLibsDir, kafkaLibsPresent } from '../../../tools/kafka/kafka-release.js';

const KAFKA_ZK_ERA = '3.9.1';
const BROKER = 4;
const GROUP = 32;

describe('dynamic configs on a ZooKeeper cluster', { skip: zooKeeperSkip() }, () => {
  let cluster: TestCluster;

  before(async () => {
    cluster = await startCluster(2);
    await cluster.waitFor('two brokers', (m) => m.brokers.length === 2);
  });
  after(async () => {
    await cluster?.stop();
  });

  test("the cluster default set through broker 1 acts on broker 2's partitions live", async (t) => {
    const kafka = new Kafka({ brokers: cluster.bootstrap().split(','), logLevel: logLevel.NOTHING, retry: { retries: 2 } });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: [{ topic: 'led-by-2', replicaAssignment: [{ partition: 0, replicas: [2, 1] }] }],
      waitForLeaders: true,
    });
    await admin.disconnect();
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    t.after(() => producer.disconnect());
    const value = Buffer.alloc(20_000, 2);
    await producer.send({ topic: 'led-by-2', acks: 1, messages: [{ value }] });
    const set = await wireCall(cluster.brokers[0]!.bootstrap, M.IncrementalAlterConfigsRequest, M.IncrementalAlterConfigsResponse, 1, {
      validateOnly: false,
      resources: [{ resourceType: BROKER, resourceName: '', configs: [{ name: 'message.max.bytes', configOperation: 0, value: '10000' }] }],
    });
    assert.equal(set.responses[0]!.errorCode, ErrorCode.NONE);
    await eventually(
      'broker 2 refuses the large batch',
      20_000,
      () =>
        assert.rejects(
          producer.send({ topic: 'led-by-2', acks: 1, messages: [{ value }] }),
          (e: { type?: string }) => e.type === 'MESSAGE_TOO_LARGE',
        ),
      250,
    );
    const described = await wireCall(cluster.brokers[1]!.bootstrap, M.DescribeConfigsRequest, M.DescribeConfigsResponse, 4, {
      includeSynonyms: false,
      includeDocumentation: false,
      resources: [{ resourceType: BROKER, resourceName: '2', configurationKeys: ['message.max.bytes'] }],
    });
    assert.deepEqual(
      described.results[0]!.configs.map((c) => [c.value, c.configSource]),
      [['10000', 3]],
    );
  });

  test('a feature level changed through broker 1 reaches broker 2, with the /feature version as the epoch', async () => {
    const levels = async (bootstrap: string) => {
      const r = await wireCall(bootstrap, M.ApiVersionsRequest, M.ApiVersionsResponse, 3, {
        clientSoftwareName: 'test',
        clientSoftwareVersion: '1',
      });
      return {
        epoch: r.finalizedFeaturesEpoch,
        transaction: r.finalizedFeatures.find((f) => f.name === 'transaction.version')?.maxVersionLevel ?? 0,
      };
    };
    const before = await levels(cluster.brokers[1]!.bootstrap);
    assert.equal(before.transaction, 2);
    const set = await wireCall(cluster.brokers[0]!.bootstrap, M.UpdateFeaturesRequest, M.UpdateFeaturesResponse, 1, {
      timeoutMs: 10_000,
      featureUpdates: [{ feature: 'transaction.version', maxVersionLevel: 1, upgradeType: 2 }],
      validateOnly: false,
    });
    assert.equal(set.errorCode, ErrorCode.NONE, set.errorMessage ?? '');
    await eventually(
      'broker 2 shows transaction.version 1',
      20_000,
      async () => {
        assert.deepEqual(await levels(cluster.brokers[1]!.bootstrap), { epoch: before.epoch + 1n, transaction: 1 });
      },
      250,
    );
    const refused = await wireCall(cluster.brokers[1]!.bootstrap, M.UpdateFeaturesRequest, M.UpdateFeaturesResponse, 2, {
      timeoutMs: 10_000,
      featureUpdates: [{ feature: 'transaction.version', maxVersionLevel: 0, upgradeType: 1 }],
      validateOnly: false,
    });
    assert.equal(refused.errorCode, ErrorCode.INVALID_UPDATE_VERSION, 'broker 2 validates against the level broker 1 stored');
  });

  test("a group's config set through broker 2 is described by broker 1", async () => {
    const set = await wireCall(cluster.brokers[1]!.bootstrap, M.IncrementalAlterConfigsRequest, M.IncrementalAlterConfigsResponse, 1, {
      validateOnly: false,
      resources: [
        {
          resourceType: GROUP,
          resourceName: 'team/shared',
          configs: [{ name: 'consumer.session.timeout.ms', configOperation: 0, value: '50000' }],
        },
      ],
    });
    assert.equal(set.responses[0]!.errorCode, ErrorCode.NONE);
    await eventually(
      'broker 1 follows /config/groups/team%2Fshared',
      20_000,
      async () => {
        const d = await wireCall(cluster.brokers[0]!.bootstrap, M.DescribeConfigsRequest, M.DescribeConfigsResponse, 4, {
          includeSynonyms: false,
          includeDocumentation: false,
          resources: [{ resourceType: GROUP, resourceName: 'team/shared', configurationKeys: ['consumer.session.timeout.ms'] }],
        });
        assert.deepEqual(
          d.results[0]!.configs.map((c) => [c.value, c.configSource]),
          [['50000', 8]],
        );
      },
      250,
    );
  });

  test(
    "Kafka 3.9's kafka-configs.sh --zookeeper reads what Sluice wrote, and a stopped broker starts with what it wrote",
    { skip: kafkaLibsPresent(KAFKA_ZK_ERA) ? undefined : `Kafka ${KAFKA_ZK_ERA}'s jars are absent` },
    async () => {
      await wireCall(cluster.brokers[0]!.bootstrap, M.IncrementalAlterConfigsRequest, M.IncrementalAlterConfigsResponse, 1, {
        validateOnly: false,
        resources: [{ resourceType: BROKER, resourceName: '', configs: [{ name: 'log.cleaner.threads', configOperation: 0, value: '2' }] }],
      });
      // Kafka 3.9 edits broker configs in ZooKeeper only while the brokers concerned are down.
      await Promise.all(cluster.brokers.map((b) => b.stop()));
      const configCommand = async (...args: string[]): Promise<string> => {
        const r = await runProcess(
          'java',
          [
            '-Xmx256m',
            '-XX:TieredStopAtLevel=1',
            '-cp',
            kafkaClasspath(kafkaLibsDir(KAFKA_ZK_ERA)),
            'kafka.admin.ConfigCommand',
            '--zookeeper',
            `${cluster.zookeeper.connect}/sluice`,
            ...args,
          ],
          '',
          120_000,
        );
        assert.equal(r.code, 0, String(r.stderr));
        return r.stdout.toString('utf8');
      };
      const defaults = await configCommand('--describe', '--entity-type', 'brokers', '--entity-default');
      assert.match(defaults, /log\.cleaner\.threads=2/);
      assert.match(defaults, /message\.max\.bytes=10000/);
      await configCommand('--alter', '--entity-type', 'brokers', '--entity-name', '2', '--add-config', 'message.max.bytes=30000');

      const restarted = await cluster.startBroker(2);
      await eventually(
        'broker 2 loads its own entity at start-up',
        20_000,
        async () => {
          const d = await wireCall(restarted.bootstrap, M.DescribeConfigsRequest, M.DescribeConfigsResponse, 4, {
            includeSynonyms: true,
            includeDocumentation: false,
            resources: [{ resourceType: BROKER, resourceName: '2', configurationKeys: ['message.max.bytes'] }],
          });
          const e = d.results[0]!.configs[0]!;
          assert.deepEqual(
            [e.value, e.configSource, e.synonyms.map((s) => [s.value, s.source])],
            [
              '30000',
              2,
              [
                ['30000', 2],
                ['10000', 3],
                ['1048588', 5],
              ],
            ],
          );
        },
        250,
      );
    },
  );
});
