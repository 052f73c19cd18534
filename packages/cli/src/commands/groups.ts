/**
 * `sluice groups`, after Kafka's kafka-consumer-groups.sh: list consumer groups, describe one
 * (offsets and lag per partition, members, or state), reset its offsets (a dry run unless
 * `--execute`), delete it, or delete some of its offsets — on any Kafka-compatible broker.
 * Share groups (KIP-932) are listed too, and the same actions work on them as Kafka's
 * kafka-share-groups.sh does them: start offsets per share-partition, members with their
 * assignments, offsets reset through AlterShareGroupOffsets and deleted per topic.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ERRORS, ErrorCode, errorName } from '@sluice/protocol/errors.js';
import {
  byTopic,
  comparePartitions,
  KafkaConsumerClient,
  KafkaGroupAdminClient,
  listPartitionOffsets,
  planOffsetReset,
  type GroupDescription,
  type KafkaCluster,
  type PartitionOffset,
  type ResetSpec,
  type ShareGroupDescription,
  type TopicPartitions,
} from '@sluice/client/index.js';
import {
  oneAction,
  parseOptions,
  required,
  UsageError,
  withCluster,
  writeOut,
  type Command,
  COMMAND_CONFIG_OPTION,
} from './command-support.js';
import { formatTable } from './table.js';
import { topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';

const USAGE = `usage: sluice groups --bootstrap-server HOST:PORT [--command-config FILE]
         --list [--state] [--type]
       | --describe --group G [--members | --state]
       | --reset-offsets --group G (--topic T[:P,...]... | --all-topics)
             (--to-earliest | --to-latest | --to-offset N | --shift-by N | --to-datetime YYYY-MM-DDTHH:mm:SS.sss[Z|+hh:mm])
             [--dry-run | --execute]
       | --delete --group G
       | --delete-offsets --group G --topic T[:P,...]...
`;

const OPTIONS = {
  'bootstrap-server': { type: 'string' },
  ...COMMAND_CONFIG_OPTION,
  list: { type: 'boolean' },
  describe: { type: 'boolean' },
  'reset-offsets': { type: 'boolean' },
  delete: { type: 'boolean' },
  'delete-offsets': { type: 'boolean' },
  group: { type: 'string' },
  topic: { type: 'string', multiple: true },
  'all-topics': { type: 'boolean' },
  'to-earliest': { type: 'boolean' },
  'to-latest': { type: 'boolean' },
  'to-offset': { type: 'string' },
  'shift-by': { type: 'string' },
  'to-datetime': { type: 'string' },
  'dry-run': { type: 'boolean' },
  execute: { type: 'boolean' },
  members: { type: 'boolean' },
  state: { type: 'boolean' },
  type: { type: 'boolean' },
} as const;

type Options = ReturnType<typeof parseOptions<typeof OPTIONS>>;

/** Kafka's placeholder for a column without a value. */
const MISSING = '-';
const REBALANCING = new Set(['PreparingRebalance', 'CompletingRebalance', 'Assigning', 'Reconciling']);
/** Kafka resets offsets only of groups without members. */
const INACTIVE = new Set(['Empty', 'Dead']);

async function run(args: string[]): Promise<void> {
  const o = parseOptions(args, OPTIONS);
  const action = oneAction({
    list: o.list,
    describe: o.describe,
    'reset-offsets': o['reset-offsets'],
    delete: o.delete,
    'delete-offsets': o['delete-offsets'],
  });
  // Everything is checked before connecting, so a usage error never waits on the network.
  const spec = action === 'reset-offsets' ? parseResetSpec(o) : undefined;
  const topics = (o.topic ?? []).map(parseTopicPartitions);
  if (o['dry-run'] === true && o.execute === true) throw new UsageError('give at most one of --dry-run, --execute');
  if (o.members === true && o.state === true && action === 'describe') throw new UsageError('give at most one of --members, --state');
  await withCluster(o, async (cluster) => {
    const groups = new KafkaGroupAdminClient(cluster);
    switch (action) {
      case 'list':
        return list(groups, o.state === true, o.type === true);
      case 'describe':
        return describe(
          cluster,
          groups,
          required(o.group, 'group'),
          o.members === true ? 'members' : o.state === true ? 'state' : 'offsets',
        );
      case 'reset-offsets':
        return resetOffsets(cluster, groups, required(o.group, 'group'), topics, o['all-topics'] === true, spec!, o.execute === true);
      case 'delete': {
        const group = required(o.group, 'group');
        const kind = (await shareGroupOf(groups, group)) === null ? 'consumer' : 'share';
        await groups.deleteGroup(group);
        return writeOut(`Deletion of requested ${kind} groups ('${group}') was successful.\n`);
      }
      case 'delete-offsets':
        return deleteOffsets(cluster, groups, required(o.group, 'group'), topics);
    }
  });
}

/** The share group of that id, or null when the id is another type's or nobody's. */
async function shareGroupOf(groups: KafkaGroupAdminClient, groupId: string): Promise<ShareGroupDescription | null> {
  if ((await groups.describeGroup(groupId)).state !== 'Dead') return null;
  const share = await groups.describeShareGroup(groupId);
  return share.state === 'Dead' ? null : share;
}

async function list(groups: KafkaGroupAdminClient, withState: boolean, withType: boolean): Promise<void> {
  const listed = [...(await groups.listConsumerGroups()), ...(await groups.listShareGroups())].sort((a, b) =>
    a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0,
  );
  if (!withState && !withType) {
    for (const g of listed) await writeOut(`${g.groupId}\n`);
    return;
  }
  const header = ['GROUP', ...(withType ? ['TYPE'] : []), ...(withState ? ['STATE'] : [])];
  const rows = listed.map((g) => [
    g.groupId,
    ...(withType ? [capitalize(g.type || 'unknown')] : []),
    ...(withState ? [g.state || 'Unknown'] : []),
  ]);
  const groupWidth = Math.max(15, ...listed.map((g) => g.groupId.length)) + 10;
  await writeOut(formatTable(header, rows, [groupWidth, 20, 20]));
}

async function describe(
  cluster: KafkaCluster,
  groups: KafkaGroupAdminClient,
  groupId: string,
  view: 'offsets' | 'members' | 'state',
): Promise<void> {
  const group = await groups.describeGroup(groupId);
  const share = group.state === 'Dead' ? await groups.describeShareGroup(groupId) : null;
  if (share !== null && share.state !== 'Dead') return describeShareGroup(groups, share, view);
  if (group.state === 'Dead') throw new KafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Consumer group '${groupId}' does not exist.`);
  // Kafka's tool says this on stderr, so stdout stays a table.
  if (group.state === 'Empty') process.stderr.write(`Consumer group '${groupId}' has no active members.\n`);
  if (REBALANCING.has(group.state)) process.stderr.write(`Warning: Consumer group '${groupId}' is rebalancing.\n`);
  switch (view) {
    case 'offsets':
      return writeOut(await offsetsTable(cluster, group, await groups.fetchOffsets(groupId)));
    case 'members':
      return writeOut(membersTable(group));
    case 'state': {
      const c = group.coordinator;
      const row = [groupId, `${c.host}:${c.port}  (${c.nodeId})`, group.protocol || MISSING, group.state, String(group.members.length)];
      return writeOut(formatTable(['GROUP', 'COORDINATOR (ID)', 'ASSIGNMENT-STRATEGY', 'STATE', '#MEMBERS'], [row], [15, 25, 20, 20]));
    }
  }
}

/** Kafka's layout: assigned partitions by member (most partitions first), then partitions with offsets but no member. */
async function offsetsTable(cluster: KafkaCluster, group: GroupDescription, committed: readonly PartitionOffset[]): Promise<string> {
  const rows: { topic: string; partition: number; member: readonly [string, string, string] }[] = [];
  const assigned = new Set<string>();
  const members = [...group.members].sort((a, b) => partitionCount(b.assignment) - partitionCount(a.assignment));
  for (const m of members) {
    const mine = m.assignment.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition })));
    for (const p of mine.sort(comparePartitions)) {
      assigned.add(topicPartitionKey(p.topic, p.partition));
      rows.push({ ...p, member: [m.memberId, m.clientHost, m.clientId] });
    }
  }
  for (const c of committed)
    if (!assigned.has(topicPartitionKey(c.topic, c.partition)))
      rows.push({ topic: c.topic, partition: c.partition, member: [MISSING, MISSING, MISSING] });
  const ends = await listPartitionOffsets(cluster, byTopic(rows), 'latest');
  const offsets = new Map(committed.map((c) => [topicPartitionKey(c.topic, c.partition), c.offset]));
  const cells = rows.map((r) => {
    const current = offsets.get(topicPartitionKey(r.topic, r.partition));
    const end = ends.get(r.topic)?.get(r.partition);
    const lag = current === undefined || end === undefined ? MISSING : String(end - current);
    return [group.groupId, r.topic, String(r.partition), current?.toString() ?? MISSING, end?.toString() ?? MISSING, lag, ...r.member];
  });
  return formatTable(
    ['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'CONSUMER-ID', 'HOST', 'CLIENT-ID'],
    cells,
    [15, 15, 10, 15, 15, 15, 15, 15],
  );
}

function membersTable(group: GroupDescription): string {
  const withInstanceId = group.members.some((m) => m.groupInstanceId !== null);
  const header = ['GROUP', 'CONSUMER-ID', ...(withInstanceId ? ['GROUP-INSTANCE-ID'] : []), 'HOST', 'CLIENT-ID', '#PARTITIONS'];
  const rows = group.members.map((m) => [
    group.groupId,
    m.memberId,
    ...(withInstanceId ? [m.groupInstanceId ?? ''] : []),
    m.clientHost,
    m.clientId,
    String(partitionCount(m.assignment)),
  ]);
  return formatTable(header, rows, withInstanceId ? [15, 15, 17, 15, 15] : [15, 15, 15, 15]);
}

/** kafka-share-groups.sh's views: start offsets per share-partition, members with their assignments, or the state. */
async function describeShareGroup(
  groups: KafkaGroupAdminClient,
  share: ShareGroupDescription,
  view: 'offsets' | 'members' | 'state',
): Promise<void> {
  const { groupId } = share;
  if (share.state === 'Empty') process.stderr.write(`Share group '${groupId}' has no active members.\n`);
  switch (view) {
    case 'offsets': {
      const rows = (await groups.describeShareGroupOffsets(groupId)).map((o) => [
        groupId,
        o.topic,
        String(o.partition),
        o.leaderEpoch < 0 ? MISSING : String(o.leaderEpoch),
        o.startOffset < 0n ? MISSING : String(o.startOffset),
        o.lag < 0n ? MISSING : String(o.lag),
      ]);
      return writeOut(formatTable(['GROUP', 'TOPIC', 'PARTITION', 'LEADER-EPOCH', 'START-OFFSET', 'LAG'], rows, [15, 15, 10, 13, 13]));
    }
    case 'members': {
      const rows = share.members.map((m) => [
        groupId,
        m.memberId,
        m.clientHost,
        m.clientId,
        String(partitionCount(m.assignment)),
        m.assignment.map((t) => `${t.topic}:${t.partitions.join(',')}`).join(';') || MISSING,
      ]);
      return writeOut(formatTable(['GROUP', 'CONSUMER-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS', 'ASSIGNMENT'], rows, [15, 24, 15, 15, 12]));
    }
    case 'state': {
      const c = share.coordinator;
      const row = [
        groupId,
        `${c.host}:${c.port}  (${c.nodeId})`,
        share.state,
        String(share.groupEpoch),
        String(share.assignmentEpoch),
        String(share.members.length),
      ];
      return writeOut(
        formatTable(['GROUP', 'COORDINATOR (ID)', 'STATE', 'GROUP-EPOCH', 'ASSIGNMENT-EPOCH', '#MEMBERS'], [row], [15, 25, 10, 12, 17]),
      );
    }
  }
}

async function resetOffsets(
  cluster: KafkaCluster,
  groups: KafkaGroupAdminClient,
  groupId: string,
  topics: readonly TopicSelection[],
  allTopics: boolean,
  spec: ResetSpec,
  execute: boolean,
): Promise<void> {
  if (allTopics === topics.length > 0) throw new UsageError('--reset-offsets needs exactly one of --topic, --all-topics');
  const share = await shareGroupOf(groups, groupId);
  if (share !== null) return resetShareOffsets(cluster, groups, share, topics, allTopics, spec, execute);
  const group = await groups.describeGroup(groupId);
  if (!INACTIVE.has(group.state)) {
    // Kafka's tool checks this itself; a commit would fail with UNKNOWN_MEMBER_ID.
    throw new KafkaError(
      ErrorCode.NON_EMPTY_GROUP,
      `Assignments can only be reset if the group '${groupId}' is inactive, but the current state is ${group.state}.`,
    );
  }
  const committed = await groups.fetchOffsets(groupId);
  const partitions = allTopics ? byTopic(committed) : await resolvePartitions(cluster, topics);
  const plan = await planOffsetReset(cluster, partitions, spec, committed);
  if (execute) await groups.commitOffsets(groupId, plan);
  const rows = plan.map((p) => [groupId, p.topic, String(p.partition), String(p.offset)]);
  await writeOut(formatTable(['GROUP', 'TOPIC', 'PARTITION', 'NEW-OFFSET'], rows, [15, 15, 10]));
}

/** A share group's start offsets are reset as Kafka's share tool does: AlterShareGroupOffsets, only while the group is empty. */
async function resetShareOffsets(
  cluster: KafkaCluster,
  groups: KafkaGroupAdminClient,
  share: ShareGroupDescription,
  topics: readonly TopicSelection[],
  allTopics: boolean,
  spec: ResetSpec,
  execute: boolean,
): Promise<void> {
  const { groupId } = share;
  if (share.state !== 'Empty') {
    throw new KafkaError(ErrorCode.NON_EMPTY_GROUP, `Share group '${groupId}' is not empty.`);
  }
  const current = (await groups.describeShareGroupOffsets(groupId))
    .filter((o) => o.startOffset >= 0n)
    .map((o) => ({ topic: o.topic, partition: o.partition, offset: o.startOffset }));
  const partitions = allTopics ? byTopic(current) : await resolvePartitions(cluster, topics);
  const plan = await planOffsetReset(cluster, partitions, spec, current);
  if (execute) {
    const failed = (await groups.alterShareGroupOffsets(groupId, plan)).find((r) => r.errorCode !== ErrorCode.NONE);
    if (failed !== undefined)
      throw new KafkaError(
        failed.errorCode,
        `resetting ${failed.topic}-${failed.partition} of share group '${groupId}' failed: ${ERRORS.get(failed.errorCode)?.message ?? errorName(failed.errorCode)}`,
      );
  }
  const rows = plan.map((p) => [groupId, p.topic, String(p.partition), String(p.offset)]);
  await writeOut(formatTable(['GROUP', 'TOPIC', 'PARTITION', 'NEW-OFFSET'], rows, [15, 15, 10]));
}

async function deleteOffsets(
  cluster: KafkaCluster,
  groups: KafkaGroupAdminClient,
  groupId: string,
  topics: readonly TopicSelection[],
): Promise<void> {
  if (topics.length === 0) throw new UsageError('--delete-offsets needs --topic');
  if ((await shareGroupOf(groups, groupId)) !== null) return deleteShareOffsets(groups, groupId, topics);
  const results = await groups.deleteOffsets(groupId, await resolvePartitions(cluster, topics));
  const failed = results.find((r) => r.errorCode !== ErrorCode.NONE);
  if (failed === undefined) await writeOut(`Request succeeded for deleting offsets from group ${groupId}.\n`);
  const rows = results.map((r) => [
    r.topic,
    String(r.partition),
    r.errorCode === ErrorCode.NONE ? 'Successful' : `Error: ${ERRORS.get(r.errorCode)?.message ?? errorName(r.errorCode)}`,
  ]);
  await writeOut(formatTable(['TOPIC', 'PARTITION', 'STATUS'], rows, [15, 10]));
  if (failed !== undefined)
    throw new KafkaError(failed.errorCode, `some offsets of group '${groupId}' were not deleted (see the STATUS column)`);
}

/** Share-partition state is deleted per topic, as kafka-share-groups.sh does it. */
async function deleteShareOffsets(groups: KafkaGroupAdminClient, groupId: string, topics: readonly TopicSelection[]): Promise<void> {
  if (topics.some((t) => t.partitions !== null))
    throw new UsageError('the offsets of a share group are deleted per topic: give --topic T without partitions');
  const results = await groups.deleteShareGroupOffsets(
    groupId,
    topics.map((t) => t.topic),
  );
  const failed = results.find((r) => r.errorCode !== ErrorCode.NONE);
  if (failed === undefined) await writeOut(`Request succeeded for deleting offsets from group ${groupId}.\n`);
  const rows = results.map((r) => [
    r.topic,
    r.errorCode === ErrorCode.NONE
      ? 'Successful'
      : `Error: ${r.errorMessage ?? ERRORS.get(r.errorCode)?.message ?? errorName(r.errorCode)}`,
  ]);
  await writeOut(formatTable(['TOPIC', 'STATUS'], rows, [15]));
  if (failed !== undefined)
    throw new KafkaError(failed.errorCode, `some offsets of share group '${groupId}' were not deleted (see the STATUS column)`);
}

interface TopicSelection {
  readonly topic: string;
  /** Null: every partition of the topic. */
  readonly partitions: readonly number[] | null;
}

/** `T` or `T:0,1,2`, as Kafka's tool takes `--topic`. */
function parseTopicPartitions(value: string): TopicSelection {
  const colon = value.indexOf(':');
  if (colon < 0) return { topic: value, partitions: null };
  const partitions = value
    .slice(colon + 1)
    .split(',')
    .map((p) => {
      if (!/^\d+$/.test(p.trim())) throw new UsageError(`--topic takes T or T:P,P,..., not '${value}'`);
      return Number(p.trim());
    });
  return { topic: value.slice(0, colon), partitions };
}

/** Topics without partitions mean all of them; named partitions must exist. */
async function resolvePartitions(cluster: KafkaCluster, topics: readonly TopicSelection[]): Promise<TopicPartitions[]> {
  return Promise.all(
    topics.map(async (t) => {
      const metadata = await new KafkaConsumerClient(cluster, t.topic).partitions();
      const existing = metadata.partitions.map((p) => p.partition);
      const missing = (t.partitions ?? []).filter((p) => !existing.includes(p));
      if (missing.length > 0)
        throw new KafkaError(
          ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
          `topic '${t.topic}' has no partition ${missing.join(', ')} (it has ${existing.length})`,
        );
      return { topic: t.topic, partitions: t.partitions ?? existing };
    }),
  );
}

const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}(Z|[+-]\d{2}:?\d{2})?$/;

function parseResetSpec(o: Options): ResetSpec {
  const given = [
    o['to-earliest'] === true,
    o['to-latest'] === true,
    o['to-offset'] !== undefined,
    o['shift-by'] !== undefined,
    o['to-datetime'] !== undefined,
  ];
  if (given.filter(Boolean).length !== 1)
    throw new UsageError('--reset-offsets needs exactly one of --to-earliest, --to-latest, --to-offset, --shift-by, --to-datetime');
  if (o['to-earliest'] === true) return { to: 'earliest' };
  if (o['to-latest'] === true) return { to: 'latest' };
  if (o['to-offset'] !== undefined) return { to: 'offset', offset: bigintOption(o['to-offset'], 'to-offset', false) };
  if (o['shift-by'] !== undefined) return { to: 'shift', by: bigintOption(o['shift-by'], 'shift-by', true) };
  const text = o['to-datetime']!;
  // Without a zone the time is local, as in Kafka's tool (and in Date.parse for this form).
  const ms = DATETIME.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(ms))
    throw new UsageError(`--to-datetime takes YYYY-MM-DDTHH:mm:SS.sss with an optional zone (Z, +hh:mm), not '${text}'`);
  return { to: 'datetime', timestamp: BigInt(ms) };
}

function bigintOption(value: string, option: string, signed: boolean): bigint {
  if (!(signed ? /^-?\d+$/ : /^\d+$/).test(value))
    throw new UsageError(`--${option} takes ${signed ? 'an integer' : 'a non-negative offset'}, not '${value}'`);
  return BigInt(value);
}

function partitionCount(assignment: readonly TopicPartitions[]): number {
  return assignment.reduce((n, t) => n + t.partitions.length, 0);
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export const groupsCommand: Command = { usage: USAGE, run };
