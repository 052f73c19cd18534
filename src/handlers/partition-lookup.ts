/**
 * Resolves a (topic name, partition) of a request against the cluster metadata, as every
 * partition-level API does first: an unknown topic or a partition index outside the topic
 * answers UNKNOWN_TOPIC_OR_PARTITION for that partition only. Also how a request's partitions
 * are answered: concurrently, and, for the APIs where Kafka keys them by topic-partition, each
 * distinct partition once.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { TopicImage } from '../metadata/metadata-image.js';
import type { ClusterContext } from './cluster-context.js';

export type PartitionLookup = { readonly ok: true; readonly topic: TopicImage } | { readonly ok: false; readonly errorCode: number };

export function lookupPartition(c: ClusterContext, topicName: string, partition: number): PartitionLookup {
  const topic = c.metadata.topic(topicName);
  if (topic === undefined || partition < 0 || partition >= topic.partitionCount) {
    return { ok: false, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
  }
  return { ok: true, topic };
}

/**
 * The code a data request (Produce, Fetch, ListOffsets, OffsetForLeaderEpoch, DeleteRecords)
 * answers for a partition the metadata lists, from its owner's: a partition this broker does not
 * host — its LeaderAndIsr not applied yet, or no longer a replica here — answers
 * NOT_LEADER_OR_FOLLOWER, as Kafka's ReplicaManager does for a partition its metadata cache
 * holds, so that the client refreshes its metadata and finds the leader.
 */
export function listedPartitionError(ownerCode: number): number {
  return ownerCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ownerCode;
}

/**
 * Answers every partition of every topic of a request concurrently, keeping the request's
 * order, as the partition-level APIs' responses mirror their requests.
 */
export async function answerPartitions<T, P, R>(
  topics: readonly T[],
  partitionsOf: (topic: T) => readonly P[],
  answer: (topic: T, partition: P) => Promise<R>,
): Promise<Array<{ topic: T; answers: R[] }>> {
  return Promise.all(
    topics.map(async (topic) => ({ topic, answers: await Promise.all(partitionsOf(topic).map((p) => answer(topic, p))) })),
  );
}

/** One distinct partition of a request: the last of its copies, and how many copies there were. */
export interface MergedPartition<P> {
  readonly entry: P;
  readonly copies: number;
}

export interface MergedTopic<T, P> {
  /** The topic's first entry in the request (its name or id is the same in every entry). */
  readonly topic: T;
  readonly partitions: MergedPartition<P>[];
}

/**
 * A request's topics and partitions as Kafka sees them once it has put them in a map keyed by
 * topic-partition (ListOffsets, DeleteRecords, Produce, Fetch): a topic named in several entries
 * answers once, each partition once, and a later copy of a partition replaces an earlier one
 * (a map's put). Kept in the order of first appearance. `copies` lets ListOffsets refuse a
 * duplicated partition with INVALID_REQUEST, as Kafka does, rather than pick one.
 */
export function mergePartitions<T, P>(
  topics: readonly T[],
  topicKey: (topic: T) => string,
  partitionsOf: (topic: T) => readonly P[],
  indexOf: (partition: P) => number,
): MergedTopic<T, P>[] {
  const merged = new Map<string, { topic: T; partitions: Map<number, { entry: P; copies: number }> }>();
  for (const topic of topics) {
    const key = topicKey(topic);
    let into = merged.get(key);
    if (into === undefined) {
      into = { topic, partitions: new Map() };
      merged.set(key, into);
    }
    for (const entry of partitionsOf(topic)) {
      const index = indexOf(entry);
      const seen = into.partitions.get(index);
      into.partitions.set(index, { entry, copies: (seen?.copies ?? 0) + 1 });
    }
  }
  return [...merged.values()].map(({ topic, partitions }) => ({ topic, partitions: [...partitions.values()] }));
}
