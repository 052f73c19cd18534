/**
 * The port between share partitions (and the group coordinator) and the share coordinator: the
 * durable state of one share-partition, keyed by group, topic id and partition, as Kafka's
 * `Persister` carries it. Kafka batches these calls per coordinator; an implementation may batch
 * internally, which is why each call takes one share-partition and answers on its own.
 *
 * Every failure is thrown as a `KafkaError` carrying the code the share coordinator answered
 * (e.g. FENCED_STATE_EPOCH, FENCED_LEADER_EPOCH, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR).
 * A share-partition that was never initialized (or was deleted) is INVALID_REQUEST for `read`
 * and `write`, as Kafka 4.4's share coordinator answers; `readSummary` answers it with start
 * offset -1 and `delete` succeeds. UNKNOWN_TOPIC_OR_PARTITION means the topic or partition is
 * not in the coordinator's metadata.
 */

/** A share-partition: `groupId:topicId:partition` is also its key for FindCoordinator type 2. */
export interface SharePartitionKey {
  readonly groupId: string;
  /** Kafka's topic UUID in its text form (see common/uuid.ts). */
  readonly topicId: string;
  readonly partition: number;
}

/** Kafka's `RecordState` ids as the share coordinator stores them. */
export const enum ShareDeliveryState {
  AVAILABLE = 0,
  ACQUIRED = 1,
  ACKNOWLEDGED = 2,
  /** Given up on and waiting for its dead-letter write (KIP-1191); ARCHIVED once that is done. */
  ARCHIVING = 3,
  ARCHIVED = 4,
}

/** A run of offsets in one delivery state, as persisted (ShareSnapshot/ShareUpdate `StateBatches`). */
export interface ShareStateBatch {
  readonly firstOffset: bigint;
  readonly lastOffset: bigint;
  readonly deliveryState: ShareDeliveryState;
  readonly deliveryCount: number;
}

/** What ReadShareGroupState answers for one share-partition. */
export interface ShareStateSnapshot {
  readonly stateEpoch: number;
  /** -1 while the share-partition has no start offset yet (`share.auto.offset.reset` decides). */
  readonly startOffset: bigint;
  readonly leaderEpoch: number;
  readonly stateBatches: readonly ShareStateBatch[];
}

/** What ReadShareGroupStateSummary answers: enough for DescribeShareGroupOffsets and lag. */
export interface ShareStateSummary {
  readonly stateEpoch: number;
  readonly startOffset: bigint;
  readonly leaderEpoch: number;
  /** KIP-1226 (ReadShareGroupStateSummary v1): offsets at or above the start offset whose delivery is complete; -1 when unknown. */
  readonly deliveryCompleteCount?: number;
}

export interface ShareStateWrite {
  readonly stateEpoch: number;
  readonly leaderEpoch: number;
  /** -1 leaves the start offset as it is. */
  readonly startOffset: bigint;
  readonly stateBatches: readonly ShareStateBatch[];
  /** KIP-1226 (WriteShareGroupState v1): offsets at or above the start offset whose delivery is complete; absent or -1 when unknown. */
  readonly deliveryCompleteCount?: number;
}

export interface SharePersister {
  /** InitializeShareGroupState (83): (re)starts the share-partition at `startOffset` (-1: unset). */
  initialize(key: SharePartitionKey, stateEpoch: number, startOffset: bigint): Promise<void>;
  /** ReadShareGroupState (84), by the partition leader at `leaderEpoch` (which fences older leaders). */
  read(key: SharePartitionKey, leaderEpoch: number): Promise<ShareStateSnapshot>;
  /** WriteShareGroupState (85): the changed batches since the last write, or a whole new state. */
  write(key: SharePartitionKey, state: ShareStateWrite): Promise<void>;
  /** DeleteShareGroupState (86): forgets the share-partition (DeleteShareGroupOffsets, DeleteGroups). */
  delete(key: SharePartitionKey): Promise<void>;
  /** ReadShareGroupStateSummary (87). */
  readSummary(key: SharePartitionKey, leaderEpoch: number): Promise<ShareStateSummary>;
}
