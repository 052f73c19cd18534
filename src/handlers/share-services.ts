/**
 * What ShareFetch and ShareAcknowledge need beyond the cluster context: the share partitions this
 * broker leads (over the share coordinator's `SharePersister`), the share sessions, and the
 * reading of batch headers from fetched file ranges. The composition root builds them; until it
 * does, the two handlers are not registered.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { FetchedBatches } from '../coordinator/share/partition/log-batches.js';
import type { SharePartitionManager } from '../coordinator/share/partition/share-partition-manager.js';
import type { ShareSessionCache } from '../coordinator/share/partition/share-session-cache.js';
import type { SharePartitionKey } from '../coordinator/share/share-state-persister.js';
import type { ClusterContext } from './cluster-context.js';
import { topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';

export interface ShareServices {
  readonly partitions: SharePartitionManager;
  readonly sessions: ShareSessionCache;
  readonly batches: FetchedBatches;
}

export function sharesOf(c: ClusterContext): ShareServices {
  if (c.shares === undefined) throw new KafkaError(ErrorCode.UNSUPPORTED_VERSION, 'share groups are not enabled on this broker');
  return c.shares;
}

/**
 * The `SharePartitionManager`'s `recordsAvailable`: wakes the ShareFetches long-polling on the
 * partition (they wait in the fetch purgatory under the topic's name), as Kafka completes its
 * delayed share fetches when records are released.
 */
export function wakeShareFetches(cluster: () => ClusterContext): (key: SharePartitionKey) => void {
  return (key) => {
    const c = cluster();
    const topic = c.metadata.topicById(key.topicId);
    if (topic !== undefined) c.purgatory.notify(topicPartitionKey(topic.name, key.partition));
  };
}

/**
 * The partition events' `stateApplied` for share partitions: a partition this broker stopped
 * leading, or leads at a new epoch, drops its share partitions, so that the next ShareFetch opens
 * them again from the share coordinator's state (which fences the old leader epoch).
 */
export function followShareLeadership(cluster: () => ClusterContext | null): (topic: string, partition: number) => void {
  return (topic, partition) => {
    const c = cluster();
    if (c === null || c.shares === undefined) return;
    const image = c.metadata;
    const topicImage = image.topic(topic);
    if (topicImage === undefined) return;
    const registration = image.partition(topic, partition);
    const leaderEpoch = registration !== undefined && registration.leader === c.nodeId ? registration.leaderEpoch : null;
    void c.shares.partitions.leadershipChanged(topicImage.topicId, partition, leaderEpoch);
  };
}
