/**
 * DeleteRecords (key 21): moves a partition's log start offset forward (offset -1 means the
 * high watermark); whole segments below it are deleted later. Answers the new low watermark.
 */
import { offsetOf, wireOffset } from '@sluice/protocol/common/offsets.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { DeleteRecordsRequest, DeleteRecordsResponse } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorizedNames, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';
import { answerPartitions, listedPartitionError, lookupPartition, mergePartitions } from './partition-lookup.js';

export const deleteRecordsHandler = defineHandler({
  request: DeleteRecordsRequest,
  response: DeleteRecordsResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    // As Kafka: each topic answered once, and of a partition named twice the last offset wins.
    const merged = mergePartitions(
      request.topics,
      (t) => t.name,
      (t) => t.partitions,
      (p) => p.partitionIndex,
    );
    const mayDelete = authorizedNames(ctx, AclOperation.DELETE, ResourceType.TOPIC);
    const answered = await answerPartitions(
      merged,
      (t) => t.partitions,
      async ({ topic: t }, { entry: p }) => {
        if (!mayDelete(t.name))
          return { partitionIndex: p.partitionIndex, lowWatermark: -1n, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED };
        const found = lookupPartition(c, t.name, p.partitionIndex);
        if (!found.ok) return { partitionIndex: p.partitionIndex, lowWatermark: -1n, errorCode: found.errorCode };
        const reply = await c.partitions.deleteRecords({ topic: t.name, partition: p.partitionIndex }, offsetOf(p.offset));
        return {
          partitionIndex: p.partitionIndex,
          lowWatermark: wireOffset(reply.offset),
          errorCode: listedPartitionError(reply.errorCode),
        };
      },
    );
    return { throttleTimeMs: 0, topics: answered.map(({ topic, answers }) => ({ name: topic.topic.name, partitions: answers })) };
  },
});
