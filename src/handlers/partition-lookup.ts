/**
 * Resolves a (topic name, partition) of a request against the cluster metadata, as every
 * partition-level API does first: an unknown topic or a partition index outside the topic
 * answers UNKNOWN_TOPIC_OR_PARTITION for that partition only.
 */
import { ErrorCode } from '../protocol/errors.js';
import type { TopicMetadata } from '../cluster/cluster-metadata.js';
import type { ClusterContext } from './cluster-context.js';

export type PartitionLookup = { readonly ok: true; readonly topic: TopicMetadata } | { readonly ok: false; readonly errorCode: number };

export function lookupPartition(c: ClusterContext, topicName: string, partition: number): PartitionLookup {
  const topic = c.metadata.topic(topicName);
  if (topic === undefined || partition < 0 || partition >= topic.partitionCount) {
    return { ok: false, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
  }
  return { ok: true, topic };
}
