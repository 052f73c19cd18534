/**
 * JoinGroup (key 11): enters a member into its group's rebalance. The answer may wait until every
 * member has (re)joined or the rebalance times out; the group coordinator parks it meanwhile.
 */
import { ErrorCode } from '../protocol/errors.js';
import { kafkaErrorCode } from '../common/kafka-error.js';
import { JoinGroupRequest, JoinGroupResponse, type JoinGroupResponseDataInput } from '../protocol/messages/index.js';
import { AclOperation, authorized, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { clientHostOf } from './group-errors.js';
import { defineHandler } from './handler.js';

export const joinGroupHandler = defineHandler({
  request: JoinGroupRequest,
  response: JoinGroupResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    if (!authorized(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, generationId: -1, memberId: request.memberId };
    try {
      const response = await c.groups.runParkable<JoinGroupResponseDataInput>(request.groupId, 'JoinGroup', (coordinator, now, replyTo) =>
        coordinator.joinGroup(request, {
          apiVersion: ctx.header.requestApiVersion,
          clientId: ctx.header.clientId ?? '',
          clientHost: clientHostOf(ctx.session.clientAddress),
          now,
          replyTo,
        }),
      );
      return { throttleTimeMs: 0, ...response };
    } catch (err) {
      return { throttleTimeMs: 0, errorCode: kafkaErrorCode(err), generationId: -1, memberId: request.memberId };
    }
  },
});
