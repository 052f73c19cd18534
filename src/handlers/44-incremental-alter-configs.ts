/**
 * IncrementalAlterConfigs (key 44): SET, DELETE, APPEND and SUBTRACT on single keys of a topic
 * or broker resource; the other overrides stay. Topic changes take effect live through
 * `PartitionAdmin.updateTopicConfig`. Kafka answers an unknown operation with
 * UNKNOWN_SERVER_ERROR; this broker answers INVALID_REQUEST, which names the problem.
 */
import {
  IncrementalAlterConfigsRequest,
  IncrementalAlterConfigsResponse,
  type IncrementalAlterConfigsRequestAlterConfigsResource,
  type IncrementalAlterConfigsResponseAlterConfigsResourceResponseInput,
  type IncrementalAlterConfigsResponseDataInput,
} from '../protocol/messages/index.js';
import { applyAlterations } from '../cluster/config-operations.js';
import type { AdminResult } from '../cluster/topic-admin.js';
import { defineHandler } from './handler.js';
import { clusterOf, type ClusterContext } from './cluster-context.js';
import { isResolved, resolveResource } from './alter-config-targets.js';

async function alter(c: ClusterContext, r: IncrementalAlterConfigsRequestAlterConfigsResource, validateOnly: boolean): Promise<AdminResult> {
  const target = resolveResource(c, r.resourceType, r.resourceName);
  if (!isResolved(target)) return target;
  const next = applyAlterations(
    target,
    r.configs.map((a) => ({ name: a.name, operation: a.configOperation, value: a.value })),
  );
  if (!(next instanceof Map)) return next;
  return target.replace(next, validateOnly);
}

export const incrementalAlterConfigsHandler = defineHandler({
  request: IncrementalAlterConfigsRequest,
  response: IncrementalAlterConfigsResponse,
  async handle(request, ctx): Promise<IncrementalAlterConfigsResponseDataInput> {
    const c = clusterOf(ctx);
    const responses: IncrementalAlterConfigsResponseAlterConfigsResourceResponseInput[] = [];
    for (const r of request.resources) {
      const result = await alter(c, r, request.validateOnly);
      responses.push({ ...result, resourceType: r.resourceType, resourceName: r.resourceName });
    }
    return { responses };
  },
});
