/**
 * Dynamic broker configs, GROUP configs and BROKER_LOGGER levels against the broker process:
 * Kafka 4.4's kafka-configs.sh (ConfigCommand --bootstrap-server) sets and describes them,
 * KafkaJS's AlterConfigs sets a broker's own, and the changes act without a restart — a
 * produce over a lowered message.max.bytes is refused, a KIP-848 member is told the group's
 * heartbeat interval. One broker for the file.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import * as M from '@sluice/protocol/messages/index.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { INTEROP_DIR, runProcess } from '../../helpers/interop.js';
import { javaSkip } from '../../helpers/requirements.js';
import { wireCall } from '../../helpers/wire-call.js';
import { ok, runCli } from '../../helpers/run-cli.js';
import { kafkaClasspath } from '../../../tools/kafka/kafka-release.js';
import { waitFor } from '../../helpers/wait-for.js';

const BROKER = 4;

/** Kafka 4.4's kafka-configs.sh: the same class, run on the pinned release's jars. */
async function kafkaConfigs(bootstrap: string, ...args: string[]): Promise<string> {
  const r = await runProcess(
    'java',
    [
      '-Xmx192m',
      '-XX:TieredStopAtLevel=1',
      `-Dlog4j2.configurationFile=${join(INTEROP_DIR, 'log4j2-stderr.properties')}`,
      '-cp',
      kafkaClasspath(),
      'org.apache.kafka.tools.ConfigCommand',
      '--bootstrap-server',
      bootstrap,
      ...args,
    ],
    '',
    60_000,
  );
  assert.equal(r.code, 0, `kafka-configs ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.toString('utf8');
}

describe('dynamic configs with kafka-configs.sh and KafkaJS', { skip: javaSkip() }, () => {
  let broker: BrokerProcess;
  let kafka: Kafka;

  before(async () => {
    broker = await startBrokerProcess();
    kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 2 } });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'big' }] });
    await admin.disconnect();
  });
  after(async () => {
    await broker?.stop();
  });

  test("message.max.bytes lowered for the cluster refuses a large produce live; the broker's own value wins; sources as Kafka", async () => {
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    try {
      const value = Buffer.alloc(20_000, 1);
      await producer.send({ topic: 'big', messages: [{ value }] });

      await kafkaConfigs(
        broker.bootstrap,
        '--entity-type',
        'brokers',
        '--entity-default',
        '--alter',
        '--add-config',
        'message.max.bytes=10000',
      );
      await assert.rejects(
        producer.send({ topic: 'big', messages: [{ value }] }),
        (e: { type?: string }) => e.type === 'MESSAGE_TOO_LARGE',
      );

      const described = await kafkaConfigs(broker.bootstrap, '--entity-type', 'brokers', '--entity-name', '0', '--describe', '--all');
      assert.match(
        described,
        /message\.max\.bytes=10000 sensitive=false synonyms=\{DYNAMIC_DEFAULT_BROKER_CONFIG:message\.max\.bytes=10000, DEFAULT_CONFIG:message\.max\.bytes=1048588\}/,
      );

      const admin = kafka.admin();
      await admin.connect();
      await admin.alterConfigs({
        validateOnly: false,
        resources: [{ type: BROKER, name: '0', configEntries: [{ name: 'message.max.bytes', value: '100000' }] }],
      });
      await admin.disconnect();
      await producer.send({ topic: 'big', messages: [{ value }] });
      const own = await kafkaConfigs(broker.bootstrap, '--entity-type', 'brokers', '--entity-name', '0', '--describe');
      assert.match(
        own,
        /message\.max\.bytes=100000 sensitive=false synonyms=\{DYNAMIC_BROKER_CONFIG:message\.max\.bytes=100000, DYNAMIC_DEFAULT_BROKER_CONFIG:message\.max\.bytes=10000/,
      );
    } finally {
      await producer.disconnect();
    }
  });

  test("a group's consumer.heartbeat.interval.ms reaches its KIP-848 members; the config is listed and described", async () => {
    await kafkaConfigs(
      broker.bootstrap,
      '--entity-type',
      'groups',
      '--entity-name',
      'paced',
      '--alter',
      '--add-config',
      'consumer.heartbeat.interval.ms=7000',
    );
    const described = await kafkaConfigs(broker.bootstrap, '--entity-type', 'groups', '--entity-name', 'paced', '--describe');
    assert.match(described, /consumer\.heartbeat\.interval\.ms=7000/);
    const join = () =>
      wireCall(broker.bootstrap, M.ConsumerGroupHeartbeatRequest, M.ConsumerGroupHeartbeatResponse, 0, {
        groupId: 'paced',
        memberId: '',
        memberEpoch: 0,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: 30_000,
        subscribedTopicNames: ['big'],
        subscribedTopicRegex: null,
        serverAssignor: null,
        topicPartitions: [],
      });
    await wireCall(broker.bootstrap, M.FindCoordinatorRequest, M.FindCoordinatorResponse, 4, { keyType: 0, coordinatorKeys: ['paced'] });
    const joined = await waitFor(
      'the group coordinator to load',
      10_000,
      async () => {
        const r = await join();
        return r.errorCode === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS ? undefined : r;
      },
      200,
    );
    assert.deepEqual([joined.errorCode, joined.heartbeatIntervalMs], [ErrorCode.NONE, 7000]);
    const listed = await wireCall(broker.bootstrap, M.ListConfigResourcesRequest, M.ListConfigResourcesResponse, 1, {
      resourceTypes: [32],
    });
    assert.deepEqual(
      listed.configResources.map((r) => r.resourceName),
      ['paced'],
    );
  });

  test('broker-loggers: a level set with kafka-configs.sh or sluice configs is described by both', async () => {
    await kafkaConfigs(
      broker.bootstrap,
      '--entity-type',
      'broker-loggers',
      '--entity-name',
      '0',
      '--alter',
      '--add-config',
      'network=DEBUG',
    );
    const described = await kafkaConfigs(broker.bootstrap, '--entity-type', 'broker-loggers', '--entity-name', '0', '--describe');
    assert.match(described, /network=DEBUG sensitive=false synonyms=\{\}/);
    assert.match(described, /root=INFO/);
    const cli = ok(
      await runCli([
        'configs',
        '--bootstrap-server',
        broker.bootstrap,
        '--entity-type',
        'broker-loggers',
        '--entity-name',
        '0',
        '--alter',
        '--add-config',
        'groups=WARN',
      ]),
      'sluice configs alter',
    );
    assert.equal(cli, 'Completed updating config for broker-logger 0.\n');
    const listed = ok(
      await runCli([
        'configs',
        '--bootstrap-server',
        broker.bootstrap,
        '--entity-type',
        'broker-loggers',
        '--entity-name',
        '0',
        '--describe',
      ]),
      'sluice configs describe',
    );
    assert.match(listed, /^Dynamic configs for broker-logger 0 are:\n/);
    assert.match(listed, /\n {2}groups=WARN sensitive=false synonyms=\{\}\n/);
    assert.match(listed, /\n {2}network=DEBUG sensitive=false/);
  });
});
