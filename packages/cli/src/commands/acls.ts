/**
 * `sluice acls`, after Kafka's kafka-acls.sh against `--bootstrap-server`: add, remove and list
 * ACL bindings on topics, groups, the cluster and transactional ids, with the `--producer` and
 * `--consumer` conveniences. Hosts default to `*`, operations to All, the pattern type to
 * LITERAL (ANY when listing), as in Kafka's tool.
 */
import { KafkaAdminClient, type AclBindingData, type AclFilterData } from '@sluice/client/index.js';
import {
  AclOperation,
  CLUSTER_NAME,
  enumName,
  PatternType,
  PermissionType,
  ResourceType,
  operationName,
  parseOperation,
  parsePatternType,
  patternTypeName,
  permissionTypeName,
  resourceTypeName,
  type ResourcePattern,
} from '@sluice/protocol/acl/acl-types.js';
import { principalProblem } from '@sluice/protocol/acl/acl-filter.js';
import { COMMAND_CONFIG_OPTION, oneAction, parseOptions, UsageError, withCluster, writeOut, type Command } from './command-support.js';

const USAGE = `usage: sluice acls --bootstrap-server HOST:PORT [--command-config FILE] (--add | --remove | --list)
         [--allow-principal P]... [--deny-principal P]... [--allow-host H]... [--deny-host H]...
         [--operation OP]... [--producer [--idempotent]] [--consumer] [--principal P]...
         [--topic T]... [--group G]... [--cluster] [--transactional-id ID]...
         [--resource-pattern-type literal|prefixed|any|match]
`;

const OPTIONS = {
  'bootstrap-server': { type: 'string' },
  ...COMMAND_CONFIG_OPTION,
  add: { type: 'boolean' },
  remove: { type: 'boolean' },
  list: { type: 'boolean' },
  'allow-principal': { type: 'string', multiple: true },
  'deny-principal': { type: 'string', multiple: true },
  'allow-host': { type: 'string', multiple: true },
  'deny-host': { type: 'string', multiple: true },
  principal: { type: 'string', multiple: true },
  operation: { type: 'string', multiple: true },
  producer: { type: 'boolean' },
  consumer: { type: 'boolean' },
  idempotent: { type: 'boolean' },
  topic: { type: 'string', multiple: true },
  group: { type: 'string', multiple: true },
  cluster: { type: 'boolean' },
  'transactional-id': { type: 'string', multiple: true },
  'resource-pattern-type': { type: 'string' },
} as const;

type Options = ReturnType<typeof parseOptions<typeof OPTIONS>>;

function patternTypeOf(o: Options, fallback: PatternType): PatternType {
  const text = o['resource-pattern-type'];
  if (text === undefined) return fallback;
  const parsed = parsePatternType(text);
  if (parsed === undefined) throw new UsageError(`--resource-pattern-type must be literal, prefixed, any or match, not '${text}'`);
  return parsed;
}

function resourcesOf(o: Options, patternType: PatternType): ResourcePattern[] {
  return [
    ...(o.topic ?? []).map((name) => ({ resourceType: ResourceType.TOPIC, name, patternType })),
    ...(o.group ?? []).map((name) => ({ resourceType: ResourceType.GROUP, name, patternType })),
    ...(o['transactional-id'] ?? []).map((name) => ({ resourceType: ResourceType.TRANSACTIONAL_ID, name, patternType })),
    ...(o.cluster === true ? [{ resourceType: ResourceType.CLUSTER, name: CLUSTER_NAME, patternType: PatternType.LITERAL }] : []),
  ];
}

/** The operations per resource: `--producer`/`--consumer` as kafka-acls.sh expands them, else `--operation` (default All). */
function operationsFor(o: Options, resource: ResourcePattern): AclOperation[] {
  if (o.producer === true || o.consumer === true) {
    const ops = new Set<AclOperation>();
    if (o.producer === true) {
      if (resource.resourceType === ResourceType.TOPIC)
        [AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.CREATE].forEach((op) => ops.add(op));
      if (resource.resourceType === ResourceType.TRANSACTIONAL_ID) [AclOperation.WRITE, AclOperation.DESCRIBE].forEach((op) => ops.add(op));
      if (resource.resourceType === ResourceType.CLUSTER && o.idempotent === true) ops.add(AclOperation.IDEMPOTENT_WRITE);
    }
    if (o.consumer === true) {
      if (resource.resourceType === ResourceType.TOPIC) [AclOperation.READ, AclOperation.DESCRIBE].forEach((op) => ops.add(op));
      if (resource.resourceType === ResourceType.GROUP) ops.add(AclOperation.READ);
    }
    return [...ops];
  }
  return (o.operation ?? ['All']).map((text) => {
    const op = parseOperation(text);
    if (op === undefined) throw new UsageError(`unknown --operation '${text}'`);
    return op;
  });
}

function checkPrincipals(principals: readonly string[]): readonly string[] {
  for (const p of principals) {
    const problem = principalProblem(p);
    if (problem !== null) throw new UsageError(problem);
  }
  return principals;
}

/** Every binding the options name: each principal × host × operation on each resource. */
function bindingsOf(o: Options): AclBindingData[] {
  const patternType = patternTypeOf(o, PatternType.LITERAL);
  if (patternType !== PatternType.LITERAL && patternType !== PatternType.PREFIXED)
    throw new UsageError('--add and --remove take --resource-pattern-type literal or prefixed');
  const resources =
    o.producer === true && o.idempotent === true
      ? [...resourcesOf(o, patternType), { resourceType: ResourceType.CLUSTER, name: CLUSTER_NAME, patternType: PatternType.LITERAL }]
      : resourcesOf(o, patternType);
  if (resources.length === 0) throw new UsageError('name a resource: --topic, --group, --cluster or --transactional-id');
  if (o.consumer === true && (o.group ?? []).length === 0) throw new UsageError('--consumer needs --group');
  const grants = [
    ...checkPrincipals(o['allow-principal'] ?? []).flatMap((principal) =>
      (o['allow-host'] ?? ['*']).map((host) => ({ principal, host, permissionType: PermissionType.ALLOW })),
    ),
    ...checkPrincipals(o['deny-principal'] ?? []).flatMap((principal) =>
      (o['deny-host'] ?? ['*']).map((host) => ({ principal, host, permissionType: PermissionType.DENY })),
    ),
  ];
  return resources.flatMap((r) =>
    operationsFor(o, r).flatMap((operation) =>
      grants.map((g) => ({ resourceType: r.resourceType, resourceName: r.name, patternType: r.patternType, operation, ...g })),
    ),
  );
}

const exactFilter = (b: AclBindingData): AclFilterData => b;

function resourceFilter(r: ResourcePattern | null, principal: string | null): AclFilterData {
  return {
    resourceType: r?.resourceType ?? ResourceType.ANY,
    resourceName: r?.name ?? null,
    patternType: r?.patternType ?? PatternType.ANY,
    principal,
    host: null,
    operation: AclOperation.ANY,
    permissionType: PermissionType.ANY,
  };
}

function describePattern(b: Pick<AclBindingData, 'resourceType' | 'resourceName' | 'patternType'>): string {
  return `ResourcePattern(resourceType=${enumName(resourceTypeName(b.resourceType as ResourceType))}, name=${b.resourceName}, patternType=${patternTypeName(b.patternType as PatternType)})`;
}

function describeEntry(b: AclBindingData): string {
  return `(principal=${b.principal}, host=${b.host}, operation=${enumName(operationName(b.operation as AclOperation))}, permissionType=${enumName(permissionTypeName(b.permissionType as PermissionType))})`;
}

async function printByResource(title: string, bindings: readonly AclBindingData[]): Promise<void> {
  const byResource = new Map<string, AclBindingData[]>();
  for (const b of bindings) {
    const key = describePattern(b);
    byResource.set(key, [...(byResource.get(key) ?? []), b]);
  }
  for (const [pattern, entries] of byResource)
    await writeOut(`${title} \`${pattern}\`:\n${entries.map((e) => ` \t${describeEntry(e)}`).join('\n')}\n\n`);
}

async function run(args: string[]): Promise<void> {
  const o = parseOptions(args, OPTIONS);
  const action = oneAction({ add: o.add, remove: o.remove, list: o.list });
  await withCluster(o, async (cluster) => {
    const admin = new KafkaAdminClient(cluster);
    if (action === 'add') {
      const bindings = bindingsOf(o);
      if (bindings.length === 0) throw new UsageError('--add needs --allow-principal or --deny-principal');
      await admin.createAcls(bindings);
      await printByResource('Adding ACLs for resource', bindings);
      return;
    }
    if (action === 'remove') {
      const hasPrincipals = (o['allow-principal'] ?? []).length + (o['deny-principal'] ?? []).length > 0;
      // Without principals, kafka-acls.sh removes every ACL of the named resources.
      const filters = hasPrincipals
        ? bindingsOf(o).map(exactFilter)
        : resourcesOf(o, patternTypeOf(o, PatternType.LITERAL)).map((r) => resourceFilter(r, null));
      if (filters.length === 0) throw new UsageError('name a resource: --topic, --group, --cluster or --transactional-id');
      const removed = (await admin.deleteAcls(filters)).flat();
      await printByResource('Removed ACLs for resource', removed);
      return;
    }
    const resources = resourcesOf(o, patternTypeOf(o, PatternType.ANY));
    const principals = checkPrincipals(o.principal ?? []);
    const filters = (resources.length === 0 ? [null] : resources).flatMap((r) =>
      (principals.length === 0 ? [null] : principals).map((p) => resourceFilter(r, p)),
    );
    const listed = (await Promise.all(filters.map((f) => admin.describeAcls(f)))).flat();
    await printByResource('Current ACLs for resource', listed);
  });
}

export const aclsCommand: Command = { usage: USAGE, run };
