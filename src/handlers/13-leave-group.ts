/** LeaveGroup (key 13): members leave (batched from v3), which starts a rebalance for the rest. */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { LeaveGroupRequest, LeaveGroupResponse } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorized, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const leaveGroupHandler = defineHandler({
  request: LeaveGroupRequest,
  response: LeaveGroupResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    if (!authorized(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId))
      return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
    try {
      const response = await c.groups.run(request.groupId, (coordinator, now) =>
        coordinator.leaveGroup(request, ctx.header.requestApiVersion, now),
      );
      return { throttleTimeMs: 0, ...response };
    } catch (err) {
      return { throttleTimeMs: 0, errorCode: kafkaErrorCode(err) };
    }
  },
});
