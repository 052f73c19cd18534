/**
 * Binding filters as Kafka's `AclBindingFilter` reads them (DescribeAcls, DeleteAcls): ANY
 * matches every value, a null name/principal/host matches every one, and the MATCH pattern type
 * selects the patterns that would apply to the named resource (the LITERAL name, the LITERAL
 * wildcard, the PREFIXED patterns that are prefixes of the name). Also the validation CreateAcls
 * and the filters get, with Kafka's messages.
 */
import {
  AclOperation,
  PatternType,
  PermissionType,
  ResourceType,
  WILDCARD_RESOURCE,
  CLUSTER_NAME,
  type AccessControlEntry,
  type AclBinding,
  type ResourcePattern,
} from './acl-types.js';

export interface ResourcePatternFilter {
  readonly resourceType: ResourceType;
  readonly name: string | null;
  readonly patternType: PatternType;
}

export interface AccessControlEntryFilter {
  readonly principal: string | null;
  readonly host: string | null;
  readonly operation: AclOperation;
  readonly permissionType: PermissionType;
}

export interface AclBindingFilter {
  readonly pattern: ResourcePatternFilter;
  readonly entry: AccessControlEntryFilter;
}

export const MATCH_ALL_FILTER: AclBindingFilter = {
  pattern: { resourceType: ResourceType.ANY, name: null, patternType: PatternType.ANY },
  entry: { principal: null, host: null, operation: AclOperation.ANY, permissionType: PermissionType.ANY },
};

export function patternMatches(filter: ResourcePatternFilter, pattern: ResourcePattern): boolean {
  if (filter.resourceType !== ResourceType.ANY && filter.resourceType !== pattern.resourceType) return false;
  if (filter.patternType !== PatternType.ANY && filter.patternType !== PatternType.MATCH && filter.patternType !== pattern.patternType) return false;
  if (filter.name === null) return true;
  if (filter.patternType !== PatternType.MATCH) return filter.name === pattern.name;
  if (pattern.patternType === PatternType.LITERAL) return filter.name === pattern.name || pattern.name === WILDCARD_RESOURCE;
  return pattern.patternType === PatternType.PREFIXED && filter.name.startsWith(pattern.name);
}

export function entryMatches(filter: AccessControlEntryFilter, entry: AccessControlEntry): boolean {
  return (
    (filter.principal === null || filter.principal === entry.principal) &&
    (filter.host === null || filter.host === entry.host) &&
    (filter.operation === AclOperation.ANY || filter.operation === entry.operation) &&
    (filter.permissionType === PermissionType.ANY || filter.permissionType === entry.permissionType)
  );
}

export function bindingMatches(filter: AclBindingFilter, binding: AclBinding): boolean {
  return patternMatches(filter.pattern, binding.pattern) && entryMatches(filter.entry, binding.entry);
}

const isKnown = <T extends number>(values: Record<string, T>, v: number): boolean => v !== 0 && Object.values(values).includes(v as T);

/** Why a filter cannot be served (Kafka: "contains UNKNOWN elements"), or null. */
export function filterProblem(filter: AclBindingFilter): string | null {
  const known =
    isKnown(ResourceType, filter.pattern.resourceType) &&
    isKnown(PatternType, filter.pattern.patternType) &&
    isKnown(AclOperation, filter.entry.operation) &&
    isKnown(PermissionType, filter.entry.permissionType);
  return known ? null : 'The filter must not contain UNKNOWN elements.';
}

/** Kafka's `KafkaPrincipal.fromString`: `<type>:<name>`, both non-empty. */
export function principalProblem(principal: string): string | null {
  const colon = principal.indexOf(':');
  return colon > 0 && colon < principal.length - 1 ? null : `Could not parse principal from \`${principal}\` (no colon is present separating the principal type from the principal name)`;
}

/** Why a binding cannot be created, or null: every field concrete, the cluster named `kafka-cluster`, a name, a parseable principal. */
export function bindingProblem(b: AclBinding): string | null {
  const { pattern, entry } = b;
  if (!isKnown(ResourceType, pattern.resourceType) || pattern.resourceType === ResourceType.ANY) return 'Invalid resource type: the ACL must name a concrete resource type.';
  if (pattern.patternType !== PatternType.LITERAL && pattern.patternType !== PatternType.PREFIXED) return 'Invalid pattern type: the ACL must be LITERAL or PREFIXED.';
  if (!isKnown(AclOperation, entry.operation) || entry.operation === AclOperation.ANY) return 'Invalid operation: the ACL must name a concrete operation.';
  if (entry.permissionType !== PermissionType.ALLOW && entry.permissionType !== PermissionType.DENY) return 'Invalid permission type: the ACL must be ALLOW or DENY.';
  if (pattern.name.length === 0) return 'Invalid empty resource name specified';
  if (pattern.resourceType === ResourceType.CLUSTER && (pattern.patternType !== PatternType.LITERAL || pattern.name !== CLUSTER_NAME)) {
    return `The only valid name for the CLUSTER resource is ${CLUSTER_NAME}`;
  }
  if (entry.host.length === 0) return 'Invalid empty host specified';
  return principalProblem(entry.principal);
}
