// kcat's balanced consumer (`-G group topic`, librdkafka 2.0.2) against the broker process: two
// kcat processes in one group split the partitions, read every record exactly once between
// them and commit what they read, which the OffsetFetch of KafkaJS's admin then shows.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { LineProcess, splitsPartitions, waitFor } from './group-helpers.js';
import { kcatSkip } from '../../helpers/requirements.js';

const TOPIC = 'kcat-group';
const GROUP = 'kcat-g';
const PARTITIONS = 4;
const PER_PARTITION = 5;

/** kcat prints `% Group <g> rebalanced (memberid <id>): assigned: <t> [0], <t> [2]` on stderr. */
function lastAssignment(member: LineProcess): number[] | undefined {
  const matches = [...member.stderr.matchAll(/rebalanced \(memberid [^)]*\): (assigned|revoked): ([^\n]*)/g)];
  const last = matches[matches.length - 1];
  if (last === undefined || last[1] !== 'assigned') return undefined;
  return [...last[2]!.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])).sort((a, b) => a - b);
}

describe('kcat -G (librdkafka balanced consumer)', { skip: kcatSkip() }, () => {
  let broker: BrokerProcess;
  let admin: Admin;
  const members: LineProcess[] = [];

  before(async () => {
    broker = await startBrokerProcess({ 'group.initial.rebalance.delay.ms': '0' });
    admin = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS }] });
  });
  after(async () => {
    for (const m of members) await m.kill('SIGKILL');
    await admin?.disconnect();
    await broker?.stop();
  });

  test('two members split the partitions, read everything once and commit it', async () => {
    for (const name of ['kcat-1', 'kcat-2']) {
      members.push(
        LineProcess.start(name, 'kcat', [
          '-b',
          broker.bootstrap,
          '-G',
          GROUP,
          TOPIC,
          '-o',
          'beginning', // auto.offset.reset for partitions without a commit
          '-X',
          'session.timeout.ms=6000',
          '-X',
          'auto.commit.interval.ms=300',
          '-f',
          '%p\t%o\t%s\n',
        ]),
      );
    }
    const split = await waitFor('both kcat members to be assigned', 30_000, () => {
      for (const m of members) m.assertStarted();
      const a = members.map(lastAssignment);
      return a.every((x): x is number[] => x !== undefined) && splitsPartitions(a, PARTITIONS) ? a : undefined;
    });

    const producer = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    const values: string[] = [];
    for (let n = 0; n < PARTITIONS * PER_PARTITION; n++) values.push(`r${n}`);
    await producer.send({ topic: TOPIC, acks: -1, messages: values.map((value, n) => ({ partition: n % PARTITIONS, value })) });
    await producer.disconnect();

    // The members keep running (and committing every 300 ms) until the commits reach the end.
    const ends = [...Array(PARTITIONS).keys()].map((p) => [p, String(PER_PARTITION)]);
    const committed = async (): Promise<Array<[number, string]>> => {
      const [t] = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] });
      return t!.partitions.map((p): [number, string] => [p.partition, p.offset]).sort((x, y) => x[0] - y[0]);
    };
    await waitFor('commits at the end of every partition', 20_000, async () =>
      JSON.stringify(await committed()) === JSON.stringify(ends) ? true : undefined,
    );
    for (const m of members) await m.kill('SIGTERM');
    assert.deepEqual(await committed(), ends, 'commits after the members closed');

    // Each member read exactly the records of its own partitions, in offset order.
    const byPartitionThenOffset = (x: [number, number, string], y: [number, number, string]): number => x[0] - y[0] || x[1] - y[1];
    const produced = values.map((v, n): [number, number, string] => [n % PARTITIONS, Math.floor(n / PARTITIONS), v]);
    for (const [i, m] of members.entries()) {
      const read = m.lines.map((l): [number, number, string] => {
        const [p, o, v] = l.split('\t');
        return [Number(p), Number(o), v!];
      });
      const mine = produced.filter(([p]) => split[i]!.includes(p)).sort(byPartitionThenOffset);
      assert.deepEqual(read.sort(byPartitionThenOffset), mine, `${m.name} (partitions ${split[i]!.join(',')})`);
    }
    assert.equal((await admin.describeGroups([GROUP])).groups[0]!.state, 'Empty', 'both members left');
  });
});
