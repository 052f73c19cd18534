/**
 * The ACL APIs' wire fields as the security layer's bindings and filters (the numeric codes are
 * the same), and what they share: the refusals Kafka answers before looking at any ACL.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  type AclOperation,
  type AclBinding,
  type AclBindingFilter,
  type PatternType,
  type PermissionType,
  type ResourceType,
} from '../security/acl/index.js';
import { authorizedOnCluster } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import type { RequestContext } from './handler.js';

export interface WireFilter {
  readonly resourceTypeFilter: number;
  readonly resourceNameFilter: string | null;
  readonly patternTypeFilter: number;
  readonly principalFilter: string | null;
  readonly hostFilter: string | null;
  readonly operation: number;
  readonly permissionType: number;
}

export interface WireCreation {
  readonly resourceType: number;
  readonly resourceName: string;
  readonly resourcePatternType: number;
  readonly principal: string;
  readonly host: string;
  readonly operation: number;
  readonly permissionType: number;
}

/** The codes are checked by `filterProblem`/`bindingProblem`; an unknown one reads as itself and fails there. */
export function filterOf(f: WireFilter): AclBindingFilter {
  return {
    pattern: {
      resourceType: f.resourceTypeFilter as ResourceType,
      name: f.resourceNameFilter,
      patternType: f.patternTypeFilter as PatternType,
    },
    entry: {
      principal: f.principalFilter,
      host: f.hostFilter,
      operation: f.operation as AclOperation,
      permissionType: f.permissionType as PermissionType,
    },
  };
}

export function bindingOf(c: WireCreation): AclBinding {
  return {
    pattern: { resourceType: c.resourceType as ResourceType, name: c.resourceName, patternType: c.resourcePatternType as PatternType },
    entry: {
      principal: c.principal,
      host: c.host,
      operation: c.operation as AclOperation,
      permissionType: c.permissionType as PermissionType,
    },
  };
}

export interface Refusal {
  readonly errorCode: number;
  readonly errorMessage: string;
}

/**
 * As Kafka: the principal must have `operation` on the cluster (DESCRIBE to list ACLs, ALTER to
 * change them), and without an authorizer there are no ACLs to serve (SECURITY_DISABLED).
 */
export function aclApiRefusal(ctx: RequestContext, operation: typeof AclOperation.DESCRIBE | typeof AclOperation.ALTER): Refusal | null {
  if (!authorizedOnCluster(ctx, operation))
    return { errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.' };
  if (clusterOf(ctx).authorizer === null) return { errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: 'No Authorizer is configured.' };
  return null;
}
