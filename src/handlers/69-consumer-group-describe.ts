/** ConsumerGroupDescribe (key 69, KIP-848): epochs, assignor and members of consumer-protocol groups. */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorized, authorizedOperations as authorizedOperationsOf, ResourceType } from './authorization.js';
import { clusterOf, OPERATIONS_NOT_REQUESTED } from './cluster-context.js';
import { consumerGroupProtocolEnabled } from '../metadata/features.js';
import { defineHandler } from './handler.js';

export const consumerGroupDescribeHandler = defineHandler({
  request: ConsumerGroupDescribeRequest,
  response: ConsumerGroupDescribeResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const enabled = consumerGroupProtocolEnabled(c.metadata.features);
    const groups = await Promise.all(
      request.groupIds.map(async (groupId) => {
        if (!enabled) return { groupId, errorCode: ErrorCode.UNSUPPORTED_VERSION, authorizedOperations: OPERATIONS_NOT_REQUESTED };
        if (!authorized(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, groupId)) {
          return { groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, authorizedOperations: OPERATIONS_NOT_REQUESTED };
        }
        // As Kafka, only a group described without error carries its operations.
        const authorizedOperations = (errorCode: number): number =>
          errorCode === ErrorCode.NONE
            ? authorizedOperationsOf(ctx, request.includeAuthorizedOperations, ResourceType.GROUP, groupId)
            : OPERATIONS_NOT_REQUESTED;
        try {
          const described = await c.groups.read(groupId, (coordinator) =>
            coordinator.consumerGroupDescribe({ ...request, groupIds: [groupId] }, c.metadata),
          );
          const group = described.groups![0]!;
          return { ...group, authorizedOperations: authorizedOperations(group.errorCode ?? ErrorCode.NONE) };
        } catch (err) {
          return { groupId, errorCode: kafkaErrorCode(err), authorizedOperations: OPERATIONS_NOT_REQUESTED };
        }
      }),
    );
    return { throttleTimeMs: 0, groups };
  },
});
