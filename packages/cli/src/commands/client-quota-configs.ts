/**
 * `sluice configs --entity-type users|clients`: describe and alter client quotas as
 * kafka-configs.sh does, with its output lines (`Quota configs for client-id 'app' are
 * producer_byte_rate=1024.0`). Quota values are numbers; a key that is not one is refused by the broker.
 */
import { ClientQuotaAdminClient, type KafkaCluster, type QuotaChange, type QuotaEntityNames } from '@sluice/client/index.js';
import { UsageError, writeOut } from './command-support.js';

/** kafka-configs' entity types for quotas and the ClientQuotaEntity type each names. */
const QUOTA_ENTITY_TYPES: ReadonlyMap<string, { readonly type: string; readonly label: string }> = new Map([
  ['users', { type: 'user', label: 'user-principal' }],
  ['clients', { type: 'client-id', label: 'client-id' }],
]);

export function isQuotaEntityType(entityType: string | undefined): boolean {
  return entityType !== undefined && QUOTA_ENTITY_TYPES.has(entityType);
}

interface QuotaTarget {
  readonly entityType: string;
  readonly type: string;
  readonly label: string;
  /** undefined: every entity of the type (describe only); null: the default entity. */
  readonly name: string | null | undefined;
}

export function quotaTarget(entityType: string, entityName: string | undefined, entityDefault: boolean): QuotaTarget {
  if (entityName !== undefined && entityDefault) throw new UsageError('give at most one of --entity-name, --entity-default');
  const { type, label } = QUOTA_ENTITY_TYPES.get(entityType)!;
  return { entityType, type, label, name: entityDefault ? null : entityName };
}

function describeEntity(entity: QuotaEntityNames): string {
  const labels = new Map([...QUOTA_ENTITY_TYPES.values()].map((t) => [t.type, t.label]));
  return [...entity]
    .map(([type, name]) => (name === null ? `the default ${labels.get(type) ?? type}` : `${labels.get(type) ?? type} '${name}'`))
    .join(', ');
}

/** Java prints a double with at least one decimal: 1024 is `1024.0`. */
function javaDouble(value: number): string {
  return Number.isInteger(value) ? `${value}.0` : String(value);
}

export async function describeQuotas(cluster: KafkaCluster, target: QuotaTarget): Promise<void> {
  const described = await new ClientQuotaAdminClient(cluster).describeClientQuotas([{ entityType: target.type, name: target.name }], true);
  for (const d of described) {
    const values = [...d.values].map(([k, v]) => `${k}=${javaDouble(v)}`).join(', ');
    await writeOut(`Quota configs for ${describeEntity(d.entity)} are ${values}\n`);
  }
}

export async function alterQuotas(
  cluster: KafkaCluster,
  target: QuotaTarget,
  additions: ReadonlyMap<string, string>,
  deletions: readonly string[],
): Promise<void> {
  if (target.name === undefined) throw new UsageError('--alter needs --entity-name or --entity-default');
  const changes: QuotaChange[] = [
    ...[...additions].map(([key, text]) => {
      const value = Number(text);
      if (text.trim() === '' || !Number.isFinite(value)) throw new UsageError(`the quota ${key} takes a number, not '${text}'`);
      return { key, value };
    }),
    ...deletions.map((key) => ({ key, value: null })),
  ];
  await new ClientQuotaAdminClient(cluster).alterClientQuotas(new Map([[target.type, target.name]]), changes);
  const singular = target.entityType.slice(0, -1);
  await writeOut(
    target.name === null
      ? `Completed updating default config for ${target.entityType} in the cluster.\n`
      : `Completed updating config for ${singular} ${target.name}.\n`,
  );
}
