/**
 * Binding filters as Kafka's `AclBindingFilter` reads them (DescribeAcls, DeleteAcls): ANY
 * matches every value, a null name/principal/host matches every one, and the MATCH pattern type
 * selects the patterns that would apply to the named resource (the LITERAL name, the LITERAL
 * wildcard, the PREFIXED patterns that are prefixes of the name). Also the validation CreateAcls
 * and the filters get, with Kafka 4.4's answers and messages.
 */
import { ErrorCode } from '../errors.js';
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
  if (filter.patternType !== PatternType.ANY && filter.patternType !== PatternType.MATCH && filter.patternType !== pattern.patternType)
    return false;
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

/**
 * Whether a filter names an UNKNOWN (or unheard-of) code. Kafka refuses to parse such a request
 * and closes the connection.
 */
export function filterIsUnknown(filter: AclBindingFilter): boolean {
  return !(
    isKnown(ResourceType, filter.pattern.resourceType) &&
    isKnown(PatternType, filter.pattern.patternType) &&
    isKnown(AclOperation, filter.entry.operation) &&
    isKnown(PermissionType, filter.entry.permissionType)
  );
}

export function bindingIsUnknown(b: AclBinding): boolean {
  return filterIsUnknown({ pattern: b.pattern, entry: b.entry });
}

export interface AclRefusal {
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

const invalid = (errorMessage: string): AclRefusal => ({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage });

/**
 * Why Kafka 4.4 refuses to create a binding whose codes are all known, or null: an indefinite
 * field (ANY, MATCH) fails its controller's validation unexpectedly (UNKNOWN_SERVER_ERROR, no
 * message); the cluster must be named `kafka-cluster`; the name and host must not be empty; the
 * principal must be `<type>:<name>`. The messages are Kafka's.
 */
export function bindingRefusal(b: AclBinding): AclRefusal | null {
  const { pattern, entry } = b;
  const indefinite =
    pattern.resourceType === ResourceType.ANY ||
    (pattern.patternType !== PatternType.LITERAL && pattern.patternType !== PatternType.PREFIXED) ||
    entry.operation === AclOperation.ANY ||
    entry.permissionType === PermissionType.ANY;
  if (indefinite) return { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: null };
  if (pattern.resourceType === ResourceType.CLUSTER && pattern.name !== CLUSTER_NAME)
    return invalid(`The only valid name for the CLUSTER resource is ${CLUSTER_NAME}`);
  if (pattern.name.length === 0) return invalid('Invalid empty resource name');
  const principal = principalProblem(entry.principal);
  if (principal !== null) return invalid(principal);
  if (entry.host.length === 0) return invalid('Host pattern cannot be null or empty');
  return null;
}

/** Kafka's principal parsing: `<type>:<name>`, split at the first colon. */
export function principalProblem(principal: string): string | null {
  return principal.includes(':')
    ? null
    : `Could not parse principal from \`${principal}\` (no colon is present separating the principal type from the principal name)`;
}
