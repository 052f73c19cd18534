/**
 * OffsetFetch (key 9): committed offsets of one group (v0–7) or several (v8+), each answered by
 * its own coordinator. Served up to v9: v10 names topics by id.
 */
import { OffsetFetchRequest, OffsetFetchResponse, type OffsetFetchResponseDataInput } from '../protocol/messages/index.js';
import { clusterOf } from './cluster-context.js';
import { coordinatorErrorCode } from './group-errors.js';
import { defineHandler } from './handler.js';

const BATCHED_VERSION = 8;

export const offsetFetchHandler = defineHandler({
  request: OffsetFetchRequest,
  response: OffsetFetchResponse,
  versions: { lo: OffsetFetchRequest.validVersions.lo, hi: 9 },
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const version = ctx.header.requestApiVersion;
    if (version < BATCHED_VERSION) {
      try {
        const response = await c.groups.read(request.groupId, (coordinator) => coordinator.fetchOffsets(request, version));
        return { throttleTimeMs: 0, ...response };
      } catch (err) {
        return { throttleTimeMs: 0, errorCode: coordinatorErrorCode(err), topics: [] };
      }
    }
    const groups = await Promise.all(
      request.groups.map(async (g) => {
        try {
          const one: OffsetFetchResponseDataInput = await c.groups.read(g.groupId, (coordinator) => coordinator.fetchOffsets({ ...request, groups: [g] }, version));
          return one.groups?.[0] ?? { groupId: g.groupId, topics: [] };
        } catch (err) {
          return { groupId: g.groupId, errorCode: coordinatorErrorCode(err), topics: [] };
        }
      }),
    );
    return { throttleTimeMs: 0, groups };
  },
});
