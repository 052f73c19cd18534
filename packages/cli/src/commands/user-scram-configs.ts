/**
 * `sluice configs --entity-type users`: users' SCRAM credentials, written and read as
 * kafka-configs.sh does through AlterUserScramCredentials / DescribeUserScramCredentials:
 * `--add-config 'SCRAM-SHA-512=[iterations=8192,password=secret]'` (iterations default to
 * Kafka's 4096), `--delete-config SCRAM-SHA-512`, `--describe`.
 */
import { alterScramCredentials, describeScramCredentials, type KafkaCluster, type ScramCredentialChange } from '@sluice/client/index.js';
import { scramMechanism, type ScramMechanismName } from '@sluice/protocol/sasl/scram-formatter.js';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { UsageError, writeOut } from './command-support.js';

/** kafka-configs.sh's default for a SCRAM credential added without `iterations`. */
const DEFAULT_ITERATIONS = 4096;

function mechanismName(key: string): ScramMechanismName {
  const m = scramMechanism(key);
  if (m === undefined) throw new UsageError(`users take SCRAM-SHA-256 and SCRAM-SHA-512 configs here, not '${key}'`);
  return m.name;
}

function upsertOf(user: string, key: string, value: string): ScramCredentialChange {
  const fields = new Map(
    value.split(',').map((part) => {
      const eq = part.indexOf('=');
      if (eq <= 0) throw new UsageError(`${key} takes [iterations=N,password=P], and '${part}' is not k=v`);
      return [part.slice(0, eq).trim(), part.slice(eq + 1)] as const;
    }),
  );
  const password = fields.get('password');
  if (password === undefined || password === '') throw new UsageError(`${key} needs a password: ${key}=[iterations=N,password=P]`);
  const unknown = [...fields.keys()].filter((k) => k !== 'password' && k !== 'iterations');
  if (unknown.length > 0) throw new UsageError(`${key} takes iterations and password, not ${unknown.join(', ')}`);
  const iterationsText = fields.get('iterations');
  const iterations = iterationsText === undefined ? DEFAULT_ITERATIONS : Number(iterationsText);
  if (!Number.isInteger(iterations)) throw new UsageError(`${key}: iterations must be a whole number, not '${iterationsText ?? ''}'`);
  return { user, mechanism: mechanismName(key), upsert: { password, iterations } };
}

export async function alterUserScramConfigs(
  cluster: KafkaCluster,
  user: string,
  additions: ReadonlyMap<string, string>,
  deletions: readonly string[],
): Promise<void> {
  const changes = [
    ...[...additions].map(([key, value]) => upsertOf(user, key, value)),
    ...deletions.map((key): ScramCredentialChange => ({ user, mechanism: mechanismName(key) })),
  ];
  await alterScramCredentials(cluster, changes);
}

/** One line per user with credentials (every such user when `user` is undefined). */
export async function describeUserScramConfigs(cluster: KafkaCluster, user: string | undefined): Promise<void> {
  let described: Awaited<ReturnType<typeof describeScramCredentials>>;
  try {
    described = await describeScramCredentials(cluster, user === undefined ? [] : [user]);
  } catch (err) {
    // A named user without credentials (one with only quotas) has nothing to show, as in kafka-configs.sh.
    if (user !== undefined && err instanceof KafkaError && err.code === ErrorCode.RESOURCE_NOT_FOUND) return;
    throw err;
  }
  for (const u of described) {
    const configs = u.credentials.map((c) => `${c.mechanism}=iterations=${c.iterations}`).join(', ');
    await writeOut(`SCRAM credential configs for user-principal '${u.user}' are ${configs}\n`);
  }
}
