/**
 * What a share partition hands to its group's dead-letter queue (KIP-1191): a run of archived
 * offsets with the delivery count they reached and why they were given up on. Kafka 4.4's
 * SharePartition puts such records in the ARCHIVING state, persists that, writes them to the
 * dead-letter topic, and only then archives them; the port below is that write.
 */
import type { SharePartitionKey } from '../share-state-persister.js';

/** Why records went to the dead-letter queue: a consumer's REJECT, or the delivery-count limit. */
export type DeadLetterCause = 'rejected' | 'delivery-count-exceeded';

/** `__dlq.errors.message` for each cause: the messages of Kafka's `ShareGroupDLQManager`. */
export const DEAD_LETTER_MESSAGES: Readonly<Record<DeadLetterCause, string>> = {
  rejected: 'Offset rejected by client.',
  'delivery-count-exceeded': 'Offset delivery count exceeded the threshold.',
};

/**
 * The cause of records found ARCHIVING in the persisted state (the leader that set it is gone),
 * as Kafka derives it when it resumes their write: the delivery count tells the limit from a REJECT.
 */
export function restoredCause(deliveryCount: number, deliveryCountLimit: number): DeadLetterCause {
  return deliveryCount >= deliveryCountLimit ? 'delivery-count-exceeded' : 'rejected';
}

/** Consecutive source offsets with one delivery count and one cause. */
export interface DeadLetterRange {
  readonly firstOffset: bigint;
  readonly lastOffset: bigint;
  readonly deliveryCount: number;
  readonly cause: DeadLetterCause;
  /**
   * The records were ARCHIVING in the persisted state this leader started from: the leader before
   * may have written them already, so the write skips those the dead-letter topic holds.
   */
  readonly resumed: boolean;
}

/**
 * The group's dead-letter queue. `write` settles once the records are in the dead-letter topic or
 * have been given up on (a topic that cannot be used, an append that failed after its retries):
 * either way the share partition archives them next, as Kafka does ("proceeding to ARCHIVED
 * regardless"), so the implementation logs and counts its failures instead of rejecting.
 */
export interface DeadLetterQueue {
  write(key: SharePartitionKey, range: DeadLetterRange): Promise<void>;
}

/** For share partitions built without a dead-letter queue (tests): the records are archived at once. */
export const noDeadLetterQueue: DeadLetterQueue = {
  write: async () => undefined,
};
