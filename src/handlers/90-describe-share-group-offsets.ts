/**
 * DescribeShareGroupOffsets (key 90, KIP-932): each share-partition's start offset, read from the
 * share coordinator, and (v1, KIP-1226) its lag against the partition's high watermark. As Kafka's KafkaApis: DESCRIBE on the group; topics the client may not
 * DESCRIBE answer TOPIC_AUTHORIZATION_FAILED (or are left out when all topics are asked for).
 */
import { ERRORS, ErrorCode } from '@sluice/protocol/errors.js';
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { ZERO_UUID } from '@sluice/protocol/common/uuid.js';
import { DescribeShareGroupOffsetsRequest, DescribeShareGroupOffsetsResponse } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorized, authorizedNames, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { shareGroupsEnabled } from '../metadata/features.js';
import { defineHandler } from './handler.js';
import { partitionEnds } from './partition-ends.js';

const TOPIC_AUTHORIZATION_MESSAGE = ERRORS.get(ErrorCode.TOPIC_AUTHORIZATION_FAILED)!.message;

export const describeShareGroupOffsetsHandler = defineHandler({
  request: DescribeShareGroupOffsetsRequest,
  response: DescribeShareGroupOffsetsResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const mayDescribe = authorizedNames(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC);
    const enabled = shareGroupsEnabled(c.metadata.features);
    const groups = await Promise.all(
      request.groups.map(async (group) => {
        const { groupId } = group;
        if (!enabled) return { groupId, errorCode: ErrorCode.UNSUPPORTED_VERSION, topics: [] };
        if (!authorized(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, groupId))
          return { groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, topics: [] };
        if (group.topics !== null && group.topics.length === 0) return { groupId, topics: [] };
        const denied = (group.topics ?? []).filter((t) => !mayDescribe(t.topicName));
        try {
          const described = await c.groups.share.describeOffsets(
            { groupId, topics: group.topics === null ? null : group.topics.filter((t) => mayDescribe(t.topicName)) },
            c.metadata,
            partitionEnds(c),
          );
          const allowed = (described.topics ?? []).filter((t) => mayDescribe(t.topicName ?? ''));
          const refused = denied.map((t) => ({
            topicName: t.topicName,
            topicId: ZERO_UUID,
            partitions: t.partitions.map((partitionIndex) => ({
              partitionIndex,
              startOffset: -1n,
              errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
              errorMessage: TOPIC_AUTHORIZATION_MESSAGE,
            })),
          }));
          return { ...described, topics: [...allowed, ...refused] };
        } catch (err) {
          const errorCode = kafkaErrorCode(err);
          return { groupId, errorCode, errorMessage: ERRORS.get(errorCode)?.message ?? null, topics: [] };
        }
      }),
    );
    return { throttleTimeMs: 0, groups };
  },
});
