/**
 * DescribeProducers (key 61): the idempotent producers a partition knows (id, epoch, last
 * sequence and timestamp), read from the owner's producer state.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { DescribeProducersRequest, DescribeProducersResponse } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorizedNames, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';
import { answerPartitions, lookupPartition } from './partition-lookup.js';

export const describeProducersHandler = defineHandler({
  request: DescribeProducersRequest,
  response: DescribeProducersResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const mayRead = authorizedNames(ctx, AclOperation.READ, ResourceType.TOPIC);
    const answered = await answerPartitions(
      request.topics,
      (t) => t.partitionIndexes,
      async (t, partitionIndex) => {
        if (!mayRead(t.name))
          return { partitionIndex, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: null, activeProducers: [] };
        const found = lookupPartition(c, t.name, partitionIndex);
        if (!found.ok) return { partitionIndex, errorCode: found.errorCode, errorMessage: null, activeProducers: [] };
        const reply = await c.partitions.describeProducers({ topic: t.name, partition: partitionIndex });
        return {
          partitionIndex,
          errorCode: reply.errorCode,
          errorMessage: null,
          activeProducers: reply.producers.map((p) => ({
            producerId: BigInt(p.producerId),
            producerEpoch: p.producerEpoch,
            lastSequence: p.lastSequence,
            lastTimestamp: BigInt(p.lastTimestamp),
            coordinatorEpoch: p.coordinatorEpoch,
            currentTxnStartOffset: BigInt(p.currentTxnStartOffset),
          })),
        };
      },
    );
    return { throttleTimeMs: 0, topics: answered.map(({ topic, answers }) => ({ name: topic.name, partitions: answers })) };
  },
});
