/**
 * The partition view shared by Metadata and DescribeTopicPartitions: on a single broker every
 * partition is led by this node at epoch 0, with this node as the only replica and in-sync.
 */
import type { TopicMetadata } from '../cluster/cluster-metadata.js';
import { ErrorCode } from '../protocol/errors.js';

export interface PartitionState {
  readonly errorCode: number;
  readonly partitionIndex: number;
  readonly leaderId: number;
  readonly leaderEpoch: number;
  readonly replicaNodes: number[];
  readonly isrNodes: number[];
  readonly offlineReplicas: number[];
}

export function partitionState(partitionIndex: number, nodeId: number): PartitionState {
  return { errorCode: ErrorCode.NONE, partitionIndex, leaderId: nodeId, leaderEpoch: 0, replicaNodes: [nodeId], isrNodes: [nodeId], offlineReplicas: [] };
}

export function partitionStates(topic: TopicMetadata, nodeId: number, from = 0, to = topic.partitionCount): PartitionState[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => partitionState(from + i, nodeId));
}
