/** ConsumerGroupDescribe (key 69, KIP-848): epochs, assignor and members of consumer-protocol groups. */
import { ErrorCode } from '../protocol/errors.js';
import { kafkaErrorCode } from '../common/kafka-error.js';
import { ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse } from '../protocol/messages/index.js';
import { AclOperation, authorized, authorizedOperations as authorizedOperationsOf, ResourceType } from './authorization.js';
import { clusterOf, OPERATIONS_NOT_REQUESTED } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const consumerGroupDescribeHandler = defineHandler({
  request: ConsumerGroupDescribeRequest,
  response: ConsumerGroupDescribeResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const groups = await Promise.all(
      request.groupIds.map(async (groupId) => {
        if (!authorized(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, groupId)) {
          return { groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, authorizedOperations: OPERATIONS_NOT_REQUESTED };
        }
        const authorizedOperations = authorizedOperationsOf(ctx, request.includeAuthorizedOperations, ResourceType.GROUP, groupId);
        try {
          const described = await c.groups.read(groupId, (coordinator) => coordinator.consumerGroupDescribe({ ...request, groupIds: [groupId] }, c.metadata));
          return { ...described.groups![0]!, authorizedOperations };
        } catch (err) {
          return { groupId, errorCode: kafkaErrorCode(err), authorizedOperations };
        }
      }),
    );
    return { throttleTimeMs: 0, groups };
  },
});
