/**
 * DeleteShareGroupOffsets (key 92, KIP-932): forgets an empty share group's share-partition state
 * for whole topics. As Kafka's KafkaApis: DELETE on the group; a topic the client may not READ
 * answers TOPIC_AUTHORIZATION_FAILED without reaching the coordinator.
 */
import { ERRORS, ErrorCode } from '@sluice/protocol/errors.js';
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { DeleteShareGroupOffsetsRequest, DeleteShareGroupOffsetsResponse } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorized, authorizedNames, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { shareGroupsEnabled } from '../metadata/features.js';
import { defineHandler } from './handler.js';

export const deleteShareGroupOffsetsHandler = defineHandler({
  request: DeleteShareGroupOffsetsRequest,
  response: DeleteShareGroupOffsetsResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    if (!shareGroupsEnabled(c.metadata.features)) {
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.UNSUPPORTED_VERSION,
        errorMessage: ERRORS.get(ErrorCode.UNSUPPORTED_VERSION)!.message,
        responses: [],
      };
    }
    if (!authorized(ctx, AclOperation.DELETE, ResourceType.GROUP, request.groupId))
      return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: null, responses: [] };
    const mayRead = authorizedNames(ctx, AclOperation.READ, ResourceType.TOPIC);
    const refused = request.topics
      .filter((t) => !mayRead(t.topicName))
      .map((t) => ({
        topicName: t.topicName,
        errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        errorMessage: ERRORS.get(ErrorCode.TOPIC_AUTHORIZATION_FAILED)!.message,
      }));
    try {
      const response = await c.groups.share.deleteOffsets(
        { ...request, topics: request.topics.filter((t) => mayRead(t.topicName)) },
        c.metadata,
      );
      if ((response.errorCode ?? ErrorCode.NONE) !== ErrorCode.NONE) return { throttleTimeMs: 0, ...response, responses: [] };
      return { throttleTimeMs: 0, ...response, responses: [...refused, ...(response.responses ?? [])] };
    } catch (err) {
      return { throttleTimeMs: 0, errorCode: kafkaErrorCode(err), errorMessage: null, responses: [] };
    }
  },
});
