/**
 * OffsetCommit and OffsetFetch name topics by name up to v9 and by id from v10 (KIP-848),
 * TxnOffsetCommit up to v5 and from v6. The
 * group coordinator keys offsets by topic name, as Kafka's records do, and takes no part in
 * deciding which topics exist: as Kafka's KafkaApis does, the handlers check each topic against
 * the cluster metadata first, answer for what does not exist themselves, hand the coordinator
 * the rest by name, and carry the ids back into its answer.
 */
import type { MetadataImage } from '../metadata/metadata-image.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type {
  OffsetFetchRequestOffsetFetchRequestGroup,
  OffsetFetchRequestOffsetFetchRequestTopics,
  OffsetFetchResponseOffsetFetchResponseGroupInput,
  OffsetFetchResponseOffsetFetchResponseTopicsInput,
} from '@sluice/protocol/messages/index.js';

/** OffsetCommit v10 and OffsetFetch v10 name topics by id instead of by name. */
export const FIRST_VERSION_WITH_TOPIC_IDS = 10;

/** The metadata image's topic lookups, all these checks need. */
type TopicLookup = Pick<MetadataImage, 'topic' | 'topicById'>;

/** A topic of an OffsetCommit or TxnOffsetCommit request: both name topics by name, or by id in their later versions. */
interface CommitTopic {
  readonly name: string;
  readonly topicId: string;
  readonly partitions: ReadonlyArray<{ readonly partitionIndex: number }>;
}

/** A topic's answer in OffsetCommit and TxnOffsetCommit responses. */
export interface CommitTopicAnswer {
  name?: string;
  topicId?: string;
  partitions?: Array<{ partitionIndex?: number; errorCode?: number }>;
}

/** A commit's topics split into what the coordinator is to store and what is answered here. */
export interface CommitTopics<T extends CommitTopic> {
  /** The partitions that exist, their topics named by name (and still carrying the id asked by). */
  readonly known: T[];
  /** The answers for the rest: every partition of an unknown topic, and indexes the topic does not have. */
  readonly refused: CommitTopicAnswer[];
}

/**
 * `byId`: the request names its topics by id (OffsetCommit v10+, TxnOffsetCommit v6+). `mayRead`:
 * whether the principal may READ a topic; as Kafka, a name is authorized before it is looked up,
 * an id once it resolves to a name.
 */
export function splitCommitTopics<T extends CommitTopic>(
  lookup: TopicLookup,
  topics: readonly T[],
  byId: boolean,
  mayRead: (topic: string) => boolean,
): CommitTopics<T> {
  const known: T[] = [];
  const refused: CommitTopicAnswer[] = [];
  const refuse = (t: T, partitions: T['partitions'], errorCode: number): void => {
    refused.push({
      name: t.name,
      topicId: t.topicId,
      partitions: partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })),
    });
  };
  for (const t of topics) {
    const topic = byId ? lookup.topicById(t.topicId) : lookup.topic(t.name);
    // Answered even when it lists no partitions, as Kafka does.
    if (byId && topic === undefined) {
      refuse(t, t.partitions, ErrorCode.UNKNOWN_TOPIC_ID);
      continue;
    }
    if (!mayRead(topic?.name ?? t.name)) {
      refuse(t, t.partitions, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
      continue;
    }
    if (topic === undefined) {
      refuse(t, t.partitions, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      continue;
    }
    const exists = (p: { partitionIndex: number }): boolean => p.partitionIndex >= 0 && p.partitionIndex < topic.partitionCount;
    const missing = t.partitions.filter((p) => !exists(p));
    if (missing.length > 0) refuse(t, missing, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const present = t.partitions.filter(exists);
    if (present.length > 0) known.push({ ...t, name: topic.name, partitions: present });
  }
  return { known, refused };
}

/**
 * The commit answer as Kafka builds it: the refused partitions first, then the coordinator's,
 * each added to the entry of its topic (by id when the request names ids, where every unknown
 * topic has the same empty name) in order of first appearance. When nothing was refused the
 * coordinator's answer stands as it is, one entry per topic of the request.
 */
export function commitAnswer<A extends CommitTopicAnswer>(
  refused: readonly CommitTopicAnswer[],
  stored: readonly A[],
  byId: boolean,
): CommitTopicAnswer[] {
  if (refused.length === 0) return [...stored];
  const keyOf = (t: CommitTopicAnswer): string => (byId ? (t.topicId ?? '') : (t.name ?? ''));
  const entries = new Map<string, { topic: CommitTopicAnswer; partitions: Array<{ partitionIndex?: number; errorCode?: number }> }>();
  for (const t of [...refused, ...stored]) {
    const entry = entries.get(keyOf(t));
    if (entry === undefined) entries.set(keyOf(t), { topic: t, partitions: [...(t.partitions ?? [])] });
    // A loop, not push(...): one topic may carry more partitions than a call takes arguments.
    else for (const p of t.partitions ?? []) entry.partitions.push(p);
  }
  return [...entries.values()].map(({ topic, partitions }) => ({ ...topic, partitions }));
}

/** Every known partition answered with the coordinator's error. */
export function commitFailed(known: readonly CommitTopic[], errorCode: number): CommitTopicAnswer[] {
  return known.map((t) => ({
    name: t.name,
    topicId: t.topicId,
    partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })),
  }));
}

type FetchGroupAnswer = OffsetFetchResponseOffsetFetchResponseGroupInput;

/**
 * One group of an OffsetFetch v10: the ids asked for resolved to names for `fetchByName`, whose
 * answer (which echoes the ids) comes first, followed — as Kafka orders them — by the ids the
 * cluster does not know (the zero id included), each partition UNKNOWN_TOPIC_ID.
 */
export async function fetchByTopicId(
  lookup: TopicLookup,
  group: OffsetFetchRequestOffsetFetchRequestGroup,
  fetchByName: (group: OffsetFetchRequestOffsetFetchRequestGroup) => Promise<FetchGroupAnswer>,
): Promise<FetchGroupAnswer> {
  if (group.topics === null) {
    const answer = await fetchByName(group);
    // Every committed offset: a v10 client knows a topic only by its id, so the offsets of one no
    // longer in the metadata (deleted since the commit) are left out.
    const topics = (answer.topics ?? []).flatMap((t) => {
      const topic = lookup.topic(t.name ?? '');
      return topic === undefined ? [] : [{ ...t, topicId: topic.topicId }];
    });
    return { ...answer, topics };
  }
  const known: OffsetFetchRequestOffsetFetchRequestTopics[] = [];
  const unknown: OffsetFetchRequestOffsetFetchRequestTopics[] = [];
  for (const t of group.topics) {
    const topic = lookup.topicById(t.topicId);
    if (topic === undefined) unknown.push(t);
    else known.push({ ...t, name: topic.name });
  }
  const answer = await fetchByName({ ...group, topics: known });
  // A group-level error answers for the whole group.
  if ((answer.errorCode ?? ErrorCode.NONE) !== ErrorCode.NONE) return { ...answer, topics: [] };
  return { ...answer, topics: [...(answer.topics ?? []), ...unknown.map(unknownTopicId)] };
}

function unknownTopicId(t: OffsetFetchRequestOffsetFetchRequestTopics): OffsetFetchResponseOffsetFetchResponseTopicsInput {
  return {
    name: '',
    topicId: t.topicId,
    partitions: t.partitionIndexes.map((partitionIndex) => ({
      partitionIndex,
      committedOffset: -1n,
      committedLeaderEpoch: -1,
      metadata: '',
      errorCode: ErrorCode.UNKNOWN_TOPIC_ID,
    })),
  };
}
