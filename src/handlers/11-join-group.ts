/**
 * JoinGroup (key 11): enters a member into its group's rebalance. The answer may wait until every
 * member has (re)joined or the rebalance times out; the group coordinator parks it meanwhile.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { JoinGroupRequest, JoinGroupResponse, type JoinGroupResponseDataInput } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorized, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { clientHostOf } from './group-errors.js';
import { defineHandler } from './handler.js';

const NULLABLE_PROTOCOL_NAME_VERSION = 7;

export const joinGroupHandler = defineHandler({
  request: JoinGroupRequest,
  response: JoinGroupResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    // Kafka answers a failed join with no protocol: null where the version allows it (v7+).
    const noProtocol = ctx.header.requestApiVersion >= NULLABLE_PROTOCOL_NAME_VERSION ? null : '';
    const failed = (errorCode: number): JoinGroupResponseDataInput => ({
      throttleTimeMs: 0,
      errorCode,
      generationId: -1,
      memberId: request.memberId,
      protocolName: noProtocol,
    });
    if (!authorized(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId)) return failed(ErrorCode.GROUP_AUTHORIZATION_FAILED);
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
      const errorCode = response.errorCode ?? ErrorCode.NONE;
      return errorCode === ErrorCode.NONE
        ? { throttleTimeMs: 0, ...response }
        : { throttleTimeMs: 0, ...response, protocolName: noProtocol };
    } catch (err) {
      return failed(kafkaErrorCode(err));
    }
  },
});
