// Share groups (KIP-932) with Kafka's own share consumer (kafka-clients 4.4.0, KafkaShareConsumer)
// and Admin against the broker process, through ShareClients.java: more consumers than partitions
// together get every record exactly once; a released record is delivered again; records held by
// a member killed with -9 come back after the acquisition lock; rejected records and records past
// the delivery-count limit are never delivered again; acknowledged state survives a restart.
import { shortShareTimings } from '../../helpers/short-share-timings.js';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import type { JsonLine } from '../../helpers/interop.js';
import { javaSkip } from '../../helpers/requirements.js';
import { startJavaProgram, waitFor, type LineProcess } from '../groups/group-helpers.js';
import { ok, runCli } from '../../helpers/run-cli.js';

const PARTITIONS = 4;
const PROGRAM = 'test/integration/share/ShareClients.java';
const DELIVERY_LIMIT = 3;

const BROKER_CONFIG = shortShareTimings(DELIVERY_LIMIT);

interface Delivery {
  consumer: string;
  partition: number;
  offset: number;
  value: string;
  deliveryCount: number;
  ack: string;
}

function startShareClient(scenario: string, bootstrap: string, ...args: string[]): LineProcess {
  return startJavaProgram(PROGRAM, `ShareClients ${scenario} ${args.join(' ')}`, [scenario, bootstrap, ...args]);
}

async function runShareClient(scenario: string, bootstrap: string, ...args: string[]): Promise<JsonLine[]> {
  const p = startShareClient(scenario, bootstrap, ...args);
  await p.succeeded(150_000);
  return p.json();
}

/** A share group that starts at the log start, as `kafka-configs.sh --entity-type groups` sets it. */
async function earliestGroup(bootstrap: string, group: string): Promise<string> {
  await runShareClient('group-config', bootstrap, group, 'share.auto.offset.reset=earliest');
  return group;
}

/** `consumers` share consumers acknowledging as `behaviour` says, until `expect` values are accepted (0: until idle). */
async function consume(
  bootstrap: string,
  topic: string,
  group: string,
  consumers: number,
  behaviour: string,
  expect: number,
): Promise<Delivery[]> {
  const lines = await runShareClient('consume', bootstrap, topic, group, String(consumers), behaviour, String(expect), '4000');
  const errors = lines.filter((l) => l['type'] === 'ack-error');
  assert.deepEqual(errors, [], 'every acknowledgement was accepted by the broker');
  return lines.filter((l) => l['type'] === 'record') as unknown as Delivery[];
}

const values = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${prefix}-${i}`);

function countBy<T>(items: readonly T[], key: (t: T) => string | number): Map<string | number, number> {
  const counts = new Map<string | number, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

describe('Java share consumers (KIP-932)', { skip: javaSkip() }, () => {
  let broker: BrokerProcess;
  let producer: Producer;
  let kafka: Kafka;
  const logDir = mkdtempSync(join(tmpdir(), 'sluice-share-'));

  const produce = async (topic: string, vs: readonly string[]): Promise<void> => {
    await producer.send({ topic, messages: vs.map((value) => ({ value })) });
  };

  before(async () => {
    broker = await startBrokerProcess({ ...BROKER_CONFIG, 'log.dirs': logDir });
    kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: ['q-all', 'q-release', 'q-held', 'q-reject', 'q-limit'].map((topic) => ({ topic, numPartitions: PARTITIONS })),
    });
    await admin.disconnect();
    producer = kafka.producer();
    await producer.connect();
  });

  after(async () => {
    await producer?.disconnect();
    await broker?.stop();
    rmSync(logDir, { recursive: true, force: true });
  });

  test('six consumers on four partitions together accept every record exactly once', async (t) => {
    const group = await earliestGroup(broker.bootstrap, 'share-all');
    const client = startShareClient('consume', broker.bootstrap, 'q-all', group, '6', 'accept', '600', '4000');
    t.after(() => client.kill('SIGKILL'));
    // Records keep arriving while the six members join, so that every member, each sharing a
    // partition with another, is handed some.
    for (let round = 0; round < 60; round++) {
      await produce('q-all', values(`all-${round}`, 10));
      // Kept: a paced producer, so that records keep arriving while the members join.
      await new Promise((r) => setTimeout(r, 250));
    }
    await client.succeeded(150_000);
    const deliveries = client.json().filter((l) => l['type'] === 'record') as unknown as Delivery[];
    const accepted = deliveries.filter((d) => d.ack === 'ACCEPT');
    assert.equal(accepted.length, 600, 'each record accepted once');
    assert.equal(new Set(accepted.map((d) => d.value)).size, 600);
    const perConsumer = countBy(deliveries, (d) => d.consumer);
    assert.equal(perConsumer.size, 6, `every member got records: ${JSON.stringify([...perConsumer])}`);

    const described = (await runShareClient('describe', broker.bootstrap, group)).find((l) => l['type'] === 'described');
    assert.ok(described !== undefined);
    assert.equal(described['state'], 'Empty');
  });

  test('a released record is delivered again and accepted on its second delivery', async () => {
    const group = await earliestGroup(broker.bootstrap, 'share-release');
    await produce('q-release', values('r', 100));
    const deliveries = await consume(broker.bootstrap, 'q-release', group, 2, 'release-once', 100);
    const byValue = new Map<string, Delivery[]>();
    for (const d of deliveries) byValue.set(d.value, [...(byValue.get(d.value) ?? []), d]);
    assert.equal(byValue.size, 100);
    for (const [value, ds] of byValue) {
      assert.deepEqual(
        ds.map((d) => [d.deliveryCount, d.ack]),
        [
          [1, 'RELEASE'],
          [2, 'ACCEPT'],
        ],
        value,
      );
    }
  });

  test('records held by a member killed with -9 are delivered to another member after the lock', async (t) => {
    const group = await earliestGroup(broker.bootstrap, 'share-held');
    await produce('q-held', values('h', 100));
    const holder = startShareClient('hold', broker.bootstrap, 'q-held', group, '1');
    t.after(() => holder.kill('SIGKILL'));
    const held = await waitFor('the holder has records', 90_000, () => {
      holder.assertStarted();
      const line = holder.json().find((l) => l['type'] === 'held');
      return line === undefined ? undefined : (line['values'] as string[]);
    });
    await holder.kill('SIGKILL');
    const deliveries = await consume(broker.bootstrap, 'q-held', group, 1, 'accept', 100);
    assert.equal(new Set(deliveries.map((d) => d.value)).size, 100);
    for (const d of deliveries) {
      assert.equal(d.deliveryCount, held.includes(d.value) ? 2 : 1, `${d.value}: held by the killed member: ${held.includes(d.value)}`);
    }
  });

  test('a rejected record is never delivered again', async () => {
    const group = await earliestGroup(broker.bootstrap, 'share-reject');
    await produce('q-reject', values('j', 100));
    const first = await consume(broker.bootstrap, 'q-reject', group, 2, 'reject-odd', 0);
    assert.equal(first.length, 100);
    assert.equal(first.filter((d) => d.ack === 'REJECT').length, 50);
    await produce('q-reject', values('k', 10));
    // Accepted and rejected records are delivered for good: the lag Admin shows is the 10 new ones.
    const described = (await runShareClient('describe', broker.bootstrap, group)).find((l) => l['type'] === 'described');
    const lags = Object.values((described?.['lags'] ?? {}) as Record<string, number>);
    assert.equal(lags.length, PARTITIONS, JSON.stringify(described));
    assert.equal(
      lags.reduce((a, b) => a + b, 0),
      10,
      JSON.stringify(described),
    );
    const table = ok(
      await runCli(['groups', '--bootstrap-server', broker.bootstrap, '--describe', '--group', group]),
      'sluice groups --describe',
    )
      .trimEnd()
      .split('\n');
    assert.match(table[0]!, /^GROUP +TOPIC +PARTITION +LEADER-EPOCH +START-OFFSET +LAG$/);
    assert.equal(
      table.slice(1).reduce((sum, row) => sum + Number(row.split(/ +/)[5]), 0),
      10,
      `sluice groups shows the same lag:\n${table.join('\n')}`,
    );
    const second = await consume(broker.bootstrap, 'q-reject', group, 1, 'accept', 10);
    assert.deepEqual(second.map((d) => d.value).sort(), values('k', 10).sort(), 'only the new records, none of the rejected');
  });

  test(`a record released ${DELIVERY_LIMIT} times reaches the delivery-count limit and is archived`, async () => {
    const group = await earliestGroup(broker.bootstrap, 'share-limit');
    await produce('q-limit', values('l', 20));
    const deliveries = await consume(broker.bootstrap, 'q-limit', group, 1, 'release-always', 0);
    const perValue = countBy(deliveries, (d) => d.value);
    assert.equal(perValue.size, 20);
    for (const [value, n] of perValue) assert.equal(n, DELIVERY_LIMIT, `${value} delivered ${n} times`);
  });

  test('acknowledged records stay acknowledged across a broker restart', async () => {
    await broker.stop();
    broker = await startBrokerProcess({ ...BROKER_CONFIG, 'log.dirs': logDir });
    await producer.disconnect();
    kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    producer = kafka.producer();
    await producer.connect();
    await produce('q-release', values('after', 30));
    const deliveries = await consume(broker.bootstrap, 'q-release', 'share-release', 2, 'accept', 30);
    assert.deepEqual([...new Set(deliveries.map((d) => d.value))].sort(), values('after', 30).sort());
  });
});
