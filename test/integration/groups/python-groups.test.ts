// confluent-kafka-python (librdkafka) as a subscribe-based group member against the broker
// process: it reads a topic, commits synchronously and leaves; the commits are visible through
// OffsetFetch; a second run of the same group resumes exactly at them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Kafka, logLevel, type Admin, type Producer } from 'kafkajs';
import { REPO_ROOT } from '../../../tools/codegen/main.js';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { PYTHON, PYTHON_SKIP, runProcess, type JsonLine } from '../../helpers/interop.js';

const TOPIC = 'py-group';
const GROUP = 'py-g';
const PARTITIONS = 3;

async function runMember(bootstrap: string, count: number): Promise<JsonLine[]> {
  const r = await runProcess(
    PYTHON!,
    [join(REPO_ROOT, 'test/integration/groups/group_consumer.py'), bootstrap, GROUP, TOPIC, String(count)],
    '',
    60_000,
  );
  assert.equal(r.code, 0, r.stderr);
  return r.stdout
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as JsonLine);
}

/** The records' [partition, offset, value], sorted. */
const records = (lines: readonly JsonLine[]): Array<[number, number, string]> =>
  lines
    .filter((l) => l['type'] === 'record')
    .map((l): [number, number, string] => [l['partition'] as number, l['offset'] as number, l['value'] as string])
    .sort((x, y) => x[0] - y[0] || x[1] - y[1]);

describe('confluent-kafka-python in a consumer group', { skip: PYTHON_SKIP }, () => {
  let broker: BrokerProcess;
  let admin: Admin;
  let producer: Producer;
  let produced = 0;
  /** `perPartition` records per partition, values `p<n>` round-robin; returns what each is expected as. */
  const produce = async (perPartition: number): Promise<Array<[number, number, string]>> => {
    const sent: Array<[number, number, string]> = [];
    for (let i = 0; i < perPartition * PARTITIONS; i++, produced++)
      sent.push([produced % PARTITIONS, Math.floor(produced / PARTITIONS), `p${produced}`]);
    await producer.send({ topic: TOPIC, acks: -1, messages: sent.map(([partition, , value]) => ({ partition, value })) });
    return sent.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  };
  const committed = async (): Promise<Array<[number, string]>> => {
    const [t] = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] });
    return t!.partitions.map((p): [number, string] => [p.partition, p.offset]).sort((x, y) => x[0] - y[0]);
  };

  before(async () => {
    broker = await startBrokerProcess({ 'group.initial.rebalance.delay.ms': '0' });
    const kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS }] });
    producer = kafka.producer();
    await producer.connect();
  });
  after(async () => {
    await producer?.disconnect();
    await admin?.disconnect();
    await broker?.stop();
  });

  test('subscribe, read everything, commit; a second run resumes at the commits', async () => {
    const first = await produce(3);
    const run1 = await runMember(broker.bootstrap, first.length);
    assert.deepEqual(run1.filter((l) => l['type'] === 'assigned').at(-1)?.['partitions'], [0, 1, 2]);
    assert.deepEqual(records(run1), first);
    assert.deepEqual(run1.find((l) => l['type'] === 'committed')?.['offsets'], [
      [0, 3],
      [1, 3],
      [2, 3],
    ]);
    assert.deepEqual(await committed(), [
      [0, '3'],
      [1, '3'],
      [2, '3'],
    ]);
    assert.equal((await admin.describeGroups([GROUP])).groups[0]!.state, 'Empty', 'the member left on close');

    const second = await produce(2);
    const run2 = await runMember(broker.bootstrap, second.length);
    assert.deepEqual(records(run2), second, 'only the records after the commits');
    assert.deepEqual(await committed(), [
      [0, '5'],
      [1, '5'],
      [2, '5'],
    ]);
  });
});
