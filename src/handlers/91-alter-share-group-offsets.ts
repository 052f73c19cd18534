/**
 * AlterShareGroupOffsets (key 91, KIP-932): restarts an empty share group's share-partitions at
 * new start offsets. As Kafka's KafkaApis: READ on the group; a topic the client may not READ
 * answers TOPIC_AUTHORIZATION_FAILED and one that does not exist UNKNOWN_TOPIC_OR_PARTITION,
 * per partition, without reaching the coordinator.
 */
import { ERRORS, ErrorCode } from '@sluice/protocol/errors.js';
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { ZERO_UUID } from '@sluice/protocol/common/uuid.js';
import { AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorized, authorizedNames, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { shareGroupsEnabled } from '../metadata/features.js';
import { defineHandler } from './handler.js';

export const alterShareGroupOffsetsHandler = defineHandler({
  request: AlterShareGroupOffsetsRequest,
  response: AlterShareGroupOffsetsResponse,
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
    if (!authorized(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId))
      return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: null, responses: [] };
    const mayRead = authorizedNames(ctx, AclOperation.READ, ResourceType.TOPIC);
    const refusal = (topicName: string): number | null =>
      !mayRead(topicName)
        ? ErrorCode.TOPIC_AUTHORIZATION_FAILED
        : c.metadata.topic(topicName) === undefined
          ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
          : null;
    const refused = request.topics.flatMap((t) => {
      const errorCode = refusal(t.topicName);
      if (errorCode === null) return [];
      const errorMessage = ERRORS.get(errorCode)!.message;
      return [
        {
          topicName: t.topicName,
          topicId: c.metadata.topic(t.topicName)?.topicId ?? ZERO_UUID,
          partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode, errorMessage })),
        },
      ];
    });
    try {
      const response = await c.groups.share.alterOffsets(
        { ...request, topics: request.topics.filter((t) => refusal(t.topicName) === null) },
        c.metadata,
      );
      if ((response.errorCode ?? ErrorCode.NONE) !== ErrorCode.NONE) return { throttleTimeMs: 0, ...response, responses: [] };
      return { throttleTimeMs: 0, ...response, responses: [...(response.responses ?? []), ...refused] };
    } catch (err) {
      return { throttleTimeMs: 0, errorCode: kafkaErrorCode(err), errorMessage: null, responses: [] };
    }
  },
});
