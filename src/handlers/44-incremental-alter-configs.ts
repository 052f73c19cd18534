/**
 * IncrementalAlterConfigs (key 44): SET, DELETE, APPEND and SUBTRACT on single keys of a topic
 * or broker resource; the other overrides stay. Topic changes take effect live through
 * `PartitionAdmin.updateTopicConfig`; a broker logger's level changes at once (SET and DELETE only,
 * as Kafka). Kafka answers an unknown operation with
 * UNKNOWN_SERVER_ERROR; this broker answers INVALID_REQUEST, which names the problem.
 */
import {
  IncrementalAlterConfigsRequest,
  IncrementalAlterConfigsResponse,
  type IncrementalAlterConfigsRequestAlterConfigsResource,
  type IncrementalAlterConfigsResponseDataInput,
} from '@sluice/protocol/messages/index.js';
import { ConfigOperation, applyAlterations } from '../metadata/config/config-operations.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { ResourceType } from './cluster-context.js';
import type { AdminResult } from '../metadata/admin/topic-admin.js';
import { defineHandler } from './handler.js';
import { alterResources, type ResolvedResource } from './alter-config-targets.js';

const OPERATION_NAMES = ['SET', 'DELETE', 'APPEND', 'SUBTRACT'];

function overridesOf(
  r: IncrementalAlterConfigsRequestAlterConfigsResource,
  target: ResolvedResource,
): ReadonlyMap<string, string> | AdminResult {
  if (r.resourceType === ResourceType.BROKER_LOGGER) {
    const listEdit = r.configs.find((a) => a.configOperation === ConfigOperation.APPEND || a.configOperation === ConfigOperation.SUBTRACT);
    if (listEdit !== undefined) {
      return {
        errorCode: ErrorCode.INVALID_REQUEST,
        errorMessage: `${OPERATION_NAMES[listEdit.configOperation]} operation is not allowed for the BROKER_LOGGER resource`,
      };
    }
  }
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
