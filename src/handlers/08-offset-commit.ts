/**
 * OffsetCommit (key 8): stores committed offsets as records of the group's `__consumer_offsets`
 * partition, with generation fencing for group members and none for simple consumers. Topics and
 * partitions the cluster does not have are refused here, before the coordinator sees the request
 * (UNKNOWN_TOPIC_OR_PARTITION, or UNKNOWN_TOPIC_ID for an id at v10), as Kafka refuses them.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { OffsetCommitRequest, OffsetCommitResponse } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorized, authorizedNames, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';
import { commitAnswer, commitFailed, FIRST_VERSION_WITH_TOPIC_IDS, splitCommitTopics, type CommitTopicAnswer } from './offset-topics.js';

export const offsetCommitHandler = defineHandler({
  request: OffsetCommitRequest,
  response: OffsetCommitResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const version = ctx.header.requestApiVersion;
    const byId = version >= FIRST_VERSION_WITH_TOPIC_IDS;
    if (!authorized(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId))
      return { throttleTimeMs: 0, topics: commitFailed(request.topics, ErrorCode.GROUP_AUTHORIZATION_FAILED) };
    const { known, refused } = splitCommitTopics(
      c.metadata,
      request.topics,
      byId,
      authorizedNames(ctx, AclOperation.READ, ResourceType.TOPIC),
    );
    // With no partition left to store, Kafka does not ask the coordinator: no group check, and
    // no simple group created.
    if (known.length === 0) return { throttleTimeMs: 0, topics: commitAnswer(refused, [], byId) };
    let stored: CommitTopicAnswer[];
    try {
      const response = await c.groups.run(request.groupId, (coordinator, now) =>
        coordinator.commitOffsets({ ...request, topics: known }, version, now),
      );
      stored = response.topics ?? [];
    } catch (err) {
      stored = commitFailed(known, kafkaErrorCode(err));
    }
    return { throttleTimeMs: 0, topics: commitAnswer(refused, stored, byId) };
  },
});
