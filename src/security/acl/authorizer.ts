/**
 * Decides one action as Apache Kafka's authorizers (`AclAuthorizer`, `StandardAuthorizer`) do:
 * a super user may do everything; otherwise the ACLs that apply to the resource (its LITERAL
 * name, the LITERAL `*`, the PREFIXED patterns its name starts with) are read for the principal
 * (or `User:*`) and the client host (or `*`). A matching DENY of the operation (or ALL) wins;
 * else a matching ALLOW of the operation, of ALL, or of an operation that implies it (READ,
 * WRITE, DELETE and ALTER imply DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS) allows it.
 * A resource no ACL applies to is allowed only with `allow.everyone.if.no.acl.found`.
 */
import { type AclSet } from './acl-set.js';
import {
  AclOperation,
  PatternType,
  PermissionType,
  ResourceType,
  WILDCARD_HOST,
  WILDCARD_PRINCIPAL,
  WILDCARD_RESOURCE,
  type AccessControlEntry,
} from '@sluice/protocol/acl/acl-types.js';

/** Who asks: the connection's Session satisfies it. */
export interface Requester {
  readonly principal: string;
  readonly clientHost: string;
}

export interface AuthorizerConfig {
  /** `super.users`: principals allowed everything. */
  readonly superUsers: readonly string[];
  /** `allow.everyone.if.no.acl.found`. */
  readonly allowEveryoneIfNoAclFound: boolean;
}

/** `authorizer.class.name` values that switch authorization on (Kafka's ZooKeeper-era and KRaft authorizers). */
export const AUTHORIZER_CLASS_NAMES: readonly string[] = [
  'kafka.security.authorizer.AclAuthorizer',
  'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
];

/** `super.users`: semicolon-separated principals, blanks ignored. */
export function parseSuperUsers(value: string): string[] {
  return value
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** The operations each resource type supports: the bits of an "authorized operations" answer. */
export const SUPPORTED_OPERATIONS: Readonly<Partial<Record<ResourceType, readonly AclOperation[]>>> = {
  [ResourceType.TOPIC]: [
    AclOperation.READ,
    AclOperation.WRITE,
    AclOperation.CREATE,
    AclOperation.DESCRIBE,
    AclOperation.DELETE,
    AclOperation.ALTER,
    AclOperation.DESCRIBE_CONFIGS,
    AclOperation.ALTER_CONFIGS,
  ],
  [ResourceType.GROUP]: [
    AclOperation.READ,
    AclOperation.DESCRIBE,
    AclOperation.DELETE,
    AclOperation.DESCRIBE_CONFIGS,
    AclOperation.ALTER_CONFIGS,
  ],
  [ResourceType.CLUSTER]: [
    AclOperation.CREATE,
    AclOperation.CLUSTER_ACTION,
    AclOperation.DESCRIBE_CONFIGS,
    AclOperation.ALTER_CONFIGS,
    AclOperation.IDEMPOTENT_WRITE,
    AclOperation.ALTER,
    AclOperation.DESCRIBE,
  ],
};

/** Kafka's implications: an ALLOW of any of these operations allows the key. */
const IMPLIED_BY: ReadonlyMap<AclOperation, readonly AclOperation[]> = new Map<AclOperation, readonly AclOperation[]>([
  [AclOperation.DESCRIBE, [AclOperation.DESCRIBE, AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE, AclOperation.ALTER]],
  [AclOperation.DESCRIBE_CONFIGS, [AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS]],
]);

/** Kafka compares host addresses; Node shows IPv4 clients of a dual-stack socket as IPv4-mapped IPv6. */
function hostAddress(clientHost: string): string {
  return clientHost.startsWith('::ffff:') && clientHost.includes('.') ? clientHost.slice('::ffff:'.length) : clientHost;
}

function appliesTo(entry: AccessControlEntry, who: Requester): boolean {
  return (
    (entry.principal === who.principal || entry.principal === WILDCARD_PRINCIPAL) &&
    (entry.host === WILDCARD_HOST || entry.host === hostAddress(who.clientHost))
  );
}

function grants(entry: AccessControlEntry, permission: PermissionType, operations: readonly AclOperation[]): boolean {
  return entry.permissionType === permission && (entry.operation === AclOperation.ALL || operations.includes(entry.operation));
}

export class Authorizer {
  private readonly superUsers: ReadonlySet<string>;

  constructor(
    private readonly config: AuthorizerConfig,
    /** The current ACLs, read per decision (a change replaces the set). */
    private readonly acls: () => AclSet,
  ) {
    this.superUsers = new Set(config.superUsers);
  }

  isSuperUser(who: Requester): boolean {
    return this.superUsers.has(who.principal);
  }

  authorize(who: Requester, operation: AclOperation, resourceType: ResourceType, name: string): boolean {
    if (this.isSuperUser(who)) return true;
    const entries = this.acls().applicable(resourceType, name);
    if (entries.length === 0) return this.config.allowEveryoneIfNoAclFound;
    const mine = entries.filter((e) => appliesTo(e, who));
    if (mine.some((e) => grants(e, PermissionType.DENY, [operation]))) return false;
    return mine.some((e) => grants(e, PermissionType.ALLOW, IMPLIED_BY.get(operation) ?? [operation]));
  }

  /**
   * Kafka's `authorizeByResourceType`: whether some resource of the type (any name) allows the
   * operation and no DENY covers it — how an idempotent producer without WRITE on the cluster is
   * let through by WRITE on some topic.
   */
  authorizeByResourceType(who: Requester, operation: AclOperation, resourceType: ResourceType): boolean {
    // A name no ACL can be about: super users and `allow.everyone.if.no.acl.found` decide alone.
    if (this.authorize(who, operation, resourceType, 'hardcode')) return true;
    const denyLiteral = new Set<string>();
    const denyPrefixes: string[] = [];
    const allowLiteral: string[] = [];
    const allowPrefixes: string[] = [];
    for (const { pattern, entries } of this.acls().ofType(resourceType)) {
      for (const e of entries) {
        if (!appliesTo(e, who) || (e.operation !== operation && e.operation !== AclOperation.ALL)) continue;
        const deny = e.permissionType === PermissionType.DENY;
        if (pattern.patternType === PatternType.PREFIXED) (deny ? denyPrefixes : allowPrefixes).push(pattern.name);
        else if (deny) denyLiteral.add(pattern.name);
        else allowLiteral.push(pattern.name);
      }
    }
    if (denyLiteral.has(WILDCARD_RESOURCE)) return false;
    const deniedByPrefix = (name: string): boolean => denyPrefixes.some((p) => name.startsWith(p));
    return (
      allowLiteral.some((n) => n === WILDCARD_RESOURCE || (!denyLiteral.has(n) && !deniedByPrefix(n))) ||
      allowPrefixes.some((p) => !deniedByPrefix(p))
    );
  }

  /** Kafka's authorized-operations bit set (bit = operation code) of a resource, over the operations its type supports. */
  authorizedOperations(who: Requester, resourceType: ResourceType, name: string): number {
    let bits = 0;
    for (const op of SUPPORTED_OPERATIONS[resourceType] ?? []) if (this.authorize(who, op, resourceType, name)) bits |= 1 << op;
    return bits;
  }
}
