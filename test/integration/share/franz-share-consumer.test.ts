// Share groups (KIP-932) with franz-go's share consumer (kgo, unmodified) against the broker
// process, through the Go program in ./franz: several consumers together accept every record once;
// a released record comes back on its second delivery; a rejected record never comes back.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { FRANZ_SHARE_BINARY, franzShareSkip } from '../../helpers/requirements.js';
import { LineProcess } from '../groups/group-helpers.js';

const PARTITIONS = 4;

interface Delivery {
  consumer: string;
  value: string;
  deliveryCount: number;
  ack: string;
}

async function franzConsume(
  bootstrap: string,
  topic: string,
  group: string,
  consumers: number,
  behaviour: string,
  expect: number,
): Promise<Delivery[]> {
  const p = LineProcess.start(`franz-share ${group}`, FRANZ_SHARE_BINARY, [
    `-brokers=${bootstrap}`,
    `-topic=${topic}`,
    `-group=${group}`,
    `-consumers=${consumers}`,
    `-behaviour=${behaviour}`,
    `-expect=${expect}`,
    '-group-configs=share.auto.offset.reset=earliest',
  ]);
  await p.succeeded(150_000);
  const lines = p.json();
  assert.deepEqual(
    lines.filter((l) => l['type'] === 'ack-error'),
    [],
    'every acknowledgement was accepted by the broker',
  );
  return lines.filter((l) => l['type'] === 'record') as unknown as Delivery[];
}

const values = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${prefix}-${i}`);

describe('franz-go share consumers (KIP-932)', { skip: franzShareSkip() }, () => {
  let broker: BrokerProcess;
  let producer: Producer;

  const produce = async (topic: string, vs: readonly string[]): Promise<void> => {
    await producer.send({ topic, messages: vs.map((value) => ({ value })) });
  };

  before(async () => {
    broker = await startBrokerProcess();
    const kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: ['fq-all', 'fq-release', 'fq-reject'].map((topic) => ({ topic, numPartitions: PARTITIONS })) });
    await admin.disconnect();
    producer = kafka.producer();
    await producer.connect();
  });

  after(async () => {
    await producer?.disconnect();
    await broker?.stop();
  });

  test('three consumers together accept every record exactly once', async () => {
    await produce('fq-all', values('a', 300));
    const deliveries = await franzConsume(broker.bootstrap, 'fq-all', 'franz-all', 3, 'accept', 300);
    const accepted = deliveries.filter((d) => d.ack === 'ACCEPT').map((d) => d.value);
    assert.equal(accepted.length, 300);
    assert.deepEqual([...new Set(accepted)].sort(), values('a', 300).sort());
  });

  test('a released record is delivered again and accepted on its second delivery', async () => {
    await produce('fq-release', values('r', 100));
    const deliveries = await franzConsume(broker.bootstrap, 'fq-release', 'franz-release', 2, 'release-once', 100);
    const byValue = new Map<string, Array<[number, string]>>();
    for (const d of deliveries) byValue.set(d.value, [...(byValue.get(d.value) ?? []), [d.deliveryCount, d.ack]]);
    assert.equal(byValue.size, 100);
    for (const [value, ds] of byValue)
      assert.deepEqual(
        ds,
        [
          [1, 'RELEASE'],
          [2, 'ACCEPT'],
        ],
        value,
      );
  });

  test('a rejected record is never delivered again', async () => {
    await produce('fq-reject', values('j', 50));
    const first = await franzConsume(broker.bootstrap, 'fq-reject', 'franz-reject', 1, 'reject-odd', 0);
    assert.equal(first.filter((d) => d.ack === 'REJECT').length, 25);
    await produce('fq-reject', values('k', 10));
    const second = await franzConsume(broker.bootstrap, 'fq-reject', 'franz-reject', 1, 'accept', 10);
    assert.deepEqual(second.map((d) => d.value).sort(), values('k', 10).sort());
  });
});
