/** OffsetDelete (key 47): deletes a group's committed offsets for partitions it no longer consumes. */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import {
  OffsetDeleteRequest,
  OffsetDeleteResponse,
  type OffsetDeleteRequestOffsetDeleteRequestTopic,
  type OffsetDeleteResponseOffsetDeleteResponseTopicInput,
} from '@sluice/protocol/messages/index.js';
import { AclOperation, authorized, authorizedNames, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const offsetDeleteHandler = defineHandler({
  request: OffsetDeleteRequest,
  response: OffsetDeleteResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    if (!authorized(ctx, AclOperation.DELETE, ResourceType.GROUP, request.groupId))
      return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, topics: [] };
    // As Kafka: topics the principal may not READ, and topics or partitions that do not exist,
    // are answered here, first and in request order; the rest go to the coordinator, whose
    // answers are then merged in (appended to a topic already answered).
    const mayRead = authorizedNames(ctx, AclOperation.READ, ResourceType.TOPIC);
    const answered: OffsetDeleteResponseOffsetDeleteResponseTopicInput[] = [];
    const asked: OffsetDeleteRequestOffsetDeleteRequestTopic[] = [];
    for (const t of request.topics) {
      const partitionCount = c.metadata.topic(t.name)?.partitionCount ?? 0;
      const refusal = (p: number): number | null =>
        !mayRead(t.name)
          ? ErrorCode.TOPIC_AUTHORIZATION_FAILED
          : p < 0 || p >= partitionCount
            ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            : null;
      const refused = t.partitions.flatMap((p) => {
        const errorCode = refusal(p.partitionIndex);
        return errorCode === null ? [] : [{ partitionIndex: p.partitionIndex, errorCode }];
      });
      if (refused.length > 0) answered.push({ name: t.name, partitions: refused });
      const kept = t.partitions.filter((p) => refusal(p.partitionIndex) === null);
      if (kept.length > 0) asked.push({ ...t, partitions: kept });
    }
    try {
      const response = await c.groups.run(request.groupId, (coordinator) => coordinator.deleteOffsets({ ...request, topics: asked }));
      if ((response.errorCode ?? ErrorCode.NONE) !== ErrorCode.NONE) return { throttleTimeMs: 0, ...response };
      for (const t of response.topics ?? []) {
        const existing = answered.find((a) => a.name === t.name);
        if (existing === undefined) answered.push(t);
        else existing.partitions = [...(existing.partitions ?? []), ...(t.partitions ?? [])];
      }
      return { throttleTimeMs: 0, ...response, topics: answered };
    } catch (err) {
      return { throttleTimeMs: 0, errorCode: kafkaErrorCode(err), topics: [] };
    }
  },
});
