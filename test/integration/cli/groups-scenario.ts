/**
 * `sluice groups` end to end against one broker, whichever it is (see cli-scenario.ts for the
 * pattern): a KafkaJS member of a classic group reads a topic and commits part of it; the tool
 * lists and describes the group while the member is active and after it left, resets its
 * offsets (dry run, then executed), deletes one partition's offset and finally the group. The
 * refusals while the member is active are the broker's own (or, for --reset-offsets, Kafka's
 * tool's), and a raw simple-consumer commit shows the broker error behind them.
 * Tests run in order and build on each other.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { KafkaCluster, KafkaGroupAdminClient, parseBootstrapServers } from '@sluice/client/index.js';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { failsWith, ok, runCli, type CliResult } from '../../helpers/run-cli.js';

/** Records per partition, and the offsets the member commits: lag 2 and 3. */
const PRODUCED = [6, 4];
const COMMITTED = [4, 1];
const CLIENT_ID = 'groups-cli';

/** A table's data rows, split on the padding between columns. */
function rows(out: string, header: string): string[][] {
  const lines = out.trimEnd().split('\n');
  assert.match(lines[0]!, new RegExp(`^${header.split(' ').join(' +')}$`), out);
  return lines.slice(1).map((l) => l.split(/ +/));
}

async function waitFor(what: string, done: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function groupsScenario(bootstrap: () => string): void {
  const suffix = randomBytes(4).toString('hex');
  const topic = `grp-${suffix}`;
  const group = `grp-g-${suffix}`;
  const sluice = (...args: string[]): Promise<CliResult> => runCli([args[0]!, '--bootstrap-server', bootstrap(), ...args.slice(1)]);
  const groups = (...args: string[]): Promise<CliResult> => sluice('groups', ...args);
  const describeOffsets = async (): Promise<string[][]> =>
    rows(
      ok(await groups('--describe', '--group', group), 'describe'),
      'GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID',
    );
  const plan = async (...args: string[]): Promise<string[][]> =>
    rows(ok(await groups('--reset-offsets', '--group', group, ...args), `reset ${args.join(' ')}`), 'GROUP TOPIC PARTITION NEW-OFFSET');
  let consumer: Consumer | undefined;

  test('groups: a KafkaJS member reads the topic and commits part of it', async () => {
    ok(await sluice('topics', '--create', '--topic', topic, '--partitions', '2'), 'create');
    const kafka = new Kafka({ clientId: CLIENT_ID, brokers: [bootstrap()], logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic,
      acks: -1,
      messages: PRODUCED.flatMap((n, partition) => Array.from({ length: n }, (_, i) => ({ partition, value: `p${partition}-${i}` }))),
    });
    await producer.disconnect();
    consumer = kafka.consumer({ groupId: group, sessionTimeout: 10_000, heartbeatInterval: 500, maxWaitTimeInMs: 200 });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    let read = 0;
    await consumer.run({ autoCommit: false, eachMessage: async () => void read++ });
    await waitFor('the member to read every record', () => read === PRODUCED[0]! + PRODUCED[1]!);
    await consumer.commitOffsets(COMMITTED.map((offset, partition) => ({ topic, partition, offset: String(offset) })));
  });

  test('groups --list names the group; --state and --type show Stable and Classic', async () => {
    assert.ok(
      ok(await groups('--list'), 'list')
        .split('\n')
        .includes(group),
    );
    const listed = rows(ok(await groups('--list', '--type', '--state'), 'list --state'), 'GROUP TYPE STATE');
    assert.deepEqual(
      listed.find((r) => r[0] === group),
      [group, 'Classic', 'Stable'],
    );
  });

  test('groups --describe shows the member’s partitions with exact offsets and lag', async () => {
    const described = await describeOffsets();
    assert.equal(described.length, 2);
    described.forEach((r, partition) => {
      assert.deepEqual(r.slice(0, 6), [
        group,
        topic,
        String(partition),
        String(COMMITTED[partition]),
        String(PRODUCED[partition]),
        String(PRODUCED[partition]! - COMMITTED[partition]!),
      ]);
      assert.match(r[6]!, new RegExp(`^${CLIENT_ID}-`));
      assert.equal(r[8], CLIENT_ID);
    });
    const members = rows(
      ok(await groups('--describe', '--group', group, '--members'), 'members'),
      'GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS',
    );
    assert.deepEqual(
      [members.length, members[0]![0], members[0]![1], members[0]![3], members[0]![4]],
      [1, group, described[0]![6], CLIENT_ID, '2'],
    );
    const state = ok(await groups('--describe', '--group', group, '--state'), 'state')
      .trimEnd()
      .split('\n');
    assert.match(state[0]!, /^GROUP +COORDINATOR \(ID\) +ASSIGNMENT-STRATEGY +STATE +#MEMBERS$/);
    assert.match(state[1]!, new RegExp(`^${group} +\\S+:\\d+ +\\(\\d+\\) +RoundRobinAssigner +Stable +1$`));
  });

  test('groups: with an active member, reset, delete and delete-offsets are refused', async () => {
    failsWith(
      await groups('--reset-offsets', '--group', group, '--all-topics', '--to-earliest', '--execute'),
      `NON_EMPTY_GROUP: Assignments can only be reset if the group '${group}' is inactive, but the current state is Stable`,
    );
    // What the tool's own check spares the user: the coordinator refuses a simple consumer's commit.
    const cluster = new KafkaCluster({ bootstrap: parseBootstrapServers(bootstrap()) });
    try {
      await assert.rejects(
        new KafkaGroupAdminClient(cluster).commitOffsets(group, [{ topic, partition: 0, offset: 0n }]),
        (err: unknown) => err instanceof KafkaError && err.code === ErrorCode.UNKNOWN_MEMBER_ID,
      );
    } finally {
      cluster.close();
    }
    failsWith(await groups('--delete', '--group', group), 'NON_EMPTY_GROUP');
    const deleting = await groups('--delete-offsets', '--group', group, '--topic', topic);
    failsWith(deleting, 'GROUP_SUBSCRIBED_TO_TOPIC');
    assert.deepEqual(
      rows(deleting.stdout.toString(), 'TOPIC PARTITION STATUS').map((r) => r.slice(0, 3)),
      [
        [topic, '0', 'Error:'],
        [topic, '1', 'Error:'],
      ],
    );
  });

  test('groups --describe after the member left shows the offsets without consumers', async () => {
    await consumer?.disconnect();
    const described = await describeOffsets();
    assert.deepEqual(
      described,
      COMMITTED.map((c, p) => [group, topic, String(p), String(c), String(PRODUCED[p]), String(PRODUCED[p]! - c), '-', '-', '-']),
    );
    const r = await groups('--describe', '--group', group);
    assert.match(r.stderr, new RegExp(`Consumer group '${group}' has no active members`));
    assert.deepEqual(
      rows(ok(await groups('--list', '--state'), 'list').toString(), 'GROUP STATE').find((x) => x[0] === group),
      [group, 'Empty'],
    );
  });

  test('groups --reset-offsets --to-earliest: the dry run changes nothing, --execute commits', async () => {
    const expected = [
      [group, topic, '0', '0'],
      [group, topic, '1', '0'],
    ];
    assert.deepEqual(await plan('--all-topics', '--to-earliest', '--dry-run'), expected);
    assert.deepEqual(
      (await describeOffsets()).map((r) => r[3]),
      ['4', '1'],
    );
    assert.deepEqual(await plan('--all-topics', '--to-earliest', '--execute'), expected);
    assert.deepEqual(
      await describeOffsets(),
      PRODUCED.map((n, p) => [group, topic, String(p), '0', String(n), String(n), '-', '-', '-']),
    );
  });

  test('groups --reset-offsets: --to-offset and --shift-by are clamped to the log; --to-datetime, --to-latest', async () => {
    assert.deepEqual(await plan('--topic', `${topic}:1`, '--to-offset', '100'), [[group, topic, '1', '4']]);
    assert.deepEqual(await plan('--topic', topic, '--shift-by', '-3'), [
      [group, topic, '0', '0'],
      [group, topic, '1', '0'],
    ]);
    assert.deepEqual(await plan('--topic', `${topic}:0`, '--to-datetime', '2000-01-01T00:00:00.000Z'), [[group, topic, '0', '0']]);
    assert.deepEqual(await plan('--topic', `${topic}:0`, '--to-offset', '5', '--execute'), [[group, topic, '0', '5']]);
    assert.deepEqual(await plan('--all-topics', '--shift-by', '-2'), [
      [group, topic, '0', '3'],
      [group, topic, '1', '0'],
    ]);
    assert.deepEqual(await plan('--all-topics', '--to-datetime', '2999-01-01T00:00:00.000+01:00'), [
      [group, topic, '0', '6'],
      [group, topic, '1', '4'],
    ]);
    ok(await groups('--reset-offsets', '--group', group, '--all-topics', '--to-latest', '--execute'), 'to-latest');
    assert.deepEqual(
      (await describeOffsets()).map((r) => r.slice(3, 6)),
      [
        ['6', '6', '0'],
        ['4', '4', '0'],
      ],
    );
  });

  test('groups --delete-offsets removes one partition’s offset', async () => {
    const out = ok(await groups('--delete-offsets', '--group', group, '--topic', `${topic}:1`), 'delete-offsets');
    assert.match(out, new RegExp(`^Request succeeded for deleting offsets from group ${group}\\.\\n`));
    assert.deepEqual(rows(out.slice(out.indexOf('\n') + 1), 'TOPIC PARTITION STATUS'), [[topic, '1', 'Successful']]);
    assert.deepEqual(
      (await describeOffsets()).map((r) => r.slice(1, 4)),
      [[topic, '0', '6']],
    );
  });

  test('groups --delete removes the group; describing it then fails with GROUP_ID_NOT_FOUND', async () => {
    assert.equal(
      ok(await groups('--delete', '--group', group), 'delete'),
      `Deletion of requested consumer groups ('${group}') was successful.\n`,
    );
    assert.ok(
      !ok(await groups('--list'), 'list')
        .split('\n')
        .includes(group),
    );
    failsWith(await groups('--describe', '--group', group), `GROUP_ID_NOT_FOUND: Consumer group '${group}' does not exist`);
    ok(await sluice('topics', '--delete', '--topic', topic), 'delete topic');
  });

  test('groups: usage errors exit 2 before connecting', async () => {
    failsWith(await groups('--reset-offsets', '--group', group, '--all-topics'), 'exactly one of --to-earliest', 2);
    failsWith(await groups('--reset-offsets', '--group', group, '--to-datetime', '2020-01-01 00:00'), '--to-datetime takes', 2);
    failsWith(await groups('--describe'), 'missing required option --group', 2);
    failsWith(await groups('--list', '--delete'), 'give exactly one of', 2);
  });
}
