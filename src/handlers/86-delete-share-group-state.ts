/** DeleteShareGroupState (key 86): forgets a share-partition's state (a tombstone in `__share_group_state`). */
import { DeleteShareGroupStateRequest, DeleteShareGroupStateResponse } from '@sluice/protocol/messages/index.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';
import { answerSharePartitions } from './share-state-requests.js';

export const deleteShareGroupStateHandler = defineHandler({
  request: DeleteShareGroupStateRequest,
  response: DeleteShareGroupStateResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const results = await answerSharePartitions(
      ctx,
      request.groupId,
      request.topics,
      async (key, p) => ({ partition: p.partition, ...(await c.shareCoordinator.delete(key)) }),
      (partition, errorCode) => ({ partition, errorCode, errorMessage: null }),
    );
    return { results };
  },
});
