/**
 * `sluice log-dirs --describe`, after Kafka's kafka-log-dirs.sh: each broker's log dirs with the
 * replicas in them (size, offset lag, and whether it is a future replica — a partition moving into
 * that dir), as Kafka's tool prints them: two lines, then one JSON document.
 */
import { ReplicaAdminClient } from '@sluice/client/index.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { InputError, oneAction, parseOptions, withCluster, writeOut, type Command, COMMAND_CONFIG_OPTION } from './command-support.js';

const USAGE = `usage: sluice log-dirs --bootstrap-server HOST:PORT [--command-config FILE] --describe [--broker-list 0,1] [--topic-list a,b]
`;

const OPTIONS = {
  'bootstrap-server': { type: 'string' },
  ...COMMAND_CONFIG_OPTION,
  describe: { type: 'boolean' },
  'broker-list': { type: 'string' },
  'topic-list': { type: 'string' },
} as const;

/** The Java exception class Kafka's tool names for a log dir's error. */
const ERROR_CLASSES: ReadonlyMap<number, string> = new Map([
  [ErrorCode.KAFKA_STORAGE_ERROR, 'org.apache.kafka.common.errors.KafkaStorageException'],
]);

const commaList = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

async function run(args: string[]): Promise<void> {
  const o = parseOptions(args, OPTIONS);
  oneAction({ describe: o.describe });
  const topics = new Set(commaList(o['topic-list']));
  const asked = commaList(o['broker-list']).map(Number);
  if (asked.some((id) => !Number.isInteger(id))) throw new InputError(`--broker-list must name broker ids: ${o['broker-list']}`);
  await withCluster(o, async (cluster) => {
    const known = [...(await cluster.metadata([])).brokers.keys()];
    const missing = asked.filter((id) => !known.includes(id));
    if (missing.length > 0)
      throw new InputError(
        `ERROR: The given brokers do not exist from --broker-list: ${missing.join(',')}. Current existent brokers: ${known.join(',')}`,
      );
    const brokers = asked.length > 0 ? asked : known;
    const admin = new ReplicaAdminClient(cluster);
    await writeOut('Querying brokers for log directories information\n');
    const described = await Promise.all(brokers.map(async (broker) => ({ broker, dirs: await admin.logDirs(broker, null) })));
    await writeOut(`Received log directory information from brokers ${brokers.join(',')}\n`);
    const doc = {
      brokers: described.map(({ broker, dirs }) => ({
        broker,
        logDirs: dirs.map((d) => ({
          partitions: d.replicas
            .filter((r) => topics.size === 0 || topics.has(r.topic))
            .map((r) => ({
              partition: `${r.topic}-${r.partition}`,
              size: Number(r.size),
              offsetLag: Number(r.offsetLag),
              isFuture: r.isFuture,
            })),
          error: d.errorCode === ErrorCode.NONE ? null : (ERROR_CLASSES.get(d.errorCode) ?? `error ${d.errorCode}`),
          logDir: d.path,
        })),
      })),
      version: 1,
    };
    await writeOut(`${JSON.stringify(doc)}\n`);
  });
}

export const logDirsCommand: Command = { usage: USAGE, run };
