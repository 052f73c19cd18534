/** InitializeShareGroupState (key 83): a share-partition (re)starts at a state epoch and start offset. */
import { InitializeShareGroupStateRequest, InitializeShareGroupStateResponse } from '@sluice/protocol/messages/index.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';
import { answerSharePartitions } from './share-state-requests.js';

export const initializeShareGroupStateHandler = defineHandler({
  request: InitializeShareGroupStateRequest,
  response: InitializeShareGroupStateResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const results = await answerSharePartitions(
      ctx,
      request.groupId,
      request.topics,
      async (key, p) => ({ partition: p.partition, ...(await c.shareCoordinator.initialize(key, p.stateEpoch, p.startOffset)) }),
      (partition, errorCode) => ({ partition, errorCode, errorMessage: null }),
    );
    return { results };
  },
});
