/**
 * Resolves the resource of an AlterConfigs/IncrementalAlterConfigs entry and applies new
 * overrides to it: a topic, this broker (its id) or the cluster-wide broker default ("").
 */
import type { DynamicScope } from '../cluster/metadata-image.js';
import { BROKER_CONFIG_BY_NAME, TOPIC_CONFIG_BY_NAME } from '../cluster/config-definitions.js';
import type { AlterationTarget } from '../cluster/config-operations.js';
import type { AdminResult } from '../cluster/topic-admin.js';
import { ErrorCode } from '../protocol/errors.js';
import { ResourceType, type ClusterContext } from './cluster-context.js';

export interface ResolvedResource extends AlterationTarget {
  replace(overrides: ReadonlyMap<string, string>, validateOnly: boolean): Promise<AdminResult>;
}

export function resolveResource(c: ClusterContext, resourceType: number, resourceName: string): ResolvedResource | AdminResult {
  if (resourceType === ResourceType.TOPIC) {
    const topic = c.metadata.topic(resourceName);
    if (topic === undefined) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `The topic '${resourceName}' does not exist.` };
    return {
      overrides: topic.configs,
      definition: (name) => TOPIC_CONFIG_BY_NAME.get(name),
      effective: (name) => c.configs.topicValue(name, topic.configs),
      replace: (overrides, validateOnly) => c.admin.setTopicConfigs(resourceName, overrides, validateOnly),
    };
  }
  if (resourceType === ResourceType.BROKER) {
    const nodeId = c.nodeId;
    if (resourceName !== '' && resourceName !== String(nodeId)) {
      return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unexpected broker id, expected ${nodeId} or empty string, but received ${resourceName}` };
    }
    const scope: DynamicScope = resourceName === '' ? 'clusterDefault' : 'node';
    return {
      overrides: c.metadata.dynamicConfigs(scope),
      definition: (name) => BROKER_CONFIG_BY_NAME.get(name),
      effective: (name) => c.configs.brokerValue(name),
      replace: (overrides, validateOnly) => c.admin.setBrokerConfigs(scope, overrides, validateOnly),
    };
  }
  return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unsupported resource type ${resourceType}` };
}

export function isResolved(r: ResolvedResource | AdminResult): r is ResolvedResource {
  return 'replace' in r;
}
