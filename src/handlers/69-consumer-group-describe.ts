/** ConsumerGroupDescribe (key 69, KIP-848): epochs, assignor and members of consumer-protocol groups. */
import { kafkaErrorCode } from '../common/kafka-error.js';
import { ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse } from '../protocol/messages/index.js';
import { clusterOf, OPERATIONS_NOT_REQUESTED } from './cluster-context.js';
import { defineHandler } from './handler.js';
import { ALL_GROUP_OPERATIONS } from './15-describe-groups.js';

export const consumerGroupDescribeHandler = defineHandler({
  request: ConsumerGroupDescribeRequest,
  response: ConsumerGroupDescribeResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const authorizedOperations = request.includeAuthorizedOperations ? ALL_GROUP_OPERATIONS : OPERATIONS_NOT_REQUESTED;
    const groups = await Promise.all(
      request.groupIds.map(async (groupId) => {
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
