import { type TopicPartition, topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';
/**
 * The partitions of a transaction: a set of topic-partitions kept in a stable order (topic, then
 * partition), so records, answers and replays come out the same every time.
 */
export function compareTopicPartitions(a: TopicPartition, b: TopicPartition): number {
  return a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;
}

/** `a ∪ b`, sorted and without duplicates. */
export function unionOf(a: readonly TopicPartition[], b: readonly TopicPartition[]): TopicPartition[] {
  const byKey = new Map<string, TopicPartition>();
  for (const tp of [...a, ...b]) byKey.set(topicPartitionKey(tp.topic, tp.partition), { topic: tp.topic, partition: tp.partition });
  return [...byKey.values()].sort(compareTopicPartitions);
}

export function containsAll(set: readonly TopicPartition[], wanted: readonly TopicPartition[]): boolean {
  return wanted.every((w) => contains(set, w));
}

export function contains(set: readonly TopicPartition[], tp: TopicPartition): boolean {
  return set.some((s) => s.topic === tp.topic && s.partition === tp.partition);
}

/** Grouped by topic, in order: the shape `__transaction_state` values and DescribeTransactions use. */
export function groupByTopic(set: readonly TopicPartition[]): Array<{ topic: string; partitions: number[] }> {
  const groups: Array<{ topic: string; partitions: number[] }> = [];
  for (const tp of [...set].sort(compareTopicPartitions)) {
    const last = groups[groups.length - 1];
    if (last !== undefined && last.topic === tp.topic) last.partitions.push(tp.partition);
    else groups.push({ topic: tp.topic, partitions: [tp.partition] });
  }
  return groups;
}
