/**
 * ListConfigResources (key 74, KIP-1142; v0 was ListClientMetricsResources): the resources that
 * have configurations, of the types asked for (all when none are). As Kafka 4.4 answers: each
 * broker's logger and the broker itself, every topic (internal ones included), and the client
 * metrics subscriptions and groups that have configs (Sluice has no client metrics). v0
 * lists only client metrics resources. A type that has no configurations is UNSUPPORTED_VERSION.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  ListConfigResourcesRequest,
  ListConfigResourcesResponse,
  type ListConfigResourcesResponseConfigResourceInput,
} from '@sluice/protocol/messages/index.js';
import { AclOperation, authorizedOnCluster } from './authorization.js';
import { clusterOf, ResourceType, type ClusterContext } from './cluster-context.js';
import { defineHandler } from './handler.js';

/** The order Kafka 4.4 lists the types in. */
const LISTED_TYPES: readonly number[] = [
  ResourceType.BROKER_LOGGER,
  ResourceType.BROKER,
  ResourceType.TOPIC,
  ResourceType.CLIENT_METRICS,
  ResourceType.GROUP,
];
const FIRST_VERSION_WITH_TYPES = 1;

function resourcesOf(c: ClusterContext, type: number): ListConfigResourcesResponseConfigResourceInput[] {
  const named = (names: readonly string[]): ListConfigResourcesResponseConfigResourceInput[] =>
    names.map((resourceName) => ({ resourceName, resourceType: type }));
  switch (type) {
    case ResourceType.BROKER_LOGGER:
      return named([String(c.nodeId)]);
    case ResourceType.BROKER:
      return named(c.metadata.brokers().map((b) => String(b.nodeId)));
    case ResourceType.TOPIC:
      return named(c.metadata.topics().map((t) => t.name));
    case ResourceType.GROUP:
      return named(c.metadata.configuredGroups());
    default:
      return [];
  }
}

export const listConfigResourcesHandler = defineHandler({
  request: ListConfigResourcesRequest,
  response: ListConfigResourcesResponse,
  handle(request, ctx) {
    const c = clusterOf(ctx);
    if (!authorizedOnCluster(ctx, AclOperation.DESCRIBE_CONFIGS))
      return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, configResources: [] };
    if (ctx.header.requestApiVersion < FIRST_VERSION_WITH_TYPES) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, configResources: resourcesOf(c, ResourceType.CLIENT_METRICS) };
    }
    const asked = new Set(request.resourceTypes);
    if ([...asked].some((t) => !LISTED_TYPES.includes(t))) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.UNSUPPORTED_VERSION, configResources: [] };
    }
    const types = asked.size === 0 ? LISTED_TYPES : LISTED_TYPES.filter((t) => asked.has(t));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, configResources: types.flatMap((t) => resourcesOf(c, t)) };
  },
});
