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
  type IncrementalAlterConfigsResponseDataInput,
} from '../protocol/messages/index.js';
import { applyAlterations } from '../cluster/config-operations.js';
import type { AdminResult } from '../cluster/topic-admin.js';
import { defineHandler } from './handler.js';
import { alterResources, type ResolvedResource } from './alter-config-targets.js';

function overridesOf(r: IncrementalAlterConfigsRequestAlterConfigsResource, target: ResolvedResource): ReadonlyMap<string, string> | AdminResult {
  return applyAlterations(
    target,
    r.configs.map((a) => ({ name: a.name, operation: a.configOperation, value: a.value })),
  );
}

export const incrementalAlterConfigsHandler = defineHandler({
  request: IncrementalAlterConfigsRequest,
  response: IncrementalAlterConfigsResponse,
  async handle(request, ctx): Promise<IncrementalAlterConfigsResponseDataInput> {
    return { responses: await alterResources(ctx, request.resources, request.validateOnly, overridesOf) };
  },
});
