/**
 * OffsetForLeaderEpoch (key 23): the end offset of a leader epoch, from the partition's
 * leader-epoch cache; consumers use it after a leader change to detect log truncation.
 */
import { leaderEpochOf, wireOffset } from '@sluice/protocol/common/offsets.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorizedNames, authorizedOnCluster, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';
import { answerPartitions, listedPartitionError, lookupPartition } from './partition-lookup.js';

export const offsetForLeaderEpochHandler = defineHandler({
  request: OffsetForLeaderEpochRequest,
  response: OffsetForLeaderEpochResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    // As Kafka: a broker (CLUSTER_ACTION) may ask of every topic, anyone else of those it may DESCRIBE.
    const mayDescribe = authorizedOnCluster(ctx, AclOperation.CLUSTER_ACTION)
      ? () => true
      : authorizedNames(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC);
    const answered = await answerPartitions(
      request.topics,
      (t) => t.partitions,
      async (t, p) => {
        const none = { partition: p.partition, leaderEpoch: -1, endOffset: -1n };
        if (!mayDescribe(t.topic)) return { ...none, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED };
        const found = lookupPartition(c, t.topic, p.partition);
        if (!found.ok) return { ...none, errorCode: found.errorCode };
        const reply = await c.partitions.offsetForLeaderEpoch(
          { topic: t.topic, partition: p.partition },
          leaderEpochOf(p.currentLeaderEpoch),
          leaderEpochOf(p.leaderEpoch),
        );
        return {
          partition: p.partition,
          errorCode: listedPartitionError(reply.errorCode),
          leaderEpoch: reply.leaderEpoch,
          endOffset: wireOffset(reply.offset),
        };
      },
    );
    return { throttleTimeMs: 0, topics: answered.map(({ topic, answers }) => ({ topic: topic.topic, partitions: answers })) };
  },
});
