/**
 * Kafka's ACL vocabulary with its numeric codes, which are the wire values of DescribeAcls,
 * CreateAcls and DeleteAcls, and the names Kafka's ZooKeeper layout and tools print.
 */

export const ResourceType = {
  UNKNOWN: 0,
  ANY: 1,
  TOPIC: 2,
  GROUP: 3,
  CLUSTER: 4,
  TRANSACTIONAL_ID: 5,
  DELEGATION_TOKEN: 6,
  USER: 7,
} as const;
export type ResourceType = (typeof ResourceType)[keyof typeof ResourceType];

export const PatternType = { UNKNOWN: 0, ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const;
export type PatternType = (typeof PatternType)[keyof typeof PatternType];

export const AclOperation = {
  UNKNOWN: 0,
  ANY: 1,
  ALL: 2,
  READ: 3,
  WRITE: 4,
  CREATE: 5,
  DELETE: 6,
  ALTER: 7,
  DESCRIBE: 8,
  CLUSTER_ACTION: 9,
  DESCRIBE_CONFIGS: 10,
  ALTER_CONFIGS: 11,
  IDEMPOTENT_WRITE: 12,
  CREATE_TOKENS: 13,
  DESCRIBE_TOKENS: 14,
} as const;
export type AclOperation = (typeof AclOperation)[keyof typeof AclOperation];

export const PermissionType = { UNKNOWN: 0, ANY: 1, DENY: 2, ALLOW: 3 } as const;
export type PermissionType = (typeof PermissionType)[keyof typeof PermissionType];

/** The one cluster resource's name. */
export const CLUSTER_NAME = 'kafka-cluster';
/** A LITERAL resource name that matches every resource of its type. */
export const WILDCARD_RESOURCE = '*';
/** An ACL principal that matches every user. */
export const WILDCARD_PRINCIPAL = 'User:*';
/** An ACL host that matches every client address. */
export const WILDCARD_HOST = '*';

export interface ResourcePattern {
  readonly resourceType: ResourceType;
  readonly name: string;
  readonly patternType: PatternType;
}

export interface AccessControlEntry {
  readonly principal: string;
  readonly host: string;
  readonly operation: AclOperation;
  readonly permissionType: PermissionType;
}

export interface AclBinding {
  readonly pattern: ResourcePattern;
  readonly entry: AccessControlEntry;
}

/** Kafka's `SecurityUtils.resourceTypeName`: the names of the ZooKeeper layout and of kafka-acls.sh. */
const RESOURCE_TYPE_NAMES: ReadonlyMap<ResourceType, string> = new Map<ResourceType, string>([
  [ResourceType.TOPIC, 'Topic'],
  [ResourceType.GROUP, 'Group'],
  [ResourceType.CLUSTER, 'Cluster'],
  [ResourceType.TRANSACTIONAL_ID, 'TransactionalId'],
  [ResourceType.DELEGATION_TOKEN, 'DelegationToken'],
  [ResourceType.USER, 'User'],
]);

const OPERATION_NAMES: ReadonlyMap<AclOperation, string> = new Map<AclOperation, string>([
  [AclOperation.ALL, 'All'],
  [AclOperation.READ, 'Read'],
  [AclOperation.WRITE, 'Write'],
  [AclOperation.CREATE, 'Create'],
  [AclOperation.DELETE, 'Delete'],
  [AclOperation.ALTER, 'Alter'],
  [AclOperation.DESCRIBE, 'Describe'],
  [AclOperation.CLUSTER_ACTION, 'ClusterAction'],
  [AclOperation.DESCRIBE_CONFIGS, 'DescribeConfigs'],
  [AclOperation.ALTER_CONFIGS, 'AlterConfigs'],
  [AclOperation.IDEMPOTENT_WRITE, 'IdempotentWrite'],
  [AclOperation.CREATE_TOKENS, 'CreateTokens'],
  [AclOperation.DESCRIBE_TOKENS, 'DescribeTokens'],
]);

const PERMISSION_NAMES: ReadonlyMap<PermissionType, string> = new Map<PermissionType, string>([
  [PermissionType.ALLOW, 'Allow'],
  [PermissionType.DENY, 'Deny'],
]);

/** The operations an ACL can name (every one but UNKNOWN and ANY). */
export const CONCRETE_OPERATIONS: readonly AclOperation[] = [...OPERATION_NAMES.keys()];

function nameOf<T>(names: ReadonlyMap<T, string>, value: T, what: string): string {
  const name = names.get(value);
  if (name === undefined) throw new RangeError(`${String(value)} is not a concrete ${what}`);
  return name;
}

/** Case-insensitive, as Kafka parses ZooKeeper data and tool arguments (`Topic`, `topic`, `TOPIC`; `DescribeConfigs`, `describe_configs`). */
function valueOf<T>(names: ReadonlyMap<T, string>, name: string): T | undefined {
  const wanted = name.replace(/_/g, '').toLowerCase();
  for (const [value, n] of names) if (n.toLowerCase() === wanted) return value;
  return undefined;
}

export const resourceTypeName = (t: ResourceType): string => nameOf(RESOURCE_TYPE_NAMES, t, 'resource type');
export const operationName = (op: AclOperation): string => nameOf(OPERATION_NAMES, op, 'operation');
export const permissionTypeName = (p: PermissionType): string => nameOf(PERMISSION_NAMES, p, 'permission type');
export const parseResourceType = (name: string): ResourceType | undefined => valueOf(RESOURCE_TYPE_NAMES, name);
export const parseOperation = (name: string): AclOperation | undefined => valueOf(OPERATION_NAMES, name);
export const parsePermissionType = (name: string): PermissionType | undefined => valueOf(PERMISSION_NAMES, name);

/** Kafka's pattern type names (`LITERAL`, `PREFIXED`, ...), as the extended ZooKeeper layout and kafka-acls.sh spell them. */
const PATTERN_TYPE_NAMES: ReadonlyMap<PatternType, string> = new Map<PatternType, string>([
  [PatternType.ANY, 'ANY'],
  [PatternType.MATCH, 'MATCH'],
  [PatternType.LITERAL, 'LITERAL'],
  [PatternType.PREFIXED, 'PREFIXED'],
]);
export const patternTypeName = (p: PatternType): string => nameOf(PATTERN_TYPE_NAMES, p, 'pattern type');
export const parsePatternType = (name: string): PatternType | undefined => valueOf(PATTERN_TYPE_NAMES, name);

/** Java's enum spelling of a name (`TransactionalId` → `TRANSACTIONAL_ID`), as Kafka prints bindings and ACL change notifications. */
export function enumName(name: string): string {
  return name.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
}

/** One string per pattern, for maps keyed by resource. */
export function patternKey(p: ResourcePattern): string {
  return `${p.resourceType}:${p.patternType}:${p.name}`;
}

export function sameEntry(a: AccessControlEntry, b: AccessControlEntry): boolean {
  return a.principal === b.principal && a.host === b.host && a.operation === b.operation && a.permissionType === b.permissionType;
}
