/**
 * ShareGroupDescribe (key 77, KIP-932): epochs, assignor and members of share groups. As Kafka's
 * KafkaApis: DESCRIBE on each group, and a group whose assignment names a topic the client may not
 * DESCRIBE answers TOPIC_AUTHORIZATION_FAILED.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { ShareGroupDescribeRequest, ShareGroupDescribeResponse } from '@sluice/protocol/messages/index.js';
import {
  AclOperation,
  authorized,
  authorizedNames,
  authorizedOperations as authorizedOperationsOf,
  ResourceType,
} from './authorization.js';
import { clusterOf, OPERATIONS_NOT_REQUESTED } from './cluster-context.js';
import { shareGroupsEnabled } from '../metadata/features.js';
import { defineHandler } from './handler.js';

const UNAUTHORIZED_TOPICS_MESSAGE = 'The group has described topic(s) that the client is not authorized to describe.';

export const shareGroupDescribeHandler = defineHandler({
  request: ShareGroupDescribeRequest,
  response: ShareGroupDescribeResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const mayDescribeTopic = authorizedNames(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC);
    const enabled = shareGroupsEnabled(c.metadata.features);
    const groups = await Promise.all(
      request.groupIds.map(async (groupId) => {
        if (!enabled) return { groupId, errorCode: ErrorCode.UNSUPPORTED_VERSION, authorizedOperations: OPERATIONS_NOT_REQUESTED };
        if (!authorized(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, groupId)) {
          return { groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, authorizedOperations: OPERATIONS_NOT_REQUESTED };
        }
        try {
          const described = (
            await c.groups.read(groupId, (coordinator) => coordinator.shareGroupDescribe({ ...request, groupIds: [groupId] }, c.metadata))
          ).groups![0]!;
          if ((described.errorCode ?? ErrorCode.NONE) !== ErrorCode.NONE)
            return { ...described, authorizedOperations: OPERATIONS_NOT_REQUESTED };
          const topics = (described.members ?? []).flatMap((m) => (m.assignment?.topicPartitions ?? []).map((t) => t.topicName ?? ''));
          if (!topics.every(mayDescribeTopic)) {
            return {
              groupId,
              errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
              errorMessage: UNAUTHORIZED_TOPICS_MESSAGE,
              members: [],
              authorizedOperations: OPERATIONS_NOT_REQUESTED,
            };
          }
          return {
            ...described,
            authorizedOperations: authorizedOperationsOf(ctx, request.includeAuthorizedOperations, ResourceType.GROUP, groupId),
          };
        } catch (err) {
          return { groupId, errorCode: kafkaErrorCode(err), authorizedOperations: OPERATIONS_NOT_REQUESTED };
        }
      }),
    );
    return { throttleTimeMs: 0, groups };
  },
});
