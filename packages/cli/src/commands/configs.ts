/**
 * `sluice configs`, after Kafka's kafka-configs.sh: describe and incrementally alter the
 * configs of a topic, a broker, or the cluster-wide broker default, and the quotas of users and
 * client ids (`client-quota-configs.ts`).
 */
import {
  AlterConfigOp,
  ConfigResourceType,
  ConfigSource,
  configSourceName,
  KafkaAdminClient,
  type ConfigEntry,
  type ConfigResource,
} from '@sluice/client/index.js';
import { parseAddConfig, parseDeleteConfig } from './config-assignments.js';
import { scramMechanism } from '@sluice/protocol/sasl/scram-formatter.js';
import { alterQuotas, describeQuotas, isQuotaEntityType, quotaTarget } from './client-quota-configs.js';
import { alterUserScramConfigs, describeUserScramConfigs } from './user-scram-configs.js';
import { COMMAND_CONFIG_OPTION, oneAction, parseOptions, UsageError, withCluster, writeOut, type Command } from './command-support.js';

const USAGE = `usage: sluice configs --bootstrap-server HOST:PORT [--command-config FILE] --entity-type topics|brokers|broker-loggers|groups|users|clients (--entity-name NAME | --entity-default)
         --describe [--all]
       | --alter [--add-config k=v[,k=[a,b]]...] [--delete-config k[,k]...]
       (users and clients: quotas, e.g. --add-config producer_byte_rate=1024,consumer_byte_rate=2048;
        users also SCRAM credentials, e.g. --add-config 'SCRAM-SHA-512=[iterations=8192,password=P]',
        --delete-config SCRAM-SHA-512; --describe without a name lists every entity of the type)
`;

const OPTIONS = {
  'bootstrap-server': { type: 'string' },
  ...COMMAND_CONFIG_OPTION,
  'entity-type': { type: 'string' },
  'entity-name': { type: 'string' },
  'entity-default': { type: 'boolean' },
  describe: { type: 'boolean' },
  alter: { type: 'boolean' },
  all: { type: 'boolean' },
  'add-config': { type: 'string', multiple: true },
  'delete-config': { type: 'string', multiple: true },
} as const;

async function run(args: string[]): Promise<void> {
  const o = parseOptions(args, OPTIONS);
  const action = oneAction({ describe: o.describe, alter: o.alter });
  if (isQuotaEntityType(o['entity-type'])) {
    await clientEntityConfigs(o, action);
    return;
  }
  const resource = configResource(o['entity-type'], o['entity-name'], o['entity-default'] === true);
  await withCluster(o, async (cluster) => {
    const admin = new KafkaAdminClient(cluster);
    if (action === 'describe') {
      const all = o.all === true;
      const entries = await admin.describeConfigs(resource, { includeSynonyms: true });
      await writeOut(`${all ? 'All' : resource.name === '' ? 'Default' : 'Dynamic'} configs for ${subject(resource)} are:\n`);
      for (const e of entries.filter((x) => all || x.source === ownSource(resource))) await writeOut(`  ${describeEntry(e)}\n`);
      return;
    }
    const { additions, deletions } = configChanges(o['add-config'], o['delete-config']);
    await admin.incrementalAlterConfigs(resource, [
      ...[...additions].map(([name, value]) => ({ name, op: AlterConfigOp.Set, value })),
      ...deletions.map((name) => ({ name, op: AlterConfigOp.Delete, value: null })),
    ]);
    await writeOut(
      `Completed updating ${resource.name === '' ? 'default config for brokers in the cluster' : `config for ${subject(resource)}`}.\n`,
    );
  });
}

type ParsedOptions = ReturnType<typeof parseOptions<typeof OPTIONS>>;

/**
 * Users and client ids: quotas through the client-quota APIs and, for a named user, SCRAM
 * credentials through the SCRAM APIs, as kafka-configs.sh splits one `--add-config` between them.
 */
async function clientEntityConfigs(o: ParsedOptions, action: 'describe' | 'alter'): Promise<void> {
  const target = quotaTarget(o['entity-type']!, o['entity-name'], o['entity-default'] === true);
  // SCRAM credentials belong to users, never to the default one; undefined is "every user" (describe only).
  const hasCredentials = o['entity-type'] === 'users' && target.name !== null;
  const user = target.name ?? undefined;
  await withCluster(o, async (cluster) => {
    if (action === 'describe') {
      await describeQuotas(cluster, target);
      if (hasCredentials) await describeUserScramConfigs(cluster, user);
      return;
    }
    const { additions, deletions } = configChanges(o['add-config'], o['delete-config']);
    const isScram = (key: string): boolean => scramMechanism(key) !== undefined;
    const scramAdditions = new Map([...additions].filter(([key]) => isScram(key)));
    const scramDeletions = deletions.filter(isScram);
    const quotaAdditions = new Map([...additions].filter(([key]) => !isScram(key)));
    const quotaDeletions = deletions.filter((key) => !isScram(key));
    if (scramAdditions.size + scramDeletions.length > 0) {
      if (!hasCredentials || user === undefined)
        throw new UsageError('SCRAM credentials belong to a named user: --entity-type users --entity-name USER');
      await alterUserScramConfigs(cluster, user, scramAdditions, scramDeletions);
    }
    if (quotaAdditions.size + quotaDeletions.length > 0) await alterQuotas(cluster, target, quotaAdditions, quotaDeletions);
    else await writeOut(`Completed updating config for user ${user!}.\n`);
  });
}

/** `--add-config` and `--delete-config`, which must change something and not the same key twice. */
function configChanges(add: string[] | undefined, del: string[] | undefined): { additions: Map<string, string>; deletions: string[] } {
  const additions = new Map((add ?? []).flatMap((text) => [...parseAddConfig(text)]));
  const deletions = (del ?? []).flatMap(parseDeleteConfig);
  if (additions.size === 0 && deletions.length === 0) throw new UsageError('--alter needs --add-config or --delete-config');
  const overlap = deletions.filter((k) => additions.has(k));
  if (overlap.length > 0) throw new UsageError(`a config cannot be both added and deleted: ${overlap.join(', ')}`);
  return { additions, deletions };
}

function configResource(entityType: string | undefined, entityName: string | undefined, entityDefault: boolean): ConfigResource {
  if (entityType !== 'topics' && entityType !== 'brokers' && entityType !== 'broker-loggers' && entityType !== 'groups') {
    throw new UsageError(`--entity-type must be topics, brokers, broker-loggers, groups, users or clients, not '${entityType ?? ''}'`);
  }
  if ((entityName === undefined) === !entityDefault) throw new UsageError('give exactly one of --entity-name, --entity-default');
  if (entityType === 'topics' || entityType === 'groups') {
    if (entityDefault) throw new UsageError('--entity-default applies to brokers only');
    return { type: entityType === 'topics' ? ConfigResourceType.Topic : ConfigResourceType.Group, name: entityName! };
  }
  const loggers = entityType === 'broker-loggers';
  if (entityDefault) {
    if (loggers) throw new UsageError('--entity-default applies to brokers only');
    return { type: ConfigResourceType.Broker, name: '' };
  }
  if (!/^\d+$/.test(entityName!)) throw new UsageError(`a broker's --entity-name is its node id, not '${entityName}'`);
  return { type: loggers ? ConfigResourceType.BrokerLogger : ConfigResourceType.Broker, name: entityName! };
}

/** The source of the configs set on exactly this resource, which a plain `--describe` shows. */
function ownSource(resource: ConfigResource): number {
  if (resource.type === ConfigResourceType.Topic) return ConfigSource.DynamicTopic;
  if (resource.type === ConfigResourceType.Group) return ConfigSource.Group;
  if (resource.type === ConfigResourceType.BrokerLogger) return ConfigSource.DynamicBrokerLogger;
  return resource.name === '' ? ConfigSource.DynamicDefaultBroker : ConfigSource.DynamicBroker;
}

function subject(resource: ConfigResource): string {
  if (resource.type === ConfigResourceType.Topic) return `topic ${resource.name}`;
  if (resource.type === ConfigResourceType.Group) return `group ${resource.name}`;
  if (resource.type === ConfigResourceType.BrokerLogger) return `broker-logger ${resource.name}`;
  return resource.name === '' ? 'brokers in the cluster' : `broker ${resource.name}`;
}

function describeEntry(e: ConfigEntry): string {
  const synonyms = e.synonyms.map((s) => `${configSourceName(s.source)}:${s.name}=${s.value}`).join(', ');
  return `${e.name}=${e.isSensitive ? '<sensitive>' : e.value} sensitive=${e.isSensitive} synonyms={${synonyms}}`;
}

export const configsCommand: Command = { usage: USAGE, run };
