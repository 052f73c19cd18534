/**
 * What a share partition needs to know of its group's configuration. The `group.share.*` keys,
 * their per-group overrides (`share.*` group configs) and their validation belong to the group
 * coordinator; share partitions only read the effective values through a
 * `SharePartitionConfigSource`, and fall back on Kafka's defaults without one.
 */

/** `share.auto.offset.reset`: where a share-partition with no start offset begins. */
export type ShareAutoOffsetReset =
  { readonly kind: 'latest' } | { readonly kind: 'earliest' } | { readonly kind: 'by_duration'; readonly durationMs: number };

export interface SharePartitionConfig {
  /** `share.record.lock.duration.ms` (broker default `group.share.record.lock.duration.ms`). */
  readonly recordLockDurationMs: number;
  /** `share.delivery.count.limit` (`group.share.delivery.count.limit`): deliveries before a record is archived. */
  readonly deliveryCountLimit: number;
  /** `group.share.partition.max.record.locks`: in-flight records beyond which no new records are acquired. */
  readonly partitionMaxRecordLocks: number;
  readonly autoOffsetReset: ShareAutoOffsetReset;
  /** `share.isolation.level`: read_committed acquires up to the last stable offset and never an aborted transaction's records. */
  readonly readCommitted: boolean;
  /**
   * KIP-1191: the group names a dead-letter topic (`errors.deadletterqueue.topic.name`) and the
   * cluster's `share.version` is 2 or more, so rejected records and records past the delivery-count
   * limit go to the dead-letter queue before they are archived.
   */
  readonly deadLetterQueue: boolean;
}

/** The effective config of each group, read at every use so that a dynamic change applies to the next acquisition. */
export type SharePartitionConfigSource = (groupId: string) => SharePartitionConfig;

/** Kafka 4.4's defaults (GroupConfig / ShareGroupConfig). */
export const DEFAULT_SHARE_PARTITION_CONFIG: SharePartitionConfig = {
  recordLockDurationMs: 30_000,
  deliveryCountLimit: 5,
  partitionMaxRecordLocks: 2000,
  autoOffsetReset: { kind: 'latest' },
  readCommitted: false,
  deadLetterQueue: false,
};

export const defaultSharePartitionConfig: SharePartitionConfigSource = () => DEFAULT_SHARE_PARTITION_CONFIG;
