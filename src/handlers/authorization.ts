/**
 * The one place handlers ask whether the request's principal may do something, as Kafka's
 * `AuthHelper` does for `KafkaApis`: each handler names the operation and resource Kafka checks
 * for its API (the table is in docs/design/acls.md), and gets Kafka's answer code for a refusal.
 * Without an authorizer every question is answered yes and the authorized-operations bit sets
 * are Kafka's "everything" sets. ApiVersions, SaslHandshake and SaslAuthenticate never ask.
 */
import { AclOperation, CLUSTER_NAME, ResourceType } from '../security/acl/index.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  ALL_CLUSTER_OPERATIONS,
  ALL_TOPIC_OPERATIONS,
  OPERATIONS_NOT_REQUESTED,
  ResourceType as ConfigResourceType,
  clusterOf,
} from './cluster-context.js';
import type { RequestContext } from './handler.js';

export { AclOperation, ResourceType };

/** The message of Kafka's ClusterAuthorizationException where a response carries one. */
export const CLUSTER_AUTHORIZATION_MESSAGE = 'Cluster authorization failed.';

/** Kafka's "everything" group bit set: READ, DELETE, DESCRIBE, and since group configs (KIP-848) DESCRIBE_CONFIGS and ALTER_CONFIGS. */
const ALL_GROUP_OPERATIONS =
  (1 << AclOperation.READ) |
  (1 << AclOperation.DELETE) |
  (1 << AclOperation.DESCRIBE) |
  (1 << AclOperation.DESCRIBE_CONFIGS) |
  (1 << AclOperation.ALTER_CONFIGS);

const EVERYTHING: Partial<Record<ResourceType, number>> = {
  [ResourceType.TOPIC]: ALL_TOPIC_OPERATIONS,
  [ResourceType.CLUSTER]: ALL_CLUSTER_OPERATIONS,
  [ResourceType.GROUP]: ALL_GROUP_OPERATIONS,
};

export function authorized(ctx: RequestContext, operation: AclOperation, resourceType: ResourceType, name: string): boolean {
  const authorizer = clusterOf(ctx).authorizer;
  return authorizer === null || authorizer.authorize(ctx.session, operation, resourceType, name);
}

export function authorizedOnCluster(ctx: RequestContext, operation: AclOperation): boolean {
  return authorized(ctx, operation, ResourceType.CLUSTER, CLUSTER_NAME);
}

/** Kafka's `authorizeByResourceType`: the operation allowed on some resource of the type. */
export function authorizedOnSomeResource(ctx: RequestContext, operation: AclOperation, resourceType: ResourceType): boolean {
  const authorizer = clusterOf(ctx).authorizer;
  return authorizer === null || authorizer.authorizeByResourceType(ctx.session, operation, resourceType);
}

/**
 * A per-request test of names of one resource type, deciding each name once however often the
 * request names it (Kafka's `filterByAuthorized`).
 */
export function authorizedNames(ctx: RequestContext, operation: AclOperation, resourceType: ResourceType): (name: string) => boolean {
  if (clusterOf(ctx).authorizer === null) return () => true;
  const decided = new Map<string, boolean>();
  return (name) => {
    let allowed = decided.get(name);
    if (allowed === undefined) {
      allowed = authorized(ctx, operation, resourceType, name);
      decided.set(name, allowed);
    }
    return allowed;
  };
}

/**
 * The authorized-operations bit set of a resource, or Kafka's "not requested" marker; none at
 * all for a principal that may not DESCRIBE the resource, as Kafka answers.
 */
export function authorizedOperations(ctx: RequestContext, requested: boolean, resourceType: ResourceType, name: string): number {
  if (!requested) return OPERATIONS_NOT_REQUESTED;
  const authorizer = clusterOf(ctx).authorizer;
  if (authorizer === null) return EVERYTHING[resourceType] ?? 0;
  const bits = authorizer.authorizedOperations(ctx.session, resourceType, name);
  return (bits & (1 << AclOperation.DESCRIBE)) === 0 ? 0 : bits;
}

/**
 * Kafka's check of a config resource (DescribeConfigs, AlterConfigs, IncrementalAlterConfigs):
 * the operation on the topic, on the group, or on the cluster for broker, broker-logger and
 * client-metrics resources. The refusal's code, or null when allowed.
 */
export function configResourceRefusal(
  ctx: RequestContext,
  operation: AclOperation,
  configResourceType: number,
  name: string,
): number | null {
  if (configResourceType === ConfigResourceType.TOPIC)
    return authorized(ctx, operation, ResourceType.TOPIC, name) ? null : ErrorCode.TOPIC_AUTHORIZATION_FAILED;
  if (configResourceType === ConfigResourceType.GROUP)
    return authorized(ctx, operation, ResourceType.GROUP, name) ? null : ErrorCode.GROUP_AUTHORIZATION_FAILED;
  return authorizedOnCluster(ctx, operation) ? null : ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
}
