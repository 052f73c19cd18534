/**
 * What the share-state RPCs (83–87) have in common: brokers send them (CLUSTER_ACTION on the
 * cluster, else every partition is CLUSTER_AUTHORIZATION_FAILED, as Kafka's KafkaApis answers),
 * each share-partition is answered on its own by this broker's share coordinator, and a request
 * without a group id, topics or partitions gets an empty answer, as Kafka's service gives it.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { SharePartitionKey } from '../coordinator/share/share-state-persister.js';
import { AclOperation, authorizedOnCluster } from './authorization.js';
import type { RequestContext } from './handler.js';

interface TopicPartitions<P> {
  readonly topicId: string;
  readonly partitions: readonly P[];
}

export interface ShareStateResults<A> {
  readonly topicId: string;
  readonly partitions: A[];
}

/** Answers each partition of each topic through `answer`, or refuses them all (`refused`) without CLUSTER_ACTION. */
export async function answerSharePartitions<P extends { readonly partition: number }, A>(
  ctx: RequestContext,
  groupId: string,
  topics: readonly TopicPartitions<P>[],
  answer: (key: SharePartitionKey, partition: P) => Promise<A>,
  refused: (partition: number, errorCode: number) => A,
): Promise<ShareStateResults<A>[]> {
  if (!authorizedOnCluster(ctx, AclOperation.CLUSTER_ACTION)) {
    return topics.map((t) => ({
      topicId: t.topicId,
      partitions: t.partitions.map((p) => refused(p.partition, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)),
    }));
  }
  if (groupId === '' || topics.length === 0 || topics.some((t) => t.partitions.length === 0)) return [];
  return Promise.all(
    topics.map(async (t) => ({
      topicId: t.topicId,
      partitions: await Promise.all(t.partitions.map((p) => answer({ groupId, topicId: t.topicId, partition: p.partition }, p))),
    })),
  );
}
