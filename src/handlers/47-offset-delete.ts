/** OffsetDelete (key 47): deletes a group's committed offsets for partitions it no longer consumes. */
import { ErrorCode } from '../protocol/errors.js';
import { kafkaErrorCode } from '../common/kafka-error.js';
import { OffsetDeleteRequest, OffsetDeleteResponse } from '../protocol/messages/index.js';
import { AclOperation, authorized, authorizedNames, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const offsetDeleteHandler = defineHandler({
  request: OffsetDeleteRequest,
  response: OffsetDeleteResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    if (!authorized(ctx, AclOperation.DELETE, ResourceType.GROUP, request.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, topics: [] };
    // As Kafka: topics the principal may not READ are answered here, the rest go to the coordinator.
    const mayRead = authorizedNames(ctx, AclOperation.READ, ResourceType.TOPIC);
    const denied = request.topics.filter((t) => !mayRead(t.name));
    try {
      const response = await c.groups.run(request.groupId, (coordinator) => coordinator.deleteOffsets({ ...request, topics: request.topics.filter((t) => mayRead(t.name)) }));
      if (denied.length === 0 || (response.errorCode ?? ErrorCode.NONE) !== ErrorCode.NONE) return { throttleTimeMs: 0, ...response };
      const refused = denied.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED })) }));
      return { throttleTimeMs: 0, ...response, topics: [...(response.topics ?? []), ...refused] };
    } catch (err) {
      return { throttleTimeMs: 0, errorCode: kafkaErrorCode(err), topics: [] };
    }
  },
});
