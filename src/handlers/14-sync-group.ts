/**
 * SyncGroup (key 14): the leader hands in the members' assignments; every member gets its own.
 * Followers' answers wait (parked in the coordinator) until the leader's SyncGroup arrives.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { SyncGroupRequest, SyncGroupResponse, type SyncGroupResponseDataInput } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorized, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const syncGroupHandler = defineHandler({
  request: SyncGroupRequest,
  response: SyncGroupResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    if (!authorized(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId))
      return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
    try {
      const response = await c.groups.runParkable<SyncGroupResponseDataInput>(request.groupId, 'SyncGroup', (coordinator, now, replyTo) =>
        coordinator.syncGroup(request, { now, replyTo }),
      );
      return { throttleTimeMs: 0, ...response };
    } catch (err) {
      return { throttleTimeMs: 0, errorCode: kafkaErrorCode(err) };
    }
  },
});
