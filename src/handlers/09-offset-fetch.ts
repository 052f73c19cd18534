/**
 * OffsetFetch (key 9): committed offsets of one group (v0–7) or several (v8+), each answered by
 * its own coordinator. v10 names topics by id, resolved here to the names the coordinator keys
 * offsets by. A topic or partition that does not exist is no error when named (Kafka answers
 * offset -1 for it); an unknown id is UNKNOWN_TOPIC_ID.
 */
import { kafkaErrorCode } from '../common/kafka-error.js';
import {
  OffsetFetchRequest,
  OffsetFetchResponse,
  type OffsetFetchRequestOffsetFetchRequestGroup,
  type OffsetFetchResponseDataInput,
  type OffsetFetchResponseOffsetFetchResponseGroupInput,
} from '../protocol/messages/index.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';
import { FIRST_VERSION_WITH_TOPIC_IDS, fetchByTopicId } from './offset-topics.js';

const BATCHED_VERSION = 8;

export const offsetFetchHandler = defineHandler({
  request: OffsetFetchRequest,
  response: OffsetFetchResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const version = ctx.header.requestApiVersion;
    if (version < BATCHED_VERSION) {
      try {
        const response = await c.groups.read(request.groupId, (coordinator) => coordinator.fetchOffsets(request, version));
        return { throttleTimeMs: 0, ...response };
      } catch (err) {
        return { throttleTimeMs: 0, errorCode: kafkaErrorCode(err), topics: [] };
      }
    }
    const fetchGroup = async (g: OffsetFetchRequestOffsetFetchRequestGroup): Promise<OffsetFetchResponseOffsetFetchResponseGroupInput> => {
      try {
        const one: OffsetFetchResponseDataInput = await c.groups.read(g.groupId, (coordinator) => coordinator.fetchOffsets({ ...request, groups: [g] }, version));
        return one.groups?.[0] ?? { groupId: g.groupId, topics: [] };
      } catch (err) {
        return { groupId: g.groupId, errorCode: kafkaErrorCode(err), topics: [] };
      }
    };
    const byId = version >= FIRST_VERSION_WITH_TOPIC_IDS;
    const groups = await Promise.all(request.groups.map((g) => (byId ? fetchByTopicId(c.metadata, g, fetchGroup) : fetchGroup(g))));
    return { throttleTimeMs: 0, groups };
  },
});
