/**
 * `sluice groups`, after Kafka's kafka-consumer-groups.sh: list consumer groups, describe one
 * (offsets and lag per partition, members, or state), reset its offsets (a dry run unless
 * `--execute`), delete it, or delete some of its offsets — on any Kafka-compatible broker.
 */
import { KafkaError } from '../../common/kafka-error.js';
import { ERRORS, ErrorCode, errorName } from '../../protocol/errors.js';
import {
  byTopic,
  comparePartitions,
  KafkaConsumerClient,
  KafkaGroupAdminClient,
  listPartitionOffsets,
  partitionKey,
  planOffsetReset,
  type GroupDescription,
  type KafkaCluster,
  type PartitionOffset,
  type ResetSpec,
  type TopicPartitions,
} from '../../client/index.js';
import { oneAction, parseOptions, required, UsageError, withCluster, writeOut, type Command, COMMAND_CONFIG_OPTION } from './command-support.js';
import { formatTable } from './table.js';

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
  const action = oneAction({ list: o.list, describe: o.describe, 'reset-offsets': o['reset-offsets'], delete: o.delete, 'delete-offsets': o['delete-offsets'] });
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
        return describe(cluster, groups, required(o.group, 'group'), o.members === true ? 'members' : o.state === true ? 'state' : 'offsets');
      case 'reset-offsets':
        return resetOffsets(cluster, groups, required(o.group, 'group'), topics, o['all-topics'] === true, spec!, o.execute === true);
      case 'delete': {
        const group = required(o.group, 'group');
        await groups.deleteGroup(group);
        return writeOut(`Deletion of requested consumer groups ('${group}') was successful.\n`);
      }
      case 'delete-offsets':
        return deleteOffsets(cluster, groups, required(o.group, 'group'), topics);
    }
  });
}

async function list(groups: KafkaGroupAdminClient, withState: boolean, withType: boolean): Promise<void> {
  const listed = await groups.listConsumerGroups();
  if (!withState && !withType) {
    for (const g of listed) await writeOut(`${g.groupId}\n`);
    return;
  }
  const header = ['GROUP', ...(withType ? ['TYPE'] : []), ...(withState ? ['STATE'] : [])];
  const rows = listed.map((g) => [g.groupId, ...(withType ? [capitalize(g.type || 'unknown')] : []), ...(withState ? [g.state || 'Unknown'] : [])]);
  const groupWidth = Math.max(15, ...listed.map((g) => g.groupId.length)) + 10;
  await writeOut(formatTable(header, rows, [groupWidth, 20, 20]));
}

async function describe(cluster: KafkaCluster, groups: KafkaGroupAdminClient, groupId: string, view: 'offsets' | 'members' | 'state'): Promise<void> {
  const group = await groups.describeGroup(groupId);
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
      assigned.add(partitionKey(p));
      rows.push({ ...p, member: [m.memberId, m.clientHost, m.clientId] });
    }
  }
  for (const c of committed) if (!assigned.has(partitionKey(c))) rows.push({ topic: c.topic, partition: c.partition, member: [MISSING, MISSING, MISSING] });
  const ends = await listPartitionOffsets(cluster, byTopic(rows), 'latest');
  const offsets = new Map(committed.map((c) => [partitionKey(c), c.offset]));
  const cells = rows.map((r) => {
    const current = offsets.get(partitionKey(r));
    const end = ends.get(r.topic)?.get(r.partition);
    const lag = current === undefined || end === undefined ? MISSING : String(end - current);
    return [group.groupId, r.topic, String(r.partition), current?.toString() ?? MISSING, end?.toString() ?? MISSING, lag, ...r.member];
  });
  return formatTable(['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'CONSUMER-ID', 'HOST', 'CLIENT-ID'], cells, [15, 15, 10, 15, 15, 15, 15, 15]);
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

async function resetOffsets(
  cluster: KafkaCluster,
  groups: KafkaGroupAdminClient,
  groupId: string,
  topics: readonly TopicSelection[],
  allTopics: boolean,
  spec: ResetSpec,
  execute: boolean,
): Promise<void> {
  if (allTopics === (topics.length > 0)) throw new UsageError('--reset-offsets needs exactly one of --topic, --all-topics');
  const group = await groups.describeGroup(groupId);
  if (!INACTIVE.has(group.state)) {
    // Kafka's tool checks this itself; a commit would fail with UNKNOWN_MEMBER_ID.
    throw new KafkaError(ErrorCode.NON_EMPTY_GROUP, `Assignments can only be reset if the group '${groupId}' is inactive, but the current state is ${group.state}.`);
  }
  const committed = await groups.fetchOffsets(groupId);
  const partitions = allTopics ? byTopic(committed) : await resolvePartitions(cluster, topics);
  const plan = await planOffsetReset(cluster, partitions, spec, committed);
  if (execute) await groups.commitOffsets(groupId, plan);
  const rows = plan.map((p) => [groupId, p.topic, String(p.partition), String(p.offset)]);
  await writeOut(formatTable(['GROUP', 'TOPIC', 'PARTITION', 'NEW-OFFSET'], rows, [15, 15, 10]));
}

async function deleteOffsets(cluster: KafkaCluster, groups: KafkaGroupAdminClient, groupId: string, topics: readonly TopicSelection[]): Promise<void> {
  if (topics.length === 0) throw new UsageError('--delete-offsets needs --topic');
  const results = await groups.deleteOffsets(groupId, await resolvePartitions(cluster, topics));
  const failed = results.find((r) => r.errorCode !== ErrorCode.NONE);
  if (failed === undefined) await writeOut(`Request succeeded for deleting offsets from group ${groupId}.\n`);
  const rows = results.map((r) => [r.topic, String(r.partition), r.errorCode === ErrorCode.NONE ? 'Successful' : `Error: ${ERRORS.get(r.errorCode)?.message ?? errorName(r.errorCode)}`]);
  await writeOut(formatTable(['TOPIC', 'PARTITION', 'STATUS'], rows, [15, 10]));
  if (failed !== undefined) throw new KafkaError(failed.errorCode, `some offsets of group '${groupId}' were not deleted (see the STATUS column)`);
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
      if (missing.length > 0) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `topic '${t.topic}' has no partition ${missing.join(', ')} (it has ${existing.length})`);
      return { topic: t.topic, partitions: t.partitions ?? existing };
    }),
  );
}

const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}(Z|[+-]\d{2}:?\d{2})?$/;

function parseResetSpec(o: Options): ResetSpec {
  const given = [o['to-earliest'] === true, o['to-latest'] === true, o['to-offset'] !== undefined, o['shift-by'] !== undefined, o['to-datetime'] !== undefined];
  if (given.filter(Boolean).length !== 1) throw new UsageError('--reset-offsets needs exactly one of --to-earliest, --to-latest, --to-offset, --shift-by, --to-datetime');
  if (o['to-earliest'] === true) return { to: 'earliest' };
  if (o['to-latest'] === true) return { to: 'latest' };
  if (o['to-offset'] !== undefined) return { to: 'offset', offset: bigintOption(o['to-offset'], 'to-offset', false) };
  if (o['shift-by'] !== undefined) return { to: 'shift', by: bigintOption(o['shift-by'], 'shift-by', true) };
  const text = o['to-datetime']!;
  // Without a zone the time is local, as in Kafka's tool (and in Date.parse for this form).
  const ms = DATETIME.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(ms)) throw new UsageError(`--to-datetime takes YYYY-MM-DDTHH:mm:SS.sss with an optional zone (Z, +hh:mm), not '${text}'`);
  return { to: 'datetime', timestamp: BigInt(ms) };
}

function bigintOption(value: string, option: string, signed: boolean): bigint {
  if (!(signed ? /^-?\d+$/ : /^\d+$/).test(value)) throw new UsageError(`--${option} takes ${signed ? 'an integer' : 'a non-negative offset'}, not '${value}'`);
  return BigInt(value);
}

function partitionCount(assignment: readonly TopicPartitions[]): number {
  return assignment.reduce((n, t) => n + t.partitions.length, 0);
}



function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export const groupsCommand: Command = { usage: USAGE, run };
