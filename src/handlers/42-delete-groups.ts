/** DeleteGroups (key 42): removes empty groups and their offsets (tombstones in `__consumer_offsets`); a share group's share-partition state goes first. */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { DeleteGroupsRequest, DeleteGroupsResponse } from '@sluice/protocol/messages/index.js';
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
        if (!authorized(ctx, AclOperation.DELETE, ResourceType.GROUP, groupId))
          return { groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: null };
        return c.groups.deleteGroup(groupId, c.metadata);
      }),
    );
    return { throttleTimeMs: 0, results };
  },
});
