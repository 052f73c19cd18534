/**
 * What the active controller holds in memory, read from ZooKeeper when it takes over and kept
 * current by its watches (Kafka's `ControllerContext`): the live brokers with their epochs, each
 * topic's assignment, each partition's leader and ISR with the znode version the next write must
 * name, the brokers in controlled shutdown, the replicas on failed log dirs, the eligible leader
 * replicas it has seen leave an ISR (kept in memory only: a new controller starts without, which
 * can only withhold a clean election, never allow a lossy one) and the topic config overrides it
 * has read. Only the controller's parts change it, inside its events.
 */
import type { RegisteredBroker } from '../../zk/index.js';
import { type TopicPartition, topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';

export interface PartitionLeadership {
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly isr: readonly number[];
  readonly controllerEpoch: number;
  /** The state znode's version: Kafka's partition epoch, checked by every write and by AlterPartition. */
  readonly zkVersion: number;
}

export interface TopicAssignmentState {
  readonly topicId: string;
  readonly replicas: Map<number, readonly number[]>;
  /** The assignment znode's version, for the next write of it. */
  zkVersion: number;
}

/** A partition reassignment in progress (KIP-455): the target, and what it adds and removes. */
export interface Reassignment {
  readonly target: readonly number[];
  readonly adding: readonly number[];
  readonly removing: readonly number[];
}

/**
 * Where a broker is reached: its endpoint on the inter-broker listener (Kafka's controller and
 * brokers dial that one), else — a broker registered without it — its first endpoint.
 */
export function endpointOf(b: RegisteredBroker, listenerName: string): { host: string; port: number } {
  const chosen = b.endpoints.find((e) => e.listenerName === listenerName) ?? b.endpoints[0];
  return { host: chosen?.host ?? b.host ?? '', port: chosen?.port ?? b.port };
}

export class ControllerContext {
  constructor(
    /** The listener the controller reaches brokers on, and brokers each other. */
    readonly interBrokerListenerName: string,
  ) {}

  readonly brokers = new Map<number, RegisteredBroker>();
  readonly shuttingDown = new Set<number>();
  readonly topics = new Map<string, TopicAssignmentState>();
  readonly leaderships = new Map<string, PartitionLeadership>();
  readonly reassignments = new Map<string, Reassignment>();
  /** Topics marked for deletion whose logs are not all deleted yet (some replica's broker is down). */
  readonly deleting = new Set<string>();
  /** Replicas whose log dir failed, by broker (Kafka's `replicasOnOfflineDirs`), until the broker registers again. */
  readonly offlineDirReplicas = new Map<number, Set<string>>();
  /** Per partition, the replicas out of the ISR that still hold every committed record (`eligibleAfterIsrChange`). */
  readonly eligibleLeaders = new Map<string, readonly number[]>();
  /** Per topic, its `/config/topics` overrides, read when first needed and replaced on each config change. */
  readonly topicOverrides = new Map<string, ReadonlyMap<string, string>>();

  isLive = (id: number): boolean => this.brokers.has(id) && !this.shuttingDown.has(id);

  /** Whether the broker is registered (shutting down or not): it still hosts its replicas. */
  isRegistered(id: number): boolean {
    return this.brokers.has(id);
  }

  isOnOfflineDir(id: number, topic: string, partition: number): boolean {
    return this.offlineDirReplicas.get(id)?.has(topicPartitionKey(topic, partition)) ?? false;
  }

  replicas(topic: string, partition: number): readonly number[] {
    return this.topics.get(topic)?.replicas.get(partition) ?? [];
  }

  leadership(topic: string, partition: number): PartitionLeadership | undefined {
    return this.leaderships.get(topicPartitionKey(topic, partition));
  }

  eligible(topic: string, partition: number): readonly number[] {
    return this.eligibleLeaders.get(topicPartitionKey(topic, partition)) ?? [];
  }

  *partitions(): Generator<TopicPartition> {
    for (const [topic, t] of this.topics) for (const partition of t.replicas.keys()) yield { topic, partition };
  }

  partitionsOf(topic: string): TopicPartition[] {
    return [...(this.topics.get(topic)?.replicas.keys() ?? [])].map((partition) => ({ topic, partition }));
  }

  removeTopic(topic: string): void {
    for (const p of this.partitionsOf(topic)) {
      this.leaderships.delete(topicPartitionKey(topic, p.partition));
      this.reassignments.delete(topicPartitionKey(topic, p.partition));
      this.eligibleLeaders.delete(topicPartitionKey(topic, p.partition));
    }
    this.topicOverrides.delete(topic);
    this.topics.delete(topic);
    this.deleting.delete(topic);
  }

  clear(): void {
    this.brokers.clear();
    this.shuttingDown.clear();
    this.topics.clear();
    this.leaderships.clear();
    this.reassignments.clear();
    this.deleting.clear();
    this.offlineDirReplicas.clear();
    this.eligibleLeaders.clear();
    this.topicOverrides.clear();
  }
}
