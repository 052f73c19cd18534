/**
 * The settings a share partition reads for its group: the broker's `group.share.*` values
 * (ShareGroupConfig), overridden by the group's own `share.*` configs (the GROUP config resource),
 * read at each use so that a change applies to the next acquisition.
 */
import type { ShareGroupConfig } from '../coordinator/group/share/share-group-config.js';
import type { GroupConfigOverrides } from '../metadata/config/group-configs.js';
import type { ShareAutoOffsetReset, SharePartitionConfigSource } from '../coordinator/share/partition/share-partition-config.js';

const DURATION = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i;

/** `earliest`, `latest` or `by_duration:<ISO 8601 duration>`, as the group config validation let it through. */
export function parseAutoOffsetReset(value: string | undefined): ShareAutoOffsetReset {
  if (value === undefined || value.toLowerCase() === 'latest') return { kind: 'latest' };
  if (value.toLowerCase() === 'earliest') return { kind: 'earliest' };
  const m = DURATION.exec(value.slice(value.indexOf(':') + 1));
  if (m === null) return { kind: 'latest' };
  const [days, hours, minutes, seconds] = [m[1], m[2], m[3], m[4]].map((part) => Number(part ?? 0));
  return { kind: 'by_duration', durationMs: Math.round((((days! * 24 + hours!) * 60 + minutes!) * 60 + seconds!) * 1000) };
}

/** `deadLetterQueuesEnabled`: the cluster's `share.version` is 2 or more (read at each use: UpdateFeatures may change it). */
export function sharePartitionConfigSource(
  broker: ShareGroupConfig,
  group: (groupId: string) => GroupConfigOverrides,
  deadLetterQueuesEnabled: () => boolean,
): SharePartitionConfigSource {
  return (groupId) => {
    const own = group(groupId);
    // Kafka's SharePartition.isDLQEnabledForGroup: a blank topic name is no dead-letter queue.
    const deadLetterTopic = own.errorsDeadLetterQueueTopicName?.trim() ?? '';
    return {
      recordLockDurationMs: own.shareRecordLockDurationMs ?? broker.recordLockDurationMs,
      deliveryCountLimit: own.shareDeliveryCountLimit ?? broker.deliveryCountLimit,
      partitionMaxRecordLocks: own.sharePartitionMaxRecordLocks ?? broker.partitionMaxRecordLocks,
      autoOffsetReset: parseAutoOffsetReset(own.shareAutoOffsetReset),
      readCommitted: own.shareIsolationLevel === 'read_committed',
      deadLetterQueue: deadLetterTopic !== '' && deadLetterQueuesEnabled(),
    };
  };
}
