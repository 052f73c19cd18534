/**
 * `sluice topics`, after Kafka's kafka-topics.sh: list, describe, create, grow and delete
 * topics on any Kafka-compatible broker.
 */
import { ConfigResourceType, ConfigSource, KafkaAdminClient, type TopicMetadata } from '@sluice/client/index.js';
import {
  integerOption,
  oneAction,
  parseOptions,
  required,
  UsageError,
  withCluster,
  writeOut,
  type Command,
  COMMAND_CONFIG_OPTION,
} from './command-support.js';

const USAGE = `usage: sluice topics --bootstrap-server HOST:PORT [--command-config FILE]
         --list
       | --describe [--topic T]
       | --create --topic T [--partitions N] [--replication-factor R] [--config k=v]...
       | --alter --topic T --partitions N
       | --delete --topic T
`;

const OPTIONS = {
  'bootstrap-server': { type: 'string' },
  ...COMMAND_CONFIG_OPTION,
  list: { type: 'boolean' },
  describe: { type: 'boolean' },
  create: { type: 'boolean' },
  alter: { type: 'boolean' },
  delete: { type: 'boolean' },
  topic: { type: 'string' },
  partitions: { type: 'string' },
  'replication-factor': { type: 'string' },
  config: { type: 'string', multiple: true },
} as const;

const INT32_MAX = 0x7fffffff;
const INT16_MAX = 0x7fff;

async function run(args: string[]): Promise<void> {
  const o = parseOptions(args, OPTIONS);
  const action = oneAction({ list: o.list, describe: o.describe, create: o.create, alter: o.alter, delete: o.delete });
  const partitions = integerOption(o.partitions, 'partitions', 1, INT32_MAX);
  const replicationFactor = integerOption(o['replication-factor'], 'replication-factor', 1, INT16_MAX);
  const configs = parseTopicConfigs(o.config ?? []);
  await withCluster(o, async (cluster) => {
    const admin = new KafkaAdminClient(cluster);
    switch (action) {
      case 'list':
        for (const name of await admin.listTopics()) await writeOut(`${name}\n`);
        return;
      case 'describe':
        for (const topic of await admin.describeTopics(o.topic === undefined ? null : [o.topic])) {
          await writeOut(describeTopic(topic, await dynamicConfigs(admin, topic.name)));
        }
        return;
      case 'create': {
        const name = required(o.topic, 'topic');
        await admin.createTopic({ name, partitions, replicationFactor, configs });
        await writeOut(`Created topic ${name}.\n`);
        return;
      }
      case 'alter': {
        const name = required(o.topic, 'topic');
        if (partitions === undefined) throw new UsageError('--alter needs --partitions (the new, larger partition count)');
        await admin.createPartitions(name, partitions);
        return;
      }
      case 'delete':
        await admin.deleteTopic(required(o.topic, 'topic'));
        return;
    }
  });
}

function parseTopicConfigs(assignments: readonly string[]): Map<string, string> {
  const configs = new Map<string, string>();
  for (const a of assignments) {
    const eq = a.indexOf('=');
    if (eq <= 0) throw new UsageError(`--config takes key=value, not '${a}'`);
    configs.set(a.slice(0, eq), a.slice(eq + 1));
  }
  return configs;
}

/** What kafka-topics shows as "Configs": the topic's own settings, not the broker defaults. */
async function dynamicConfigs(admin: KafkaAdminClient, topic: string): Promise<string> {
  const entries = await admin.describeConfigs({ type: ConfigResourceType.Topic, name: topic });
  return entries
    .filter((e) => e.source === ConfigSource.DynamicTopic)
    .map((e) => `${e.name}=${e.isSensitive ? '<sensitive>' : e.value}`)
    .join(',');
}

function describeTopic(topic: TopicMetadata, configs: string): string {
  const replicationFactor = topic.partitions[0]?.replicas.length ?? 0;
  const lines = [
    `Topic: ${topic.name}\tTopicId: ${topic.topicId}\tPartitionCount: ${topic.partitions.length}\tReplicationFactor: ${replicationFactor}\tConfigs: ${configs}`,
  ];
  for (const p of topic.partitions) {
    const leader = p.leaderId < 0 ? 'none' : String(p.leaderId);
    let line = `\tTopic: ${topic.name}\tPartition: ${p.partition}\tLeader: ${leader}\tReplicas: ${p.replicas.join(',')}\tIsr: ${p.isr.join(',')}`;
    if (p.offlineReplicas.length > 0) line += `\tOffline: ${p.offlineReplicas.join(',')}`;
    lines.push(line);
  }
  return lines.join('\n') + '\n';
}

export const topicsCommand: Command = { usage: USAGE, run };
