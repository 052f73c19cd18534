/**
 * AlterConfigs (key 33), the legacy form: replaces every override of a resource with the
 * given set. Topic changes reach the live logs through `PartitionAdmin.updateTopicConfig`;
 * broker resources accept Kafka's dynamic keys only.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  AlterConfigsRequest,
  AlterConfigsResponse,
  type AlterConfigsRequestAlterConfigsResource,
  type AlterConfigsResponseDataInput,
} from '@sluice/protocol/messages/index.js';
import type { AdminResult } from '../metadata/admin/topic-admin.js';
import { defineHandler } from './handler.js';
import { alterResources } from './alter-config-targets.js';
import { ResourceType } from './cluster-context.js';

/** The legacy form's new set is exactly the entry's keys; a null value is refused, not a deletion. */
function overridesOf(r: AlterConfigsRequestAlterConfigsResource): ReadonlyMap<string, string> | AdminResult {
  if (r.resourceType === ResourceType.BROKER_LOGGER) {
    return {
      errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage: 'AlterConfigs does not support the BROKER_LOGGER resource type; use IncrementalAlterConfigs',
    };
  }
  const names = r.configs.map((kv) => kv.name);
  if (new Set(names).size !== names.length)
    return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Error due to duplicate config keys' };
  const overrides = new Map<string, string>();
  for (const kv of r.configs) {
    if (kv.value === null) return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: `Null value not supported for : ${kv.name}` };
    overrides.set(kv.name, kv.value);
  }
  return overrides;
}

export const alterConfigsHandler = defineHandler({
  request: AlterConfigsRequest,
  response: AlterConfigsResponse,
  async handle(request, ctx): Promise<AlterConfigsResponseDataInput> {
    return { responses: await alterResources(ctx, request.resources, request.validateOnly, overridesOf) };
  },
});
