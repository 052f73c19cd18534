/** OffsetDelete (key 47): deletes a group's committed offsets for partitions it no longer consumes. */
import { OffsetDeleteRequest, OffsetDeleteResponse } from '../protocol/messages/index.js';
import { clusterOf } from './cluster-context.js';
import { coordinatorErrorCode } from './group-errors.js';
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
      return { throttleTimeMs: 0, errorCode: coordinatorErrorCode(err), topics: [] };
    }
  },
});
