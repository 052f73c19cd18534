// Transactions from KafkaJS and confluent-kafka-python (librdkafka 2.0.2), both on transaction
// version 1, against the broker process: committed and aborted transactions as read_committed
// and read_uncommitted consumers of the same clients see them, and KafkaJS's sendOffsets, whose
// offsets count only once their transaction commits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { PYTHON_SKIP, runPython } from '../../helpers/interop.js';
import { waitFor, when } from '../../helpers/wait-for.js';

const PARTITIONS = 3;
const COUNT = 20;
const values = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${prefix}-${i}`);

describe('transactions from KafkaJS and confluent-kafka-python', () => {
  let broker: BrokerProcess;
  let kafka: Kafka;

  before(async () => {
    broker = await startBrokerProcess({ 'group.initial.rebalance.delay.ms': '0' });
    kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, clientId: 'txn-test' });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: ['kjs-txn', 'py-txn'].map((topic) => ({ topic, numPartitions: PARTITIONS })) });
    await admin.disconnect();
  });

  after(async () => {
    await broker?.stop();
  });

  /** Every value a new consumer group reads from `topic` at the isolation level, once `expected` came and nothing more for a second. */
  async function readAll(topic: string, readUncommitted: boolean, expected: number): Promise<string[]> {
    const consumer: Consumer = kafka.consumer({ groupId: `read-${topic}-${readUncommitted}`, readUncommitted });
    const read: string[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void read.push(message.value!.toString()) });
    try {
      await waitFor(`${expected} records of ${topic}`, 30_000, () => when(read.length >= expected));
      // Kept: nothing more may arrive within a second, which nothing signals.
      await new Promise((r) => setTimeout(r, 1000));
      return read.slice().sort();
    } finally {
      await consumer.disconnect();
    }
  }

  test('KafkaJS: commit and abort, and offsets sent in a transaction', async () => {
    const producer = kafka.producer({ transactionalId: 'kjs-txn', idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    try {
      for (const tag of ['c1', 'a2', 'c3']) {
        const txn = await producer.transaction();
        await txn.send({ topic: 'kjs-txn', messages: values(tag, COUNT).map((v) => ({ key: v, value: v })) });
        await txn.sendOffsets({
          consumerGroupId: 'kjs-offsets',
          topics: [{ topic: 'kjs-txn', partitions: [{ partition: 0, offset: tag === 'c1' ? '5' : tag === 'a2' ? '7' : '9' }] }],
        });
        if (tag.startsWith('a')) await txn.abort();
        else await txn.commit();
        if (tag === 'c1' || tag === 'a2') {
          const admin = kafka.admin();
          await admin.connect();
          const [offsets] = await admin.fetchOffsets({ groupId: 'kjs-offsets', topics: ['kjs-txn'] });
          await admin.disconnect();
          assert.equal(offsets!.partitions.find((p) => p.partition === 0)!.offset, '5', `after ${tag} the committed offset is c1's`);
        }
      }
    } finally {
      await producer.disconnect();
    }
    assert.deepEqual(await readAll('kjs-txn', false, 2 * COUNT), [...values('c1', COUNT), ...values('c3', COUNT)].sort());
    assert.deepEqual(
      await readAll('kjs-txn', true, 3 * COUNT),
      [...values('c1', COUNT), ...values('a2', COUNT), ...values('c3', COUNT)].sort(),
    );
    const admin = kafka.admin();
    await admin.connect();
    const [offsets] = await admin.fetchOffsets({ groupId: 'kjs-offsets', topics: ['kjs-txn'] });
    await admin.disconnect();
    assert.equal(offsets!.partitions.find((p) => p.partition === 0)!.offset, '9');
  });

  test('confluent-kafka-python: commit and abort', { skip: PYTHON_SKIP }, async () => {
    const lines = await runPython('transactions', broker.bootstrap, {
      topic: 'py-txn',
      count: COUNT,
      partitions: PARTITIONS,
      transactionalId: 'py-txn',
    });
    assert.deepEqual(
      lines.filter((l) => l['type'] === 'ended').map((l) => l['tag']),
      ['c1', 'a2', 'c3'],
    );
    const read = (isolation: string): string[] =>
      (lines.find((l) => l['type'] === 'read' && l['isolation'] === isolation)!['values'] as string[]).slice().sort();
    assert.deepEqual(read('read_committed'), [...values('c1', COUNT), ...values('c3', COUNT)].sort());
    assert.deepEqual(read('read_uncommitted'), [...values('c1', COUNT), ...values('a2', COUNT), ...values('c3', COUNT)].sort());
  });
});
