// Share-group dead-letter queues (KIP-1191) with Kafka's own share consumer (kafka-clients 4.4.0,
// through ShareClients.java) against the broker process: a REJECTed record and one that reaches
// the delivery-count limit land in the group's dead-letter topic with Kafka's six headers (and the
// source key and value when the group copies records), a missing dead-letter topic is created when
// the broker allows it, the /metrics count follows, and a group config naming an internal-looking
// topic is refused as Kafka refuses it.
import { shortShareTimings } from '../../helpers/short-share-timings.js';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel, type IHeaders, type Producer } from 'kafkajs';
import { metricsUrl, startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { javaSkip } from '../../helpers/requirements.js';
import { failsWith, runCli } from '../../helpers/run-cli.js';
import { waitFor } from '../../helpers/wait-for.js';
import { startJavaProgram } from '../groups/group-helpers.js';

const PROGRAM = 'test/integration/share/ShareClients.java';
const DELIVERY_LIMIT = 2;

const BROKER_CONFIG = {
  ...shortShareTimings(DELIVERY_LIMIT),
  'errors.deadletterqueue.auto.create.topics.enable': 'true',
  'metrics.listener': 'http://127.0.0.1:0',
};

interface DeadLetter {
  readonly key: string | null;
  readonly value: string | null;
  readonly partition: number;
  readonly headers: Record<string, string>;
}

async function runShareClient(scenario: string, ...args: string[]): Promise<void> {
  await startJavaProgram(PROGRAM, `ShareClients ${scenario} ${args.join(' ')}`, [scenario, ...args]).succeeded(150_000);
}

function text(headers: IHeaders | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('utf8') : String(v)]));
}

describe('share-group dead-letter queues (KIP-1191) with the Java share consumer', { skip: javaSkip() }, () => {
  let broker: BrokerProcess;
  let kafka: Kafka;
  let producer: Producer;

  before(async () => {
    broker = await startBrokerProcess(BROKER_CONFIG);
    kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: [
        { topic: 'orders', numPartitions: 2 },
        { topic: 'payments', numPartitions: 1 },
        { topic: 'dlq.orders', numPartitions: 1, configEntries: [{ name: 'errors.deadletterqueue.group.enable', value: 'true' }] },
      ],
    });
    await admin.disconnect();
    producer = kafka.producer();
    await producer.connect();
  });

  after(async () => {
    await producer?.disconnect();
    await broker?.stop();
  });

  /** The records of `topic` from its start, once there are `count`. */
  async function deadLetters(topic: string, count: number): Promise<DeadLetter[]> {
    const consumer = kafka.consumer({ groupId: `read-${topic}-${Date.now()}` });
    await consumer.connect();
    const seen: DeadLetter[] = [];
    try {
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message, partition }) => {
          seen.push({
            key: message.key?.toString() ?? null,
            value: message.value?.toString() ?? null,
            partition,
            headers: text(message.headers),
          });
        },
      });
      await waitFor(`${count} records in ${topic}`, 60_000, () => (seen.length >= count ? true : undefined));
    } finally {
      await consumer.disconnect();
    }
    return seen;
  }

  /** One consumer acknowledging as `dead-letter` says: -1 rejected, -2 released until the limit archives it. */
  async function consumeAll(topic: string, group: string): Promise<void> {
    await runShareClient('consume', broker.bootstrap, topic, group, '1', 'dead-letter', '0', '4000');
  }

  test('a rejected record and one past the delivery-count limit reach the dead-letter topic with headers, key and value', async () => {
    const group = 'dlq-copy';
    await runShareClient(
      'group-config',
      broker.bootstrap,
      group,
      'share.auto.offset.reset=earliest',
      'errors.deadletterqueue.topic.name=dlq.orders',
      'errors.deadletterqueue.copy.record.enable=true',
    );
    await producer.send({ topic: 'orders', messages: [0, 1, 2, 3].map((i) => ({ key: `k-${i}`, value: `o-${i}`, partition: 1 })) });
    await consumeAll('orders', group);

    const letters = await deadLetters('dlq.orders', 2);
    const byValue = new Map(letters.map((l) => [l.value, l]));
    assert.equal(letters.length, 2, JSON.stringify(letters));
    assert.deepEqual(byValue.get('o-1'), {
      key: 'k-1',
      value: 'o-1',
      partition: 0,
      headers: {
        '__dlq.errors.topic': 'orders',
        '__dlq.errors.partition': '1',
        '__dlq.errors.offset': '1',
        '__dlq.errors.group': group,
        '__dlq.errors.delivery.count': '1',
        '__dlq.errors.message': 'Offset rejected by client.',
      },
    });
    assert.deepEqual(byValue.get('o-2'), {
      key: 'k-2',
      value: 'o-2',
      partition: 0,
      headers: {
        '__dlq.errors.topic': 'orders',
        '__dlq.errors.partition': '1',
        '__dlq.errors.offset': '2',
        '__dlq.errors.group': group,
        '__dlq.errors.delivery.count': String(DELIVERY_LIMIT),
        '__dlq.errors.message': 'Offset delivery count exceeded the threshold.',
      },
    });

    const url = await metricsUrl(broker);
    const counted = await waitFor('the dead-letter count in /metrics', 10_000, async () => {
      const body = await (await fetch(url)).text();
      return /^sluice_share_group_dead_letter_records_total\{group="dlq-copy"\} (\d+)$/m.exec(body)?.[1];
    });
    assert.equal(counted, '2');
  });

  test('a missing dead-letter topic is created with the opt-in config; without copy the records carry headers only', async () => {
    const group = 'dlq-auto';
    await runShareClient(
      'group-config',
      broker.bootstrap,
      group,
      'share.auto.offset.reset=earliest',
      'errors.deadletterqueue.topic.name=dlq.payments',
    );
    await producer.send({ topic: 'payments', messages: [0, 1, 2].map((i) => ({ key: `k-${i}`, value: `p-${i}` })) });
    await consumeAll('payments', group);

    const letters = await deadLetters('dlq.payments', 2);
    assert.deepEqual(letters.map((l) => [l.key, l.value, l.headers['__dlq.errors.offset'], l.headers['__dlq.errors.group']]).sort(), [
      [null, null, '1', group],
      [null, null, '2', group],
    ]);
    const admin = kafka.admin();
    await admin.connect();
    try {
      const described = await admin.describeConfigs({
        resources: [{ type: 2, name: 'dlq.payments', configNames: ['errors.deadletterqueue.group.enable', 'message.timestamp.type'] }],
        includeSynonyms: false,
      });
      assert.deepEqual(Object.fromEntries(described.resources[0]!.configEntries.map((e) => [e.configName, e.configValue])), {
        'errors.deadletterqueue.group.enable': 'true',
        'message.timestamp.type': 'CreateTime',
      });
    } finally {
      await admin.disconnect();
    }
  });

  test("a dead-letter topic name starting with __ is refused with Kafka's INVALID_CONFIG", async () => {
    const r = await runCli([
      'configs',
      '--bootstrap-server',
      broker.bootstrap,
      '--entity-type',
      'groups',
      '--entity-name',
      'dlq-bad',
      '--alter',
      '--add-config',
      'errors.deadletterqueue.topic.name=__orders',
    ]);
    failsWith(r, 'INVALID_CONFIG');
    assert.match(r.stderr, /errors\.deadletterqueue\.topic\.name: DLQ topic name must not start with '__'/);
  });
});
