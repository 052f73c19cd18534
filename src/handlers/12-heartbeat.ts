/** Heartbeat (key 12): keeps a member's session alive; answers REBALANCE_IN_PROGRESS during a rebalance. */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { HeartbeatRequest, HeartbeatResponse } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorized, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const heartbeatHandler = defineHandler({
  request: HeartbeatRequest,
  response: HeartbeatResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    if (!authorized(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId))
      return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
    try {
      const response = await c.groups.run(request.groupId, (coordinator, now) => coordinator.heartbeat(request, now));
      return { throttleTimeMs: 0, ...response };
    } catch (err) {
      return { throttleTimeMs: 0, errorCode: kafkaErrorCode(err) };
    }
  },
});
