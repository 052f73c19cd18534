/**
 * A cluster member's side of the controller's requests (Kafka's `ReplicaManager` for
 * LeaderAndIsr and StopReplica, and the `MetadataCache` update): requests from a controller
 * older than the latest one seen, or naming an older registration of this broker, are refused;
 * LeaderAndIsr opens (creating if new) each partition with its role and epochs in its worker,
 * then starts following from the leader or stops following where this broker now leads;
 * StopReplica stops following and, for deleted topics, deletes the logs. Requests are applied
 * one at a time in arrival order, as the controller sent them. Partitions of a failed log dir are
 * offline (Kafka's `HostedPartition.Offline`): not followed, and answered KAFKA_STORAGE_ERROR in
 * LeaderAndIsr, which tells the controller to move them away.
 */
import { leaderEpochOf } from '@sluice/protocol/common/offsets.js';
import type { Logger } from '../common/logger.js';
import { groupBy } from '@sluice/protocol/common/group-by.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { ClusterMetadataCache, MetadataUpdate } from '../metadata/cluster-metadata-cache.js';
import type { ConfigResolver } from '../metadata/config/config-resolver.js';
import type { BrokerRegistration, PartitionRegistration } from '../metadata/metadata-image.js';
import type {
  ControlAnswer,
  ControllerStamp,
  LeaderAndIsrPartition,
  PartitionError,
  ReplicaControl,
  StopReplicaPartition,
} from '../metadata/replica-control.js';
import type { ReplicaFetcherManager } from './replica-fetcher-manager.js';
import type { ReplicaLogs } from './replica-logs.js';
import { topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';

export interface ReplicaManagerDeps {
  readonly nodeId: number;
  readonly brokerEpoch: () => bigint;
  readonly cache: ClusterMetadataCache;
  readonly configs: ConfigResolver;
  readonly logs: ReplicaLogs;
  readonly fetchers: ReplicaFetcherManager;
  /** A topic's overrides as stored in ZooKeeper (`/config/topics/<t>`). */
  readonly topicOverrides: (topic: string) => Promise<ReadonlyMap<string, string>>;
  /** Called after leadership of some partitions changed (coordinators load or unload). */
  readonly onLeadershipChange: (topics: ReadonlySet<string>) => void;
  readonly log: Logger;
}

export class ReplicaManager implements ReplicaControl {
  private controllerEpoch = 0;
  private tail: Promise<unknown> = Promise.resolve();
  /** Followers whose leader's endpoint was not yet known when their LeaderAndIsr arrived. */
  private readonly pendingFollows = new Map<string, LeaderAndIsrPartition>();
  /** Partitions whose log dir failed, until the broker restarts. */
  private readonly offline = new Set<string>();

  constructor(private readonly deps: ReplicaManagerDeps) {}

  private serialize<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work, work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** STALE_CONTROLLER_EPOCH or STALE_BROKER_EPOCH when the request must be refused, else none (and the epoch is remembered). */
  private admit(stamp: ControllerStamp): number {
    if (stamp.controllerEpoch < this.controllerEpoch) return ErrorCode.STALE_CONTROLLER_EPOCH;
    if (stamp.brokerEpoch !== -1n && stamp.brokerEpoch < this.deps.brokerEpoch()) return ErrorCode.STALE_BROKER_EPOCH;
    this.controllerEpoch = stamp.controllerEpoch;
    return ErrorCode.NONE;
  }

  leaderAndIsr(stamp: ControllerStamp, partitions: readonly LeaderAndIsrPartition[]): Promise<ControlAnswer> {
    return this.serialize(async () => {
      const refused = this.admit(stamp);
      if (refused !== ErrorCode.NONE) return { errorCode: refused, partitionErrors: [] };
      const errors: PartitionError[] = [];
      for (const p of partitions) {
        if (this.offline.has(topicPartitionKey(p.topic, p.partition)))
          errors.push({ topic: p.topic, topicId: p.topicId, partition: p.partition, errorCode: ErrorCode.KAFKA_STORAGE_ERROR });
      }
      const byTopic = groupBy(
        partitions.filter((p) => !this.offline.has(topicPartitionKey(p.topic, p.partition))),
        (p) => p.topic,
      );
      for (const [topic, list] of byTopic) {
        const overrides = await this.deps.topicOverrides(topic);
        this.deps.cache.setTopicConfigs(topic, overrides);
        const registrations: PartitionRegistration[] = list.map((p) => ({
          partition: p.partition,
          leader: p.leader,
          leaderEpoch: p.leaderEpoch,
          partitionEpoch: p.partitionEpoch,
          replicas: p.replicas,
          isr: p.isr,
          offlineReplicas: [],
        }));
        try {
          await this.deps.logs.createPartitions(
            { name: topic, topicId: list[0]!.topicId },
            registrations,
            this.deps.configs.effectiveTopicConfig({ configs: overrides }),
          );
        } catch (err) {
          this.deps.log.error('opening partitions for LeaderAndIsr failed', { topic, error: (err as Error).message });
          for (const p of list)
            errors.push({ topic, topicId: p.topicId, partition: p.partition, errorCode: ErrorCode.KAFKA_STORAGE_ERROR });
          continue;
        }
        for (const p of list) {
          // This state replaces any follow still waiting for an older leader's endpoint.
          this.pendingFollows.delete(topicPartitionKey(topic, p.partition));
          if (p.leader === this.deps.nodeId || p.leader < 0) {
            this.deps.fetchers.unfollow(topic, p.partition);
            continue;
          }
          const leader = this.deps.cache.image.broker(p.leader);
          if (leader === undefined) {
            // The leader's endpoint comes with UpdateMetadata, which the controller sends after; follow once it is known.
            this.pendingFollows.set(topicPartitionKey(topic, p.partition), p);
            continue;
          }
          await this.follow(p, leader);
        }
      }
      this.deps.onLeadershipChange(new Set(byTopic.keys()));
      return { errorCode: ErrorCode.NONE, partitionErrors: errors };
    });
  }

  /** The partitions of a failed log dir stop being followed and are offline from now on. */
  markOffline(partitions: readonly { readonly topic: string; readonly partition: number }[]): Promise<void> {
    return this.serialize(async () => {
      for (const p of partitions) {
        const key = topicPartitionKey(p.topic, p.partition);
        this.offline.add(key);
        this.pendingFollows.delete(key);
        this.deps.fetchers.unfollow(p.topic, p.partition);
      }
    });
  }

  private follow(p: LeaderAndIsrPartition, leader: BrokerRegistration): Promise<void> {
    return this.deps.fetchers.follow(
      { topic: p.topic, topicId: p.topicId, partition: p.partition, leaderEpoch: leaderEpochOf(p.leaderEpoch) },
      { id: leader.nodeId, host: leader.host, port: leader.port },
    );
  }

  updateMetadata(stamp: ControllerStamp, update: MetadataUpdate): Promise<number> {
    return this.serialize(async () => {
      const refused = this.admit(stamp);
      if (refused !== ErrorCode.NONE) return refused;
      const changed = this.deps.cache.applyUpdate(update);
      for (const [k, p] of [...this.pendingFollows]) {
        const leader = this.deps.cache.image.broker(p.leader);
        if (leader === undefined) continue;
        this.pendingFollows.delete(k);
        await this.follow(p, leader);
      }
      if (changed.size > 0) this.deps.onLeadershipChange(changed);
      return ErrorCode.NONE;
    });
  }

  stopReplica(stamp: ControllerStamp, partitions: readonly StopReplicaPartition[]): Promise<ControlAnswer> {
    return this.serialize(async () => {
      const refused = this.admit(stamp);
      if (refused !== ErrorCode.NONE) return { errorCode: refused, partitionErrors: [] };
      for (const p of partitions) {
        this.deps.fetchers.unfollow(p.topic, p.partition);
        this.pendingFollows.delete(topicPartitionKey(p.topic, p.partition));
      }
      const deleted = groupBy(
        partitions.filter((p) => p.deletePartition),
        (p) => p.topic,
        (p) => p.partition,
      );
      const errors: PartitionError[] = [];
      for (const [topic, indexes] of deleted) {
        try {
          await this.deps.logs.deletePartitions(topic, indexes);
        } catch (err) {
          this.deps.log.error('deleting partition logs for StopReplica failed', { topic, error: (err as Error).message });
          for (const p of partitions)
            if (p.topic === topic) errors.push({ topic, topicId: '', partition: p.partition, errorCode: ErrorCode.KAFKA_STORAGE_ERROR });
        }
      }
      if (deleted.size > 0) this.deps.onLeadershipChange(new Set(deleted.keys()));
      return { errorCode: ErrorCode.NONE, partitionErrors: errors };
    });
  }
}
