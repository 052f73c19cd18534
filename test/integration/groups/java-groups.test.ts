// The Java client (kafka-clients 4.4.0, group.protocol=classic) in consumer groups against the
// broker process, through GroupClients.java: subscribe + commitSync with each assignor (range,
// roundrobin, sticky, cooperative-sticky) as a second member joins; with cooperative-sticky the
// first member gives up only the partitions that move. Static membership: a member restarted
// with the same group.instance.id within its session gets its partitions back without a
// rebalance. Admin listConsumerGroups, describeConsumerGroups, listConsumerGroupOffsets, and
// alterConsumerGroupOffsets for topics and partitions that do not exist.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import type { JsonLine } from '../../helpers/interop.js';
import { splitsPartitions, startJava } from './group-helpers.js';
import { javaSkip } from '../../helpers/requirements.js';

const PARTITIONS = 4; // GroupClients.PARTITIONS
const ASSIGNORS = ['range', 'roundrobin', 'sticky', 'cooperative-sticky'] as const;

interface Event {
  type: string;
  member: string;
  partitions: number[];
}

/** Runs a GroupClients scenario to completion and returns its JSON lines. */
async function runScenario(bootstrap: string, topic: string, scenario: string, ...args: string[]): Promise<JsonLine[]> {
  const p = startJava(`GroupClients ${scenario} ${args.join(' ')}`, [scenario, bootstrap, topic, ...args]);
  await p.succeeded(120_000);
  return p.json();
}

/** The lines from the `phase` line named `from` (exclusive) up to the first line of type `until`. */
function between(lines: readonly JsonLine[], from: string | null, until: string): JsonLine[] {
  const start = from === null ? 0 : lines.findIndex((l) => l['type'] === 'phase' && l['name'] === from) + 1;
  assert.ok(start > 0 || from === null, `phase ${from} in the output`);
  const end = lines.findIndex((l, i) => i >= start && l['type'] === until);
  return lines.slice(start, end < 0 ? lines.length : end);
}

const callbacks = (lines: readonly JsonLine[], member: string): Event[] =>
  lines
    .filter((l) => ['assigned', 'revoked', 'lost'].includes(l['type'] as string) && l['member'] === member)
    .map((l) => ({ type: l['type'] as string, member, partitions: l['partitions'] as number[] }));

/**
 * Every value `<tag>-<n>` for n < count was read exactly once, from partition n % PARTITIONS at
 * offset firstOffset + n / PARTITIONS, by the member owning that partition.
 */
function assertReadOnce(
  lines: readonly JsonLine[],
  tag: string,
  count: number,
  firstOffset: number,
  owner: (partition: number) => string,
): void {
  const read = lines.filter((l) => l['type'] === 'record' && (l['value'] as string).startsWith(`${tag}-`));
  assert.deepEqual(read.map((l) => l['value']).sort(), Array.from({ length: count }, (_, n) => `${tag}-${n}`).sort(), `records of ${tag}`);
  for (const l of read) {
    const n = Number((l['value'] as string).slice(tag.length + 1));
    assert.equal(l['partition'], n % PARTITIONS);
    assert.equal(l['offset'], firstOffset + Math.floor(n / PARTITIONS));
    assert.equal(l['member'], owner(n % PARTITIONS), `${l['value']} read by the owner of partition ${n % PARTITIONS}`);
  }
}

function one(lines: readonly JsonLine[], type: string): JsonLine {
  const found = lines.filter((l) => l['type'] === type);
  assert.equal(found.length, 1, `one ${type} line`);
  return found[0]!;
}

type DescribedMember = { clientId: string; instanceId: string | null; partitions: number[] };

describe('Java client in classic consumer groups', { skip: javaSkip() }, () => {
  let broker: BrokerProcess;
  const assignorRuns = new Map<string, Promise<JsonLine[]>>();

  before(async () => {
    broker = await startBrokerProcess({ 'group.initial.rebalance.delay.ms': '0' });
    const admin = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    await admin.createTopics({
      topics: [...ASSIGNORS.map((a) => `java-${a}`), 'java-static', 'java-alter'].map((topic) => ({ topic, numPartitions: PARTITIONS })),
    });
    await admin.disconnect();
    // The four assignor runs use separate groups and topics: run them side by side.
    for (const a of ASSIGNORS) {
      const run = runScenario(broker.bootstrap, `java-${a}`, 'assignor', a);
      run.catch(() => undefined); // awaited by its test; no unhandled rejection meanwhile
      assignorRuns.set(a, run);
    }
  });
  after(async () => {
    await Promise.allSettled(assignorRuns.values());
    await broker?.stop();
  });

  for (const assignor of ASSIGNORS) {
    test(`${assignor}: subscribe, commitSync, a second member joins and the two split the partitions`, async () => {
      const lines = await assignorRuns.get(assignor)!;
      const group = `java-${assignor}`;
      const [first, second] = [`${group}-1`, `${group}-2`];
      const described = one(lines, 'described');
      assert.equal(described['state'], 'Stable');
      assert.equal(described['assignor'], assignor);
      assert.equal(described['groupType'], 'Classic');
      assert.equal(described['simple'], false);
      const members = described['members'] as DescribedMember[];
      assert.deepEqual(
        members.map((m) => m.clientId),
        [first, second],
      );
      assert.ok(
        splitsPartitions(
          members.map((m) => m.partitions),
          PARTITIONS,
        ),
        JSON.stringify(members),
      );
      const ownerOf = (p: number): string => members.find((m) => m.partitions.includes(p))!.clientId;

      // The first member alone read the first records; after the split each record was read by its owner.
      assertReadOnce(between(lines, null, 'phase'), `${group}-a`, 3 * PARTITIONS, 0, () => first);
      assertReadOnce(lines, `${group}-b`, 2 * PARTITIONS, 3, ownerOf);
      assert.deepEqual(
        one(lines, 'offsets')['offsets'],
        Object.fromEntries([...Array(PARTITIONS).keys()].map((p) => [`${group}-${p}`, 5])),
      );
      const listed = one(lines, 'listed');
      assert.deepEqual([listed['state'], listed['simple'], listed['groupType']], ['Stable', false, 'Classic']);

      const firstKept = members[0]!.partitions;
      const revoked = callbacks(between(lines, 'second-joins', 'listed'), first).filter((e) => e.type !== 'assigned');
      if (assignor === 'cooperative-sticky') {
        // Incremental: only the partitions that move to the second member are revoked, once.
        assert.deepEqual(revoked, [{ type: 'revoked', member: first, partitions: members[1]!.partitions }]);
        assert.ok(firstKept.length > 0);
      } else {
        // Eager: everything is revoked before the rejoin.
        assert.deepEqual(revoked, [{ type: 'revoked', member: first, partitions: [0, 1, 2, 3] }]);
      }
    });
  }

  test('static membership: a member restarted with its group.instance.id within the session keeps its partitions, no rebalance', async () => {
    const lines = await runScenario(broker.bootstrap, 'java-static', 'static');
    const [before, afterRestart] = lines.filter((l) => l['type'] === 'described') as Array<{ [k: string]: unknown }>;
    const membersBefore = before!['members'] as DescribedMember[];
    assert.deepEqual(
      membersBefore.map((m) => [m.clientId, m.instanceId]),
      [
        ['static-a', 'instance-a'],
        ['static-b', 'instance-b'],
      ],
    );
    assert.ok(
      splitsPartitions(
        membersBefore.map((m) => m.partitions),
        PARTITIONS,
      ),
    );
    const [aOwned, bOwned] = membersBefore.map((m) => m.partitions);

    // From the restart on: b sees no callback at all, the new consumer gets a's partitions.
    const restart = between(lines, 'restart', 'phase');
    assert.deepEqual(callbacks(restart, 'static-b'), []);
    assert.deepEqual(callbacks(restart, 'static-a-again'), [{ type: 'assigned', member: 'static-a-again', partitions: aOwned }]);
    assert.equal(afterRestart!['state'], 'Stable');
    const membersAfter = afterRestart!['members'] as DescribedMember[];
    // The replaced member keeps its old client id (Kafka's replaceStaticMember does the same).
    assert.deepEqual(
      membersAfter.map((m) => [m.clientId, m.instanceId, m.partitions]),
      [
        ['static-a', 'instance-a', aOwned],
        ['static-b', 'instance-b', bOwned],
      ],
    );

    assertReadOnce(lines, 'java-static', 2 * PARTITIONS, 0, (p) => (aOwned!.includes(p) ? 'static-a-again' : 'static-b'));
    const offsets = lines.filter((l) => l['type'] === 'offsets').map((l) => l['offsets']);
    assert.deepEqual(offsets, [{}, Object.fromEntries([...Array(PARTITIONS).keys()].map((p) => [`java-static-${p}`, 2]))]);

    // Static members send no LeaveGroup on close: both stay members until their sessions expire.
    const admin = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const [group] = (await admin.describeGroups(['java-static'])).groups;
      assert.deepEqual([group!.state, group!.members.length], ['Stable', 2]);
      await assert.rejects(
        admin.deleteGroups(['java-static']),
        (e: { groups?: Array<{ error?: { type?: string } }> }) => e.groups?.[0]?.error?.type === 'NON_EMPTY_GROUP',
      );
    } finally {
      await admin.disconnect();
    }
  });

  test('Admin alterConsumerGroupOffsets: a topic or partition that does not exist fails alone, UnknownTopicOrPartitionException as on Kafka 4.4', async () => {
    const lines = await runScenario(broker.bootstrap, 'java-alter', 'alter-offsets');
    assert.deepEqual(one(lines, 'altered')['outcomes'], {
      'java-alter-0': 'ok',
      [`java-alter-${PARTITIONS}`]: 'UnknownTopicOrPartitionException',
      'java-alter-missing-0': 'UnknownTopicOrPartitionException',
    });
    assert.deepEqual(one(lines, 'offsets')['offsets'], { 'java-alter-0': 7 });
  });
});
