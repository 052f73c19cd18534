/** ReadShareGroupStateSummary (key 87): a share-partition's epochs, start offset and (v1) delivery-complete count, without its batches. */
import {
  ReadShareGroupStateSummaryRequest,
  ReadShareGroupStateSummaryResponse,
  type ReadShareGroupStateSummaryResponsePartitionResultInput,
} from '@sluice/protocol/messages/index.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';
import { answerSharePartitions } from './share-state-requests.js';

export const readShareGroupStateSummaryHandler = defineHandler({
  request: ReadShareGroupStateSummaryRequest,
  response: ReadShareGroupStateSummaryResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const results = await answerSharePartitions(
      ctx,
      request.groupId,
      request.topics,
      async (key, p): Promise<ReadShareGroupStateSummaryResponsePartitionResultInput> => ({
        partition: p.partition,
        ...(await c.shareCoordinator.readSummary(key, p.leaderEpoch)),
      }),
      (partition, errorCode): ReadShareGroupStateSummaryResponsePartitionResultInput => ({ partition, errorCode, errorMessage: null }),
    );
    return { results };
  },
});
