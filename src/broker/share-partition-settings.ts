/**
 * The settings a share partition reads for its group: the broker's `group.share.*` values
 * (ShareGroupConfig), which a group's own `share.*` configs override.
 */
import type { ShareGroupConfig } from '../coordinator/group/share/share-group-config.js';
import type { SharePartitionConfigSource } from '../share/share-partition-config.js';

export function sharePartitionConfigSource(broker: ShareGroupConfig): SharePartitionConfigSource {
  const settings = {
    recordLockDurationMs: broker.recordLockDurationMs,
    deliveryCountLimit: broker.deliveryCountLimit,
    partitionMaxRecordLocks: broker.partitionMaxRecordLocks,
    autoOffsetReset: { kind: 'latest' },
    readCommitted: false,
  } as const;
  return () => settings;
}
