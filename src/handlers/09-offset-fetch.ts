/**
 * OffsetFetch (key 9): committed offsets of one group (v0–7) or several (v8+), each answered by
 * its own coordinator. v10 names topics by id, resolved here to the names the coordinator keys
 * offsets by. A topic or partition that does not exist is no error when named (Kafka answers
 * offset -1 for it); an unknown id is UNKNOWN_TOPIC_ID.
 */
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import {
  OffsetFetchRequest,
  OffsetFetchResponse,
  type OffsetFetchRequestData,
  type OffsetFetchRequestOffsetFetchRequestGroup,
  type OffsetFetchResponseDataInput,
  type OffsetFetchResponseOffsetFetchResponseGroupInput,
} from '@sluice/protocol/messages/index.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler, type RequestContext } from './handler.js';
import { AclOperation, authorized, authorizedNames, ResourceType } from './authorization.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { FIRST_VERSION_WITH_TOPIC_IDS, fetchByTopicId } from './offset-topics.js';

const BATCHED_VERSION = 8;

interface AskedTopic {
  readonly name: string;
  /** v10 names topics by id (resolved to names before this point); the answer echoes it. */
  readonly topicId?: string;
  readonly partitionIndexes: readonly number[];
}

interface AnsweredTopic {
  name?: string;
  topicId?: string;
  partitions?: Array<{
    partitionIndex?: number;
    committedOffset?: bigint;
    committedLeaderEpoch?: number;
    metadata?: string | null;
    errorCode?: number;
  }>;
}

/**
 * As Kafka: a group the principal may not DESCRIBE is refused whole; of its topics, those it may
 * not DESCRIBE are left out of an "every topic" answer and answered TOPIC_AUTHORIZATION_FAILED
 * when named. `fetch` gets the group with only the topics it may see.
 */
async function fetchAuthorized<
  G extends { groupId: string; topics: AskedTopic[] | null },
  A extends { errorCode?: number; topics?: AnsweredTopic[] },
>(ctx: RequestContext, group: G, fetch: (group: G) => Promise<A>, groupRefused: () => A): Promise<A> {
  if (!authorized(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, group.groupId)) return groupRefused();
  const mayDescribe = authorizedNames(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC);
  if (group.topics === null) {
    const answer = await fetch(group);
    return { ...answer, topics: (answer.topics ?? []).filter((t) => mayDescribe(t.name ?? '')) };
  }
  const denied = group.topics.filter((t) => !mayDescribe(t.name));
  if (denied.length === 0) return fetch(group);
  const answer = await fetch({ ...group, topics: group.topics.filter((t) => mayDescribe(t.name)) });
  if ((answer.errorCode ?? ErrorCode.NONE) !== ErrorCode.NONE) return answer;
  const refused = denied.map((t) => ({
    name: t.name,
    ...(t.topicId === undefined ? {} : { topicId: t.topicId }),
    partitions: t.partitionIndexes.map((partitionIndex) => ({
      partitionIndex,
      committedOffset: -1n,
      committedLeaderEpoch: -1,
      metadata: '',
      errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
    })),
  }));
  return { ...answer, topics: [...(answer.topics ?? []), ...refused] };
}

export const offsetFetchHandler = defineHandler({
  request: OffsetFetchRequest,
  response: OffsetFetchResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const version = ctx.header.requestApiVersion;
    if (version < BATCHED_VERSION) {
      const fetchOne = async (asked: OffsetFetchRequestData): Promise<OffsetFetchResponseDataInput> => {
        try {
          return await c.groups.read(asked.groupId, (coordinator) => coordinator.fetchOffsets(asked, version));
        } catch (err) {
          return { errorCode: kafkaErrorCode(err), topics: [] };
        }
      };
      const response = await fetchAuthorized(ctx, request, fetchOne, () => ({
        errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED,
        topics: [],
      }));
      return { throttleTimeMs: 0, ...response };
    }
    const fetchGroup = (g: OffsetFetchRequestOffsetFetchRequestGroup): Promise<OffsetFetchResponseOffsetFetchResponseGroupInput> =>
      fetchAuthorized(ctx, g, fetchNamed, () => ({ groupId: g.groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, topics: [] }));
    const fetchNamed = async (g: OffsetFetchRequestOffsetFetchRequestGroup): Promise<OffsetFetchResponseOffsetFetchResponseGroupInput> => {
      try {
        const one: OffsetFetchResponseDataInput = await c.groups.read(g.groupId, (coordinator) =>
          coordinator.fetchOffsets({ ...request, groups: [g] }, version),
        );
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
