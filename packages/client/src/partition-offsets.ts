/**
 * ListOffsets across topics: the consumer client answers for one topic at a time (leaders,
 * retries, "no record at the timestamp" meaning the end), so partitions of several topics are
 * asked topic by topic, in parallel.
 */
import type { KafkaCluster } from './cluster.js';
import { KafkaConsumerClient, type OffsetSpec, type Positions } from './consumer-client.js';
import type { TopicPartitions } from './consumer-protocol.js';

/** The offset `spec` names in each partition, by topic then partition index. */
export async function listPartitionOffsets(
  cluster: KafkaCluster,
  partitions: readonly TopicPartitions[],
  spec: OffsetSpec,
): Promise<Map<string, Positions>> {
  const answers = await Promise.all(
    partitions.map(async (t) => [t.topic, await new KafkaConsumerClient(cluster, t.topic).listOffsets(t.partitions, spec)] as const),
  );
  return new Map(answers);
}

/** Partition offsets grouped by topic, in first-seen order, for requests that name each topic once. */
export function byTopic(partitions: Iterable<{ readonly topic: string; readonly partition: number }>): TopicPartitions[] {
  const grouped = new Map<string, number[]>();
  for (const p of partitions) {
    const list = grouped.get(p.topic);
    if (list === undefined) grouped.set(p.topic, [p.partition]);
    else list.push(p.partition);
  }
  return [...grouped].map(([topic, indexes]) => ({ topic, partitions: indexes }));
}

/** By topic name, then partition index: the order Kafka's tools print partitions in. */
export function comparePartitions(
  a: { readonly topic: string; readonly partition: number },
  b: { readonly topic: string; readonly partition: number },
): number {
  return a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;
}
