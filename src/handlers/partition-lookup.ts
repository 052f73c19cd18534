/**
 * Resolves a (topic name, partition) of a request against the cluster metadata, as every
 * partition-level API does first: an unknown topic or a partition index outside the topic
 * answers UNKNOWN_TOPIC_OR_PARTITION for that partition only.
 */
import { ErrorCode } from '../protocol/errors.js';
import type { TopicImage } from '../cluster/metadata-image.js';
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
 * Answers every partition of every topic of a request concurrently, keeping the request's
 * order, as the partition-level APIs' responses mirror their requests.
 */
export async function answerPartitions<T, P, R>(
  topics: readonly T[],
  partitionsOf: (topic: T) => readonly P[],
  answer: (topic: T, partition: P) => Promise<R>,
): Promise<Array<{ topic: T; answers: R[] }>> {
  return Promise.all(topics.map(async (topic) => ({ topic, answers: await Promise.all(partitionsOf(topic).map((p) => answer(topic, p))) })));
}
