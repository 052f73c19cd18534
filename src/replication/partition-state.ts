/**
 * A partition's replica state as the controller sets it, and the ISR changes its leader proposes
 * to the controller and the answers that come back: what the worker's `Partition` is told and
 * tells. Plain values, carried over the partition workers' rings by `partition-protocol.ts`.
 */
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

/**
 * A partition's replica state as the controller assigns it (Kafka's LeaderAndIsr for one
 * partition): which broker leads, at which epoch, with which replicas and in-sync replicas.
 */
export interface PartitionStateCommand {
  readonly partition: number;
  readonly leader: number;
  readonly leaderEpoch: number;
  /**
   * The version of this state in ZooKeeper (the partition state znode's version): every ISR
   * change bumps it, and a leader names it in AlterPartition so that the controller refuses a
   * proposal made from an outdated state.
   */
  readonly partitionEpoch: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
}

/**
 * The controller's answer to one ISR change a leader proposed (`IsrChangeRequest`, Kafka's
 * AlterPartition for one partition). Once proposed, a change is pending until its answer arrives
 * or a new state arrives with `open`; no other change is proposed meanwhile.
 */
export interface IsrAnswer extends TopicPartition {
  /** The proposal answered: its leader epoch and partition epoch, as its leader proposed them. */
  readonly proposedLeaderEpoch: number;
  readonly proposedPartitionEpoch: number;
  /** NONE, with the state the controller committed below; otherwise the controller's error for the partition. */
  readonly errorCode: number;
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
  readonly isr: readonly number[];
}
