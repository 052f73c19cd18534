/** DeleteGroups (key 42): removes empty groups and their offsets (tombstones in `__consumer_offsets`). */
import { ErrorCode } from '../protocol/errors.js';
import { kafkaErrorCode } from '../common/kafka-error.js';
import { DeleteGroupsRequest, DeleteGroupsResponse } from '../protocol/messages/index.js';
import { AclOperation, authorized, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const deleteGroupsHandler = defineHandler({
  request: DeleteGroupsRequest,
  response: DeleteGroupsResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const results = await Promise.all(
      request.groupsNames.map(async (groupId) => {
        if (!authorized(ctx, AclOperation.DELETE, ResourceType.GROUP, groupId)) return { groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: null };
        try {
          const response = await c.groups.run(groupId, (coordinator) => coordinator.deleteGroups({ groupsNames: [groupId] }));
          return response.results?.[0] ?? { groupId, errorCode: 0, errorMessage: null };
        } catch (err) {
          return { groupId, errorCode: kafkaErrorCode(err), errorMessage: null };
        }
      }),
    );
    return { throttleTimeMs: 0, results };
  },
});
