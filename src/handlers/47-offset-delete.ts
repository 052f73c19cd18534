/** OffsetDelete (key 47): deletes a group's committed offsets for partitions it no longer consumes. */
import { kafkaErrorCode } from '../common/kafka-error.js';
import { OffsetDeleteRequest, OffsetDeleteResponse } from '../protocol/messages/index.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const offsetDeleteHandler = defineHandler({
  request: OffsetDeleteRequest,
  response: OffsetDeleteResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    try {
      const response = await c.groups.run(request.groupId, (coordinator) => coordinator.deleteOffsets(request));
      return { throttleTimeMs: 0, ...response };
    } catch (err) {
      return { throttleTimeMs: 0, errorCode: kafkaErrorCode(err), topics: [] };
    }
  },
});
