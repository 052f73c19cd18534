/**
 * AlterConfigs (key 33), the legacy form: replaces every override of a resource with the
 * given set. Topic changes reach the live logs through `PartitionAdmin.updateTopicConfig`;
 * broker resources accept Kafka's dynamic keys only.
 */
import { ErrorCode } from '../protocol/errors.js';
import {
  AlterConfigsRequest,
  AlterConfigsResponse,
  type AlterConfigsRequestAlterConfigsResource,
  type AlterConfigsResponseAlterConfigsResourceResponseInput,
  type AlterConfigsResponseDataInput,
} from '../protocol/messages/index.js';
import type { AdminResult } from '../cluster/topic-admin.js';
import { defineHandler } from './handler.js';
import { clusterOf, type ClusterContext } from './cluster-context.js';
import { isResolved, resolveResource } from './alter-config-targets.js';

async function alter(c: ClusterContext, r: AlterConfigsRequestAlterConfigsResource, validateOnly: boolean): Promise<AdminResult> {
  const target = resolveResource(c, r.resourceType, r.resourceName);
  if (!isResolved(target)) return target;
  const names = r.configs.map((kv) => kv.name);
  if (new Set(names).size !== names.length) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Error due to duplicate config keys' };
  const overrides = new Map<string, string>();
  for (const kv of r.configs) {
    if (kv.value === null) return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: `Null value not supported for : ${kv.name}` };
    overrides.set(kv.name, kv.value);
  }
  return target.replace(overrides, validateOnly);
}

export const alterConfigsHandler = defineHandler({
  request: AlterConfigsRequest,
  response: AlterConfigsResponse,
  async handle(request, ctx): Promise<AlterConfigsResponseDataInput> {
    const c = clusterOf(ctx);
    const responses: AlterConfigsResponseAlterConfigsResourceResponseInput[] = [];
    for (const r of request.resources) {
      const result = await alter(c, r, request.validateOnly);
      responses.push({ ...result, resourceType: r.resourceType, resourceName: r.resourceName });
    }
    return { responses };
  },
});
