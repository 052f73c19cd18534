// Three broker processes and a ZooKeeper, every listener SASL_PLAINTEXT, the brokers talking to
// each other with `sasl.mechanism.inter.broker.protocol=PLAIN` (controller requests, replica
// fetches, forwarded requests): a SCRAM user created through broker 1 authenticates at broker 3
// (the credential travels through ZooKeeper), an acks=all produce with SCRAM is replicated to
// all three, and a user written by Kafka 3.9's own `kafka-configs.sh --zookeeper` authenticates
// at broker 2.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Kafka, logLevel } from 'kafkajs';
import { KafkaCluster } from '@sluice/client/cluster.js';
import { KafkaConnection } from '@sluice/client/connection.js';
import type { SaslCredentials } from '@sluice/client/sasl-client.js';
import { alterScramCredentials, describeScramCredentials } from '@sluice/client/scram-credentials-admin.js';
import { kafkaClasspath, kafkaLibsDir, kafkaLibsPresent } from '../../../tools/kafka/kafka-release.js';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { freePort, runProcess } from '../../helpers/interop.js';
import { zooKeeperSkip } from '../../helpers/requirements.js';
import { eventually } from '../../helpers/wait-for.js';
import { startZooKeeper, type ZooKeeperServer } from '../../helpers/zookeeper-server.js';
import { ADMIN, brokerCount, hostPort, saslBrokerSettings } from '../../helpers/sasl-setup.js';

const KAFKA_ZK_ERA = '3.9.1';
const SIZE = 3;
const ADMIN_PLAIN: SaslCredentials = { mechanism: 'PLAIN', ...ADMIN };

async function authenticateAt(bootstrap: string, sasl: SaslCredentials): Promise<number> {
  const connection = await KafkaConnection.connect({ ...hostPort(bootstrap), sasl });
  try {
    return await brokerCount(connection);
  } finally {
    connection.close();
  }
}

describe('SASL on a ZooKeeper cluster', { skip: zooKeeperSkip() }, () => {
  let zookeeper: ZooKeeperServer;
  let dir: string;
  const brokers: BrokerProcess[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-sasl-cluster-'));
    zookeeper = await startZooKeeper();
    for (let id = 1; id <= SIZE; id++) {
      const port = await freePort();
      brokers.push(
        await startBrokerProcess(
          saslBrokerSettings('SASL_PLAINTEXT', {
            listeners: `SASL_PLAINTEXT://127.0.0.1:${port}`,
            'sasl.mechanism.inter.broker.protocol': 'PLAIN',
            'node.id': String(id),
            'log.dirs': join(dir, `broker-${id}`),
            'zookeeper.connect': `${zookeeper.connect}/sluice`,
            'zookeeper.session.timeout.ms': '6000',
            'offsets.topic.replication.factor': '3',
            'num.partition.workers': '1',
          }),
        ),
      );
    }
    await eventually(
      'three brokers registered',
      20_000,
      async () => assert.equal(await authenticateAt(brokers[0]!.bootstrap, ADMIN_PLAIN), SIZE),
      200,
    );
  });

  after(async () => {
    await Promise.all(brokers.map((b) => b.stop()));
    await zookeeper?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  test('a SCRAM user created through broker 1 authenticates at broker 3, and its acks=all produce is replicated', async (t) => {
    const viaFirst = new KafkaCluster({ bootstrap: [hostPort(brokers[0]!.bootstrap)], sasl: ADMIN_PLAIN });
    try {
      await alterScramCredentials(viaFirst, [
        { user: 'carol', mechanism: 'SCRAM-SHA-256', upsert: { password: 'carol-secret', iterations: 4096 } },
      ]);
    } finally {
      viaFirst.close();
    }
    const carol: SaslCredentials = { mechanism: 'SCRAM-SHA-256', username: 'carol', password: 'carol-secret' };
    assert.equal(await eventually('carol at broker 3', 20_000, () => authenticateAt(brokers[2]!.bootstrap, carol), 200), SIZE);
    await assert.rejects(authenticateAt(brokers[2]!.bootstrap, { ...carol, password: 'wrong' }), /invalid credentials/);

    const kafka = new Kafka({
      brokers: [brokers[2]!.bootstrap],
      sasl: { mechanism: 'scram-sha-256', username: 'carol', password: 'carol-secret' },
      logLevel: logLevel.NOTHING,
    });
    const admin = kafka.admin();
    const producer = kafka.producer();
    await admin.connect();
    await producer.connect();
    t.after(async () => {
      await producer.disconnect();
      await admin.disconnect();
    });
    await admin.createTopics({ topics: [{ topic: 'replicated', numPartitions: 1, replicationFactor: 3 }], waitForLeaders: true });
    // acks=all waits for both followers, which fetch over SASL as `admin`.
    await producer.send({ topic: 'replicated', acks: -1, messages: [{ value: 'r' }] });
    const [meta] = (await admin.fetchTopicMetadata({ topics: ['replicated'] })).topics;
    assert.equal(meta!.partitions[0]!.isr.length, 3);
  });

  test(
    "a SCRAM user written by Kafka 3.9's kafka-configs.sh --zookeeper authenticates at broker 2",
    { skip: kafkaLibsPresent(KAFKA_ZK_ERA) ? undefined : `Kafka ${KAFKA_ZK_ERA}'s jars are absent` },
    async (t) => {
      const configs = await runProcess(
        'java',
        [
          '-Xmx256m',
          '-XX:TieredStopAtLevel=1',
          '-cp',
          kafkaClasspath(kafkaLibsDir(KAFKA_ZK_ERA)),
          'kafka.admin.ConfigCommand',
          '--zookeeper',
          `${zookeeper.connect}/sluice`,
          '--alter',
          '--add-config',
          'SCRAM-SHA-512=[iterations=8192,password=dave-secret]',
          '--entity-type',
          'users',
          '--entity-name',
          'dave',
        ],
        '',
        120_000,
      );
      assert.equal(configs.code, 0, configs.stderr);
      const dave: SaslCredentials = { mechanism: 'SCRAM-SHA-512', username: 'dave', password: 'dave-secret' };
      assert.equal(await eventually('dave at broker 2', 20_000, () => authenticateAt(brokers[1]!.bootstrap, dave), 200), SIZE);
      const viaSecond = new KafkaCluster({ bootstrap: [hostPort(brokers[1]!.bootstrap)], sasl: dave });
      t.after(() => viaSecond.close());
      assert.deepEqual(await describeScramCredentials(viaSecond, ['dave']), [
        { user: 'dave', credentials: [{ mechanism: 'SCRAM-SHA-512', iterations: 8192 }] },
      ]);
    },
  );
});
