/**
 * The per-resource work both AlterConfigs forms share: resolve each entry's resource (a topic,
 * this broker by its id, the cluster-wide broker default "", this broker's loggers, or a group) and replace its overrides with
 * the set the form computes, once the principal may ALTER_CONFIGS it. The forms differ only in
 * how that set is computed.
 */
import type { DynamicScope } from '../metadata/metadata-image.js';
import { BROKER_CONFIG_BY_NAME, TOPIC_CONFIG_BY_NAME } from '../metadata/config/config-definitions.js';
import { GROUP_CONFIG_BY_NAME } from '../metadata/config/group-configs.js';
import { loggerResourceProblem, replaceLoggerLevels } from './broker-logger-configs.js';
import type { AlterationTarget } from '../metadata/config/config-operations.js';
import type { AdminResult } from '../metadata/admin/topic-admin.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { ResourceType, clusterOf, type ClusterContext } from './cluster-context.js';
import { AclOperation, configResourceRefusal } from './authorization.js';
import type { RequestContext } from './handler.js';

export interface ResolvedResource extends AlterationTarget {
  replace(overrides: ReadonlyMap<string, string>, validateOnly: boolean): Promise<AdminResult>;
}

function resolveResource(c: ClusterContext, resourceType: number, resourceName: string): ResolvedResource | AdminResult {
  if (resourceType === ResourceType.TOPIC) {
    const topic = c.metadata.topic(resourceName);
    if (topic === undefined)
      return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: `The topic '${resourceName}' does not exist.` };
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
      return {
        errorCode: ErrorCode.INVALID_REQUEST,
        errorMessage: `Unexpected broker id, expected ${nodeId} or empty string, but received ${resourceName}`,
      };
    }
    const scope: DynamicScope = resourceName === '' ? 'clusterDefault' : 'node';
    return {
      overrides: c.metadata.dynamicConfigs(scope),
      definition: (name) => BROKER_CONFIG_BY_NAME.get(name),
      effective: (name) => c.configs.brokerValue(name),
      replace: (overrides, validateOnly) => c.admin.setBrokerConfigs(scope, overrides, validateOnly),
    };
  }
  if (resourceType === ResourceType.BROKER_LOGGER) {
    const problem = loggerResourceProblem(c.nodeId, resourceName);
    if (problem !== null) return problem;
    return {
      overrides: c.brokerLoggers.explicitLevels(),
      definition: () => undefined,
      effective: (name) => c.brokerLoggers.level(name),
      replace: (next, validateOnly) => Promise.resolve(replaceLoggerLevels(c.brokerLoggers, next, validateOnly)),
    };
  }
  if (resourceType === ResourceType.GROUP) {
    if (resourceName === '') return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Group name must not be empty' };
    const overrides = c.metadata.groupConfigs(resourceName);
    return {
      overrides,
      definition: (name) => GROUP_CONFIG_BY_NAME.get(name),
      effective: (name) => c.configs.groupValue(resourceName, name),
      replace: (next, validateOnly) => c.admin.setGroupConfigs(resourceName, next, validateOnly),
    };
  }
  return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unsupported resource type ${resourceType}` };
}

function isResolved(r: ResolvedResource | AdminResult): r is ResolvedResource {
  return 'replace' in r;
}

/** The fields of an AlterConfigs or IncrementalAlterConfigs resource entry the loop reads. */
interface ResourceEntry {
  readonly resourceType: number;
  readonly resourceName: string;
}

export interface ResourceResult extends AdminResult {
  readonly resourceType: number;
  readonly resourceName: string;
}

/** A form's new override set for a resolved entry, or the error that refuses the entry. */
export type OverridesFor<E> = (entry: E, target: ResolvedResource) => ReadonlyMap<string, string> | AdminResult;

/**
 * Answers every entry in request order, one after another so that two entries naming the same
 * resource apply in the order they were sent.
 */
export async function alterResources<E extends ResourceEntry>(
  ctx: RequestContext,
  entries: readonly E[],
  validateOnly: boolean,
  overridesFor: OverridesFor<E>,
): Promise<ResourceResult[]> {
  const c = clusterOf(ctx);
  const results: ResourceResult[] = [];
  for (const entry of entries) {
    const refused = configResourceRefusal(ctx, AclOperation.ALTER_CONFIGS, entry.resourceType, entry.resourceName);
    const result =
      refused !== null ? { errorCode: refused, errorMessage: null } : await alterResource(c, entry, validateOnly, overridesFor);
    results.push({ ...result, resourceType: entry.resourceType, resourceName: entry.resourceName });
  }
  return results;
}

async function alterResource<E extends ResourceEntry>(
  c: ClusterContext,
  entry: E,
  validateOnly: boolean,
  overridesFor: OverridesFor<E>,
): Promise<AdminResult> {
  const target = resolveResource(c, entry.resourceType, entry.resourceName);
  if (!isResolved(target)) return target;
  const overrides = overridesFor(entry, target);
  if ('errorCode' in overrides) return overrides;
  return target.replace(overrides, validateOnly);
}
