/** ReadShareGroupState (key 84): a share-partition's state, read by its leader at its leader epoch (which fences older leaders). */
import {
  ReadShareGroupStateRequest,
  ReadShareGroupStateResponse,
  type ReadShareGroupStateResponsePartitionResultInput,
} from '@sluice/protocol/messages/index.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';
import { answerSharePartitions } from './share-state-requests.js';

export const readShareGroupStateHandler = defineHandler({
  request: ReadShareGroupStateRequest,
  response: ReadShareGroupStateResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const results = await answerSharePartitions(
      ctx,
      request.groupId,
      request.topics,
      async (key, p): Promise<ReadShareGroupStateResponsePartitionResultInput> => {
        const read = await c.shareCoordinator.read(key, p.leaderEpoch);
        return {
          partition: p.partition,
          errorCode: read.errorCode,
          errorMessage: read.errorMessage,
          stateEpoch: read.stateEpoch,
          startOffset: read.startOffset,
          stateBatches: [...read.stateBatches],
        };
      },
      (partition, errorCode): ReadShareGroupStateResponsePartitionResultInput => ({ partition, errorCode, errorMessage: null }),
    );
    return { results };
  },
});
