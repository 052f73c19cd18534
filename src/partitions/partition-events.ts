/**
 * What the partitions' replies tell the main thread besides their answers, and who must hear it:
 * the fetch purgatory (consumers wake on high watermark moves, followers on appends), the produce
 * purgatory (acks=all waits), and whoever proposes ISR changes to the controller.
 */
import type { FetchPurgatory } from './fetch-purgatory.js';
import type { ProducePurgatory } from './produce-purgatory.js';
import { topicPartitionKey } from '../common/topic-partition.js';

export interface PartitionEvents {
  /** A leader appended records; `highWatermark` is the new high watermark when the append moved it, else null. */
  appended(topic: string, partition: number, highWatermark: bigint | null): void;
  /** The high watermark moved without an append: a follower's fetch, an ISR change. */
  highWatermarkMoved(topic: string, partition: number, highWatermark: bigint): void;
  /** The controller's state reached the partition: its leadership, epoch or ISR may have changed. */
  stateApplied(topic: string, partition: number): void;
  /**
   * A follower outside the ISR qualified to join it with its fetch: time to ask for
   * `isrProposals`. Told on each such fetch until the expansion is proposed: coalesce.
   */
  isrCandidate(topic: string, partition: number): void;
}

/** The events routed to the purgatories; ISR candidates go to `onIsrCandidate` (the controller's side). */
export function purgatoryEvents(fetches: FetchPurgatory, produces: ProducePurgatory, onIsrCandidate: (topic: string, partition: number) => void): PartitionEvents {
  return {
    appended(topic, partition, highWatermark) {
      const key = topicPartitionKey(topic, partition);
      fetches.notifyAppend(key);
      if (highWatermark === null) return;
      fetches.notify(key);
      produces.highWatermarkMoved(key, highWatermark);
    },
    highWatermarkMoved(topic, partition, highWatermark) {
      const key = topicPartitionKey(topic, partition);
      fetches.notify(key);
      produces.highWatermarkMoved(key, highWatermark);
    },
    stateApplied(topic, partition) {
      // A fetch or produce parked on a replica that stopped leading answers NOT_LEADER_OR_FOLLOWER now, not at its timeout.
      const key = topicPartitionKey(topic, partition);
      fetches.notify(key);
      fetches.notifyAppend(key);
      produces.recheck(key);
    },
    isrCandidate: onIsrCandidate,
  };
}
