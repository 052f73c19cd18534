/** WriteShareGroupState (key 85): the state batches (and start offset) a share-partition's leader changed. */
import { WriteShareGroupStateRequest, WriteShareGroupStateResponse } from '@sluice/protocol/messages/index.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';
import { answerSharePartitions } from './share-state-requests.js';

export const writeShareGroupStateHandler = defineHandler({
  request: WriteShareGroupStateRequest,
  response: WriteShareGroupStateResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const results = await answerSharePartitions(
      ctx,
      request.groupId,
      request.topics,
      async (key, p) => ({ partition: p.partition, ...(await c.shareCoordinator.write(key, p)) }),
      (partition, errorCode) => ({ partition, errorCode, errorMessage: null }),
    );
    return { results };
  },
});
