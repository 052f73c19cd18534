/**
 * What the partitions' replies tell the main thread besides their answers, and who must hear it:
 * the fetch purgatory (consumers wake on high watermark moves, followers on appends), the produce
 * purgatory (the acks=all waits the workers answered), and whoever sends ISR changes to the
 * controller.
 */
import type { Offset } from '@sluice/protocol/common/offsets.js';
import type { FetchPurgatory } from './fetch-purgatory.js';
import type { ProducePurgatory } from './produce-purgatory.js';
import type { CompletedAck, IsrChangeProposal } from './partition-protocol.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';

export interface PartitionEvents {
  /** A leader appended records; `highWatermark` is the new high watermark when the append moved it, else null. */
  appended(topic: string, partition: number, highWatermark: Offset | null): void;
  /** The high watermark moved without an append: a follower's fetch, an ISR change. */
  highWatermarkMoved(topic: string, partition: number, highWatermark: Offset): void;
  /** The controller's state reached the partition: its leadership, epoch or ISR may have changed. */
  stateApplied(topic: string, partition: number): void;
  /** acks=all waits their leaders answered (in the reply of whichever op decided them). */
  acksCompleted(completed: readonly CompletedAck[]): void;
  /** A partition worker stopped: `owns` tells its partitions, whose acks=all waits no one will answer. */
  workerLost(owns: (topic: string, partition: number) => boolean): void;
  /**
   * A follower outside the ISR qualified to join it with its fetch, and its leader proposed the
   * change (pending now, once): to send to the controller.
   */
  isrProposed(topic: string, partition: number, proposal: IsrChangeProposal): void;
}

/** The events routed to the purgatories; ISR proposals go to `onIsrProposal` (the controller's side). */
export function purgatoryEvents(
  fetches: FetchPurgatory,
  produces: ProducePurgatory,
  onIsrProposal: (topic: string, partition: number, proposal: IsrChangeProposal) => void,
): PartitionEvents {
  return {
    appended(topic, partition, highWatermark) {
      const key = topicPartitionKey(topic, partition);
      fetches.notifyAppend(key);
      if (highWatermark !== null) fetches.notify(key);
    },
    highWatermarkMoved(topic, partition) {
      fetches.notify(topicPartitionKey(topic, partition));
    },
    stateApplied(topic, partition) {
      // A fetch parked on a replica that stopped leading answers NOT_LEADER_OR_FOLLOWER now, not at its timeout.
      const key = topicPartitionKey(topic, partition);
      fetches.notify(key);
      fetches.notifyAppend(key);
    },
    acksCompleted(completed) {
      produces.complete(completed);
    },
    workerLost(owns) {
      // As the worker's own answer to a request it cannot serve.
      produces.failWhere(owns, ErrorCode.KAFKA_STORAGE_ERROR);
    },
    isrProposed: onIsrProposal,
  };
}
