/**
 * A topic's partitions as the producer and consumer need them: known, and each with a leader.
 * Anything else right after a topic was created or during an election is a retriable error, so
 * callers wrap this in `withRetries`.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { throwIfError } from './client-errors.js';
import type { KafkaCluster, MetadataOptions } from './cluster.js';
import type { PartitionMetadata, TopicMetadata } from './cluster-metadata.js';

export async function topicWithLeaders(cluster: KafkaCluster, topic: string, options: MetadataOptions = {}): Promise<TopicMetadata> {
  const metadata = await cluster.metadata([topic], options);
  const t = metadata.topics.get(topic);
  if (t === undefined) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `topic '${topic}' is not in the metadata`);
  throwIfError(t.errorCode, null, `topic '${topic}'`);
  if (t.partitions.length === 0) throw new KafkaError(ErrorCode.LEADER_NOT_AVAILABLE, `topic '${topic}' has no partitions yet`);
  // A partition with a leader is usable even if it reports an offline replica (REPLICA_NOT_AVAILABLE).
  for (const p of t.partitions) {
    if (p.leaderId < 0)
      throwIfError(
        p.errorCode === ErrorCode.NONE ? ErrorCode.LEADER_NOT_AVAILABLE : p.errorCode,
        null,
        `topic '${topic}' partition ${p.partition}`,
      );
  }
  return t;
}

/** The topic's partition with this index; an index outside the topic is a non-retriable usage error. */
export function requirePartition(topic: TopicMetadata, partition: number): PartitionMetadata {
  const p = topic.partitions.find((x) => x.partition === partition);
  if (p === undefined) {
    throw new KafkaError(
      ErrorCode.INVALID_REQUEST,
      `partition ${partition} is not in [0, ${topic.partitions.length}) of topic '${topic.name}'`,
    );
  }
  return p;
}

/** Partition indexes grouped by their leader's node id. */
export function groupByLeader(topic: TopicMetadata, partitions: Iterable<number>): Map<number, number[]> {
  const byLeader = new Map<number, number[]>();
  for (const partition of partitions) {
    const leader = requirePartition(topic, partition).leaderId;
    const list = byLeader.get(leader);
    if (list === undefined) byLeader.set(leader, [partition]);
    else list.push(partition);
  }
  return byLeader;
}
