/**
 * The ports through which a cluster member's handlers reach what the controller's requests
 * change (`ReplicaControl`: LeaderAndIsr, UpdateMetadata, StopReplica) and, on the active
 * controller, what brokers ask of it (`ControllerPort`: AlterPartition, ControlledShutdown).
 * Handlers decode and encode; these interfaces carry plain values, so the handlers know nothing
 * of ZooKeeper or of the fetchers. A single broker has neither.
 */
import type { MetadataUpdate } from './cluster-metadata-cache.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

export interface ControllerStamp {
  readonly controllerId: number;
  readonly controllerEpoch: number;
  /** The epoch of this broker's registration the controller knows; -1 when not sent. */
  readonly brokerEpoch: bigint;
}

export interface LeaderAndIsrPartition {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly isr: readonly number[];
  readonly partitionEpoch: number;
  readonly replicas: readonly number[];
  readonly isNew: boolean;
}

export interface PartitionError {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
  readonly errorCode: number;
}

export interface ControlAnswer {
  readonly errorCode: number;
  readonly partitionErrors: readonly PartitionError[];
}

export interface StopReplicaPartition {
  readonly topic: string;
  readonly partition: number;
  readonly leaderEpoch: number;
  readonly deletePartition: boolean;
}

export interface ReplicaControl {
  leaderAndIsr(stamp: ControllerStamp, partitions: readonly LeaderAndIsrPartition[]): Promise<ControlAnswer>;
  updateMetadata(stamp: ControllerStamp, update: MetadataUpdate): Promise<number>;
  stopReplica(stamp: ControllerStamp, partitions: readonly StopReplicaPartition[]): Promise<ControlAnswer>;
}

export interface IsrChangeRequest {
  readonly topic: string;
  readonly partition: number;
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
  readonly newIsr: readonly number[];
}

export interface IsrChangeAnswer extends IsrChangeRequest {
  readonly errorCode: number;
  readonly leader: number;
}

/** ElectLeaders' election types. */
export const ElectionType = { PREFERRED: 0, UNCLEAN: 1 } as const;

/** One partition's answer to an election or a reassignment. */
export interface ElectionResult {
  readonly topic: string;
  readonly partition: number;
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

export interface ReassignmentRequest {
  readonly topic: string;
  readonly partition: number;
  /** The replicas wanted, or null to cancel the reassignment in progress. */
  readonly target: readonly number[] | null;
}

export interface ReassignmentState {
  readonly topic: string;
  readonly partition: number;
  readonly replicas: readonly number[];
  readonly adding: readonly number[];
  readonly removing: readonly number[];
}

export interface ControllerPort {
  /** AlterPartitionReassignments (KIP-455), answered per partition. */
  alterReassignments(items: readonly ReassignmentRequest[]): Promise<readonly ElectionResult[]>;
  listReassignments(
    partitions: readonly TopicPartition[] | null,
  ): Promise<{ errorCode: number; reassignments: readonly ReassignmentState[] }>;
  /** ElectLeaders: `partitions` null means every partition (then only those elected or failing are answered). */
  electLeaders(
    electionType: number,
    partitions: readonly TopicPartition[] | null,
  ): Promise<{ errorCode: number; results: readonly ElectionResult[] }>;
  alterPartition(
    brokerId: number,
    brokerEpoch: bigint,
    items: readonly IsrChangeRequest[],
  ): Promise<{ errorCode: number; partitions: readonly IsrChangeAnswer[] }>;
  controlledShutdown(brokerId: number, brokerEpoch: bigint): Promise<{ errorCode: number; remaining: readonly TopicPartition[] }>;
}

export interface TopicPartitionError {
  readonly topic: string;
  readonly partition: number;
  readonly errorCode: number;
}

/** The end of one transaction, to be written to `partitions` (WriteTxnMarkers' fields). */
export interface TxnMarkerSpec {
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly coordinatorEpoch: number;
  readonly commit: boolean;
  readonly transactionVersion: number;
  readonly partitions: readonly TopicPartition[];
}

/** One transaction's partitions as a leader asks its coordinator about them (AddPartitionsToTxn v4+). */
export interface TxnPartitionsSpec {
  readonly transactionalId: string;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly verifyOnly: boolean;
  readonly partitions: readonly TopicPartition[];
}

/**
 * The transaction requests between brokers: a coordinator's markers to the partitions' leaders,
 * and a leader's verification with the coordinator (KIP-890). Answers come per partition, in
 * the order asked; a broker that cannot be reached answers every partition with a retriable error.
 */
export interface TransactionPeers {
  writeMarkers(brokerId: number, marker: TxnMarkerSpec): Promise<TopicPartitionError[]>;
  addPartitions(brokerId: number, request: TxnPartitionsSpec): Promise<TopicPartitionError[]>;
}

/** A partition's end offset as its leader answered ListOffsets LATEST, or the error it answered. */
export interface PartitionEndAnswer {
  readonly errorCode: number;
  readonly offset: bigint;
}

/** The high watermarks of partitions led by another broker (a share group's lag), in the order asked. */
export interface PartitionEndPeers {
  latestOffsets(brokerId: number, partitions: ReadonlyArray<TopicPartition>): Promise<PartitionEndAnswer[]>;
}

/** What a cluster member adds to the handlers' context. */
export interface ClusterMembership {
  /** The listener brokers reach each other on: UpdateMetadata's endpoint of it is where a broker is dialled. */
  readonly interBrokerListenerName: string;
  readonly replicas: ReplicaControl;
  readonly controller: ControllerPort;
  readonly transactionPeers: TransactionPeers;
  readonly partitionEnds: PartitionEndPeers;
}
