/** DescribeGroups (key 15): state, protocol and members of each group, from its coordinator. */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { DescribeGroupsRequest, DescribeGroupsResponse } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorized, authorizedOperations as authorizedOperationsOf, ResourceType } from './authorization.js';
import { clusterOf, OPERATIONS_NOT_REQUESTED } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const describeGroupsHandler = defineHandler({
  request: DescribeGroupsRequest,
  response: DescribeGroupsResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const version = ctx.header.requestApiVersion;
    const groups = await Promise.all(
      request.groups.map(async (groupId) => {
        if (!authorized(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, groupId)) {
          return {
            groupId,
            errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED,
            groupState: 'Dead',
            authorizedOperations: OPERATIONS_NOT_REQUESTED,
          };
        }
        // As Kafka, only a group described without error carries its operations.
        const authorizedOperations = (errorCode: number): number =>
          errorCode === ErrorCode.NONE
            ? authorizedOperationsOf(ctx, request.includeAuthorizedOperations, ResourceType.GROUP, groupId)
            : OPERATIONS_NOT_REQUESTED;
        try {
          const described = await c.groups.read(groupId, (coordinator) =>
            coordinator.describeGroups({ ...request, groups: [groupId] }, version),
          );
          const group = described.groups![0]!;
          return { ...group, authorizedOperations: authorizedOperations(group.errorCode ?? ErrorCode.NONE) };
        } catch (err) {
          return { groupId, errorCode: kafkaErrorCode(err), groupState: 'Dead', authorizedOperations: OPERATIONS_NOT_REQUESTED };
        }
      }),
    );
    return { throttleTimeMs: 0, groups };
  },
});
