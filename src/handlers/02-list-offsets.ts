/**
 * ListOffsets (key 2): the earliest (-2), latest (-1) or max-timestamp (-3) offset of a
 * partition, or the first offset whose timestamp is at or after a given time (found through
 * the time index). Latest is the high watermark for read_uncommitted and the last stable offset
 * for read_committed (v2+), as Kafka answers.
 */
import { leaderEpochOf, wireOffset } from '@sluice/protocol/common/offsets.js';
import { ListOffsetsRequest, ListOffsetsResponse } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorizedNames, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { READ_COMMITTED } from '@sluice/protocol/offset-requests.js';
import { answerPartitions, listedPartitionError, lookupPartition, mergePartitions } from './partition-lookup.js';

export const listOffsetsHandler = defineHandler({
  request: ListOffsetsRequest,
  response: ListOffsetsResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    // Leader epochs are carried from version 4 on; older versions must leave the default.
    const withEpoch = ctx.header.requestApiVersion >= 4;
    // Kafka answers each topic once and refuses a partition asked for more than once, since
    // the copies may ask for different timestamps and one answer cannot serve them all.
    const merged = mergePartitions(
      request.topics,
      (t) => t.name,
      (t) => t.partitions,
      (p) => p.partitionIndex,
    );
    const mayDescribe = authorizedNames(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC);
    const answered = await answerPartitions(
      merged,
      (t) => t.partitions,
      async ({ topic: t }, { entry: p, copies }) => {
        const none = { partitionIndex: p.partitionIndex, timestamp: -1n, offset: -1n, leaderEpoch: -1 };
        if (!mayDescribe(t.name)) return { ...none, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED };
        if (copies > 1) return { ...none, errorCode: ErrorCode.INVALID_REQUEST };
        const found = lookupPartition(c, t.name, p.partitionIndex);
        if (!found.ok) return { ...none, errorCode: found.errorCode };
        const reply = await c.partitions.listOffset(
          { topic: t.name, partition: p.partitionIndex },
          leaderEpochOf(p.currentLeaderEpoch),
          p.timestamp,
          request.isolationLevel === READ_COMMITTED,
        );
        return {
          partitionIndex: p.partitionIndex,
          errorCode: listedPartitionError(reply.errorCode),
          timestamp: reply.timestamp,
          offset: wireOffset(reply.offset),
          leaderEpoch: withEpoch ? reply.leaderEpoch : -1,
        };
      },
    );
    return { throttleTimeMs: 0, topics: answered.map(({ topic, answers }) => ({ name: topic.topic.name, partitions: answers })) };
  },
});
