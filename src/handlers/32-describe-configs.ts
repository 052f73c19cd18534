/**
 * DescribeConfigs (key 32): topic and broker configuration with Kafka's sources, synonyms (when
 * asked), documentation (when asked), types and read-only flags. The broker resource named by
 * this node's id describes every broker key; the resource "" describes the cluster-wide dynamic
 * defaults only, as Kafka does. A group (GROUP resource) describes every group key, whether or not
 * the group exists, each from its override or its broker synonym. This broker's loggers
 * (BROKER_LOGGER, named by its id) describe their levels.
 */
import { ERRORS, ErrorCode } from '@sluice/protocol/errors.js';
import {
  DescribeConfigsRequest,
  DescribeConfigsResponse,
  type DescribeConfigsRequestDescribeConfigsResource,
  type DescribeConfigsResponseDataInput,
  type DescribeConfigsResponseDescribeConfigsResultInput,
} from '@sluice/protocol/messages/index.js';
import { BROKER_CONFIGS, CONFIG_TYPE_CODE } from '../metadata/config/config-definitions.js';
import type { ConfigEntry } from '../metadata/config/config-resolver.js';
import { loggerEntries, loggerResourceProblem, type LoggerEntry } from './broker-logger-configs.js';
import { AclOperation, configResourceRefusal } from './authorization.js';
import { defineHandler } from './handler.js';
import { clusterOf, ResourceType, type ClusterContext } from './cluster-context.js';

type Result = DescribeConfigsResponseDescribeConfigsResultInput;

interface Options {
  readonly synonyms: boolean;
  readonly documentation: boolean;
}

function describeEntries(resource: DescribeConfigsRequestDescribeConfigsResource, entries: ConfigEntry[], options: Options): Result {
  const wanted = resource.configurationKeys === null ? null : new Set(resource.configurationKeys);
  return {
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    resourceType: resource.resourceType,
    resourceName: resource.resourceName,
    configs: entries
      .filter((e) => wanted === null || wanted.has(e.definition.name))
      .map((e) => {
        // Passwords and key material are never sent back, as Kafka reports them: null and sensitive.
        const sensitive = e.definition.type === 'password';
        return {
          name: e.definition.name,
          value: sensitive ? null : e.value,
          readOnly: e.readOnly,
          configSource: e.source,
          isSensitive: sensitive,
          synonyms: options.synonyms ? e.synonyms.map((s) => ({ name: s.name, value: sensitive ? null : s.value, source: s.source })) : [],
          configType: CONFIG_TYPE_CODE[e.definition.type],
          documentation: options.documentation ? e.definition.doc : null,
        };
      }),
  };
}

/** Kafka describes loggers with no type, documentation or synonyms. */
function describeLoggers(resource: DescribeConfigsRequestDescribeConfigsResource, entries: LoggerEntry[]): Result {
  const wanted = resource.configurationKeys === null ? null : new Set(resource.configurationKeys);
  return {
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    resourceType: resource.resourceType,
    resourceName: resource.resourceName,
    configs: entries
      .filter((e) => wanted === null || wanted.has(e.name))
      .map((e) => ({
        name: e.name,
        value: e.value,
        readOnly: false,
        configSource: e.source,
        isSensitive: false,
        synonyms: [],
        configType: 0,
        documentation: null,
      })),
  };
}

function error(resource: DescribeConfigsRequestDescribeConfigsResource, errorCode: number, errorMessage?: string): Result {
  return {
    errorCode,
    errorMessage: errorMessage ?? ERRORS.get(errorCode)?.message ?? null,
    resourceType: resource.resourceType,
    resourceName: resource.resourceName,
    configs: [],
  };
}

function describe(c: ClusterContext, resource: DescribeConfigsRequestDescribeConfigsResource, options: Options): Result {
  switch (resource.resourceType) {
    case ResourceType.TOPIC: {
      const topic = c.metadata.topic(resource.resourceName);
      if (topic === undefined) return error(resource, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      return describeEntries(resource, c.configs.topicEntries(topic.configs), options);
    }
    case ResourceType.BROKER: {
      const nodeId = c.nodeId;
      if (resource.resourceName === '') return describeEntries(resource, c.configs.dynamicEntries('clusterDefault'), options);
      if (resource.resourceName !== String(nodeId)) {
        return error(
          resource,
          ErrorCode.INVALID_REQUEST,
          `Unexpected broker id, expected ${nodeId} or empty string, but received ${resource.resourceName}`,
        );
      }
      return describeEntries(
        resource,
        BROKER_CONFIGS.map((d) => c.configs.brokerEntry(d)),
        options,
      );
    }
    case ResourceType.BROKER_LOGGER: {
      const problem = loggerResourceProblem(c.nodeId, resource.resourceName);
      if (problem !== null) return error(resource, problem.errorCode, problem.errorMessage ?? undefined);
      return describeLoggers(resource, loggerEntries(c.brokerLoggers));
    }
    case ResourceType.GROUP:
      if (resource.resourceName === '') return error(resource, ErrorCode.INVALID_REQUEST, 'Group name must not be empty');
      return describeEntries(resource, c.configs.groupEntries(resource.resourceName), options);
    default:
      return error(resource, ErrorCode.INVALID_REQUEST, `Unsupported resource type ${resource.resourceType}`);
  }
}

export const describeConfigsHandler = defineHandler({
  request: DescribeConfigsRequest,
  response: DescribeConfigsResponse,
  handle(request, ctx): DescribeConfigsResponseDataInput {
    const c = clusterOf(ctx);
    const options = { synonyms: request.includeSynonyms, documentation: request.includeDocumentation };
    return {
      results: request.resources.map((r) => {
        const refused = configResourceRefusal(ctx, AclOperation.DESCRIBE_CONFIGS, r.resourceType, r.resourceName);
        return refused === null ? describe(c, r, options) : error(r, refused);
      }),
    };
  },
});
