/**
 * The client's view of the cluster from one Metadata response: brokers by node id, the
 * controller, and each topic's partitions with their leaders. Topic-level error codes are kept,
 * not thrown, because a caller asking about several topics decides which ones matter.
 */
import type { MetadataResponseData } from '@sluice/protocol/messages/index.js';

export interface BrokerNode {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  readonly rack: string | null;
}

export interface PartitionMetadata {
  readonly partition: number;
  readonly errorCode: number;
  /** -1 while the partition has no leader. */
  readonly leaderId: number;
  readonly leaderEpoch: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly offlineReplicas: readonly number[];
}

export interface TopicMetadata {
  readonly name: string;
  /** Kafka's text form; all zeros (`AAAAAAAAAAAAAAAAAAAAAA`) from brokers too old to have topic ids. */
  readonly topicId: string;
  readonly errorCode: number;
  readonly isInternal: boolean;
  /** Sorted by partition index. */
  readonly partitions: readonly PartitionMetadata[];
}

export interface ClusterMetadata {
  readonly clusterId: string | null;
  readonly controllerId: number;
  readonly brokers: ReadonlyMap<number, BrokerNode>;
  readonly topics: ReadonlyMap<string, TopicMetadata>;
}

export function toClusterMetadata(res: MetadataResponseData): ClusterMetadata {
  const brokers = new Map<number, BrokerNode>();
  for (const b of res.brokers) brokers.set(b.nodeId, { nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack });
  const topics = new Map<string, TopicMetadata>();
  for (const t of res.topics) {
    // Only a request by topic id gets nameless topics back, and this client asks by name.
    if (t.name === null) continue;
    const partitions = t.partitions
      .map((p) => ({
        partition: p.partitionIndex,
        errorCode: p.errorCode,
        leaderId: p.leaderId,
        leaderEpoch: p.leaderEpoch,
        replicas: p.replicaNodes,
        isr: p.isrNodes,
        offlineReplicas: p.offlineReplicas,
      }))
      .sort((a, b) => a.partition - b.partition);
    topics.set(t.name, { name: t.name, topicId: t.topicId, errorCode: t.errorCode, isInternal: t.isInternal, partitions });
  }
  return { clusterId: res.clusterId, controllerId: res.controllerId, brokers, topics };
}
