/**
 * The partition view shared by Metadata and DescribeTopicPartitions, from the metadata image:
 * each partition's leader, leader epoch, replicas, ISR and offline replicas. A partition without
 * a leader answers LEADER_NOT_AVAILABLE, as Kafka's brokers do.
 */
import { NO_LEADER, type PartitionRegistration, type TopicImage } from '../metadata/metadata-image.js';
import { ErrorCode } from '@sluice/protocol/errors.js';

export interface PartitionState {
  readonly errorCode: number;
  readonly partitionIndex: number;
  readonly leaderId: number;
  readonly leaderEpoch: number;
  readonly replicaNodes: number[];
  readonly isrNodes: number[];
  readonly offlineReplicas: number[];
}

export function partitionState(p: PartitionRegistration): PartitionState {
  return {
    errorCode: p.leader === NO_LEADER ? ErrorCode.LEADER_NOT_AVAILABLE : ErrorCode.NONE,
    partitionIndex: p.partition,
    leaderId: p.leader,
    leaderEpoch: p.leaderEpoch,
    replicaNodes: [...p.replicas],
    isrNodes: [...p.isr],
    offlineReplicas: [...p.offlineReplicas],
  };
}

export function partitionStates(topic: TopicImage, from = 0, to = topic.partitionCount): PartitionState[] {
  return topic.partitions.slice(from, to).map(partitionState);
}
