/**
 * OffsetCommit (key 8): stores committed offsets as records of the group's `__consumer_offsets`
 * partition, with generation fencing for group members and none for simple consumers. Served
 * up to v9: v10 names topics by id, which the coordinator's records do not carry yet.
 */
import { OffsetCommitRequest, OffsetCommitResponse } from '../protocol/messages/index.js';
import { clusterOf } from './cluster-context.js';
import { coordinatorErrorCode } from './group-errors.js';
import { defineHandler } from './handler.js';

export const offsetCommitHandler = defineHandler({
  request: OffsetCommitRequest,
  response: OffsetCommitResponse,
  versions: { lo: OffsetCommitRequest.validVersions.lo, hi: 9 },
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    try {
      const response = await c.groups.run(request.groupId, (coordinator, now) => coordinator.commitOffsets(request, ctx.header.requestApiVersion, now));
      return { throttleTimeMs: 0, ...response };
    } catch (err) {
      const errorCode = coordinatorErrorCode(err);
      return {
        throttleTimeMs: 0,
        topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })),
      };
    }
  },
});
