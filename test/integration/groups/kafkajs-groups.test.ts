// KafkaJS consumer groups against the broker process (classic protocol): three members split a
// six-partition topic and read every record exactly once between them; a member that leaves
// and a member that is killed are replaced by a rebalance; committed offsets survive a broker
// restart; the admin group operations.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssignerProtocol, Kafka, logLevel, type Admin, type Consumer } from 'kafkajs';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { waitFor, when } from '../../helpers/wait-for.js';
import { LineProcess, sleep, splitsPartitions, type Consumed } from './group-helpers.js';

const TOPIC = 'kjs-group';
const PARTITIONS = 6;
const SESSION_TIMEOUT_MS = 6000; // Kafka's group.min.session.timeout.ms
const GROUP = 'kjs-g1';

/** A KafkaJS consumer in the test process, with its latest assignment and what it read. */
interface Member {
  name: string;
  consumer: Consumer;
  assigned: number[] | undefined;
}

describe('KafkaJS consumer groups', () => {
  let dir: string;
  let broker: BrokerProcess;
  let kafka: Kafka;
  let admin: Admin;
  const consumed: Consumed[] = [];
  const members: Member[] = [];
  let produced = 0;

  const connect = async (): Promise<void> => {
    kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 5, initialRetryTime: 100 } });
    admin = kafka.admin();
    await admin.connect();
  };

  /** Values `v<n>` with n counting across the whole file, round-robin over the partitions. */
  const produce = async (perPartition: number): Promise<void> => {
    const producer = kafka.producer();
    await producer.connect();
    const messages = [];
    for (let i = 0; i < perPartition * PARTITIONS; i++, produced++)
      messages.push({ partition: produced % PARTITIONS, value: `v${produced}` });
    await producer.send({ topic: TOPIC, acks: -1, messages });
    await producer.disconnect();
  };

  const startMember = async (name: string, groupId = GROUP): Promise<Member> => {
    const consumer = kafka.consumer({ groupId, sessionTimeout: SESSION_TIMEOUT_MS, heartbeatInterval: 500, maxWaitTimeInMs: 500 });
    const member: Member = { name, consumer, assigned: undefined };
    consumer.on(consumer.events.GROUP_JOIN, (e) => (member.assigned = [...(e.payload.memberAssignment[TOPIC] ?? [])]));
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        consumed.push({ member: name, partition, offset: Number(message.offset), value: message.value!.toString() });
      },
    });
    members.push(member);
    return member;
  };

  const stopMember = async (member: Member): Promise<void> => {
    await member.consumer.disconnect();
    members.splice(members.indexOf(member), 1);
  };

  /** Waits until the given assignments (latest join of each member) split the topic. */
  const waitForSplit = (what: string, timeoutMs: number, assignments: () => Array<number[] | undefined>): Promise<number[][]> =>
    waitFor(what, timeoutMs, () => {
      const a = assignments();
      return a.every((x): x is number[] => x !== undefined) && splitsPartitions(a, PARTITIONS) ? a : undefined;
    });

  /** Every value produced so far was read exactly once, by a member owning its partition. */
  const assertExactlyOnce = async (): Promise<void> => {
    await waitFor(`${produced} records consumed`, 15_000, () => when(new Set(consumed.map((c) => c.value)).size >= produced));
    await sleep(1000); // fixed on purpose: room for a duplicate to show up, which nothing signals
    const values = consumed.map((c) => c.value).sort();
    const expected = Array.from({ length: produced }, (_, n) => `v${n}`).sort();
    assert.deepEqual(values, expected);
    for (const c of consumed) assert.equal(c.partition, Number(c.value.slice(1)) % PARTITIONS, `${c.value} read from its partition`);
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-groups-kafkajs-'));
    broker = await startBrokerProcess({ 'log.dirs': dir, 'group.initial.rebalance.delay.ms': '0' });
    await connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS }] });
  });
  after(async () => {
    for (const m of [...members]) await m.consumer.disconnect().catch(() => undefined);
    await admin?.disconnect();
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('three members get disjoint assignments covering all six partitions and read every record exactly once', async () => {
    for (const name of ['a', 'b', 'c']) await startMember(name);
    const split = await waitForSplit('three members to split the topic', 20_000, () => members.map((m) => m.assigned));
    assert.deepEqual(
      split.map((a) => a.length),
      [2, 2, 2],
    );
    await produce(5);
    await assertExactlyOnce();
    for (const c of consumed)
      assert.ok(members.find((m) => m.name === c.member)!.assigned!.includes(c.partition), `${c.member} owns ${c.partition}`);
  });

  test('a member that leaves: the other two own all partitions and nothing is lost or read twice', async () => {
    const leaving = members[2]!;
    await stopMember(leaving);
    await waitForSplit('two members to take over', 15_000, () => members.map((m) => m.assigned));
    await produce(3);
    await assertExactlyOnce();
  });

  test('a member killed without leaving: the others own all partitions once its session expires', async (t) => {
    const child = LineProcess.start('kafkajs-member', process.execPath, [
      fileURLToPath(new URL('./kafkajs-member-helper.js', import.meta.url)),
      broker.bootstrap,
      GROUP,
      TOPIC,
      String(SESSION_TIMEOUT_MS),
    ]);
    t.after(() => child.kill('SIGKILL'));
    const childAssigned = (): number[] | undefined => {
      const joins = child.json();
      const last = joins[joins.length - 1];
      return last === undefined ? undefined : (last['assigned'] as number[]);
    };
    await waitForSplit('the child to join the two members', 20_000, () => [...members.map((m) => m.assigned), childAssigned()]);
    const killedAt = Date.now();
    await child.kill('SIGKILL');
    await waitForSplit('two members to take over', 20_000, () => members.map((m) => m.assigned));
    // A dead member is noticed by its session timing out, not by its connection closing.
    const took = Date.now() - killedAt;
    assert.ok(took >= SESSION_TIMEOUT_MS - 1500, `rebalanced ${took} ms after the kill`);
    await produce(2);
    await assertExactlyOnce();
  });

  test('committed offsets survive a broker restart; a new member resumes exactly at them', async () => {
    for (const m of [...members]) await stopMember(m);
    const ends = (await admin.fetchTopicOffsets(TOPIC)).sort((x, y) => x.partition - y.partition).map((o) => o.high);
    const committed = async (): Promise<string[]> => {
      const [t] = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] });
      return t!.partitions.sort((x, y) => x.partition - y.partition).map((p) => p.offset);
    };
    assert.deepEqual(await committed(), ends, 'every record committed');

    await admin.disconnect();
    await broker.stop();
    broker = await startBrokerProcess({ 'log.dirs': dir, 'group.initial.rebalance.delay.ms': '0' });
    await connect();
    assert.deepEqual(await committed(), ends, 'commits after the restart');

    const before = consumed.length;
    await produce(2);
    const fresh = await startMember('after-restart');
    await waitFor('the new records', 20_000, () => when(consumed.length - before >= 2 * PARTITIONS));
    await sleep(1000); // fixed on purpose: room for a record before the commits to show up again, which nothing signals
    const got = consumed.slice(before);
    assert.ok(got.every((c) => c.member === fresh.name));
    // Exactly the records after the commits: per partition, offsets end, end+1.
    const offsets = got.map((c) => [c.partition, c.offset]).sort((x, y) => x[0]! - y[0]! || x[1]! - y[1]!);
    assert.deepEqual(
      offsets,
      ends.flatMap((end, p) => [
        [p, Number(end)],
        [p, Number(end) + 1],
      ]),
    );
  });

  test('admin: describeGroups, listGroups, fetchOffsets, setOffsets, resetOffsets, deleteGroups', async () => {
    const member = members[0]!;
    const { groups } = await admin.describeGroups([GROUP, 'kjs-no-such-group']);
    const [described, missing] = groups;
    assert.equal(described!.state, 'Stable');
    assert.equal(described!.protocolType, 'consumer');
    assert.equal(described!.protocol, 'RoundRobinAssigner');
    assert.equal(described!.members.length, 1);
    const assignment = AssignerProtocol.MemberAssignment.decode(described!.members[0]!.memberAssignment);
    assert.deepEqual(assignment?.assignment, { [TOPIC]: [0, 1, 2, 3, 4, 5] });
    assert.deepEqual(AssignerProtocol.MemberMetadata.decode(described!.members[0]!.memberMetadata)?.topics, [TOPIC]);
    assert.equal(missing!.state, 'Dead');
    assert.deepEqual(missing!.members, []);

    const listed = (await admin.listGroups()).groups.filter((g) => g.groupId.startsWith('kjs-'));
    assert.deepEqual(listed, [{ groupId: GROUP, protocolType: 'consumer' }]);

    await stopMember(member);
    assert.equal((await admin.describeGroups([GROUP])).groups[0]!.state, 'Empty');

    const committed = async (): Promise<Array<[number, string]>> => {
      const [t] = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] });
      return t!.partitions.map((p): [number, string] => [p.partition, p.offset]).sort((x, y) => x[0] - y[0]);
    };
    // KafkaJS commits the "earliest" sentinel -2 itself; a member then applies its reset policy.
    await admin.resetOffsets({ groupId: GROUP, topic: TOPIC, earliest: true });
    assert.deepEqual(
      await committed(),
      [0, 1, 2, 3, 4, 5].map((p) => [p, '-2']),
    );
    const ends = (await admin.fetchTopicOffsets(TOPIC)).sort((x, y) => x.partition - y.partition).map((o) => Number(o.high));
    await admin.setOffsets({ groupId: GROUP, topic: TOPIC, partitions: ends.map((_, p) => ({ partition: p, offset: String(p) })) });
    assert.deepEqual(
      await committed(),
      ends.map((_, p) => [p, String(p)]),
    );

    // A member resumes at the set offsets: partition p from offset p to its end.
    const before = consumed.length;
    const expected = ends.flatMap((end, p) => Array.from({ length: end - p }, (_, i) => [p, p + i]));
    await startMember('after-set');
    await waitFor('the records after the set offsets', 20_000, () => when(consumed.length - before >= expected.length));
    await stopMember(members[0]!);
    const offsets = consumed
      .slice(before)
      .map((c) => [c.partition, c.offset])
      .sort((x, y) => x[0]! - y[0]! || x[1]! - y[1]!);
    assert.deepEqual(offsets, expected);

    const results = await admin.deleteGroups([GROUP]);
    assert.deepEqual(
      results.map((r) => [r.groupId, r.errorCode]),
      [[GROUP, 0]],
    );
    assert.deepEqual(
      (await admin.listGroups()).groups.filter((g) => g.groupId.startsWith('kjs-')),
      [],
    );
    const [t] = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] });
    assert.ok(
      t!.partitions.every((p) => p.offset === '-1'),
      'no offsets after the delete',
    );
  });
});
