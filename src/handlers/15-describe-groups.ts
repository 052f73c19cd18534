/** DescribeGroups (key 15): state, protocol and members of each group, from its coordinator. */
import { kafkaErrorCode } from '../common/kafka-error.js';
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../protocol/messages/index.js';
import { clusterOf, OPERATIONS_NOT_REQUESTED } from './cluster-context.js';
import { defineHandler } from './handler.js';

/** With no authorizer every group operation is allowed: READ, DELETE and DESCRIBE. */
export const ALL_GROUP_OPERATIONS = (1 << 3) | (1 << 6) | (1 << 8);

export const describeGroupsHandler = defineHandler({
  request: DescribeGroupsRequest,
  response: DescribeGroupsResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const version = ctx.header.requestApiVersion;
    const authorizedOperations = request.includeAuthorizedOperations ? ALL_GROUP_OPERATIONS : OPERATIONS_NOT_REQUESTED;
    const groups = await Promise.all(
      request.groups.map(async (groupId) => {
        try {
          const described = await c.groups.read(groupId, (coordinator) => coordinator.describeGroups({ ...request, groups: [groupId] }, version));
          return { ...described.groups![0]!, authorizedOperations };
        } catch (err) {
          return { groupId, errorCode: kafkaErrorCode(err), groupState: 'Dead', authorizedOperations };
        }
      }),
    );
    return { throttleTimeMs: 0, groups };
  },
});
