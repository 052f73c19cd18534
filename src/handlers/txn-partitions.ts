/**
 * The partitions of a transaction as the transaction APIs carry them: requests name them per
 * topic, the coordinator and the marker writes take them flat, and answers go back per topic in
 * the order the topics first appeared.
 */
import { groupBy } from '@sluice/protocol/common/group-by.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

export type { TopicPartition };

export interface PartitionErrorRef extends TopicPartition {
  readonly errorCode: number;
}

export function flattenTopics<T>(
  topics: readonly T[],
  name: (topic: T) => string,
  partitions: (topic: T) => readonly number[],
): TopicPartition[] {
  return topics.flatMap((t) => partitions(t).map((partition) => ({ topic: name(t), partition })));
}

export function answersByTopic(
  results: readonly PartitionErrorRef[],
): Array<{ name: string; partitions: Array<{ partitionIndex: number; errorCode: number }> }> {
  return [...groupBy(results, (r) => r.topic)].map(([name, rs]) => ({
    name,
    partitions: rs.map((r) => ({ partitionIndex: r.partition, errorCode: r.errorCode })),
  }));
}

/** Every partition answered with one error: a request that fails as a whole. */
export function allFailed(refs: readonly TopicPartition[], errorCode: number): PartitionErrorRef[] {
  return refs.map((r) => ({ topic: r.topic, partition: r.partition, errorCode }));
}
