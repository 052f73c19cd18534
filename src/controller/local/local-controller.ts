/**
 * The controller of a single broker: the one place that changes its metadata image. Each change
 * builds the next image, persists it (`MetadataStore`) and only then makes it current, so memory
 * never runs ahead of the disk and a restart finds the same topics with the same ids. The broker
 * is the only registered broker and the controller; every partition it creates has it as the
 * only replica, leader and ISR, at leader epoch 0. In a cluster the ZooKeeper controller takes
 * this role. Owned by the main thread; `TopicAdmin` serializes the changes.
 *
 * Partitions in a failed log dir are offline (Kafka's controller, told of an offline dir, takes
 * the replica out of leadership): the image served shows them without a leader and with this
 * broker offline. That lasts until the process stops and is never persisted — after a restart
 * the log dir is checked again.
 */
import {
  MetadataImage,
  NO_LEADER,
  topicImage,
  type BrokerRegistration,
  type DynamicScope,
  type MetadataSource,
  type PartitionRegistration,
  type TopicImage,
} from '../../metadata/metadata-image.js';
import { entityPath, type ClientEntity } from '../../metadata/client-entities.js';
import { AclSet, type AccessControlEntry, type ResourcePattern } from '../../security/acl/index.js';
import type { MetadataStore, StoredMetadata } from '../../metadata/metadata-store.js';
import { topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';

export class LocalController implements MetadataSource {
  private current: MetadataImage;
  /** Partitions whose log dir failed, as `topic\u0000partition`. */
  private readonly offline = new Set<string>();
  /** `current` with the offline partitions applied, rebuilt after a change. */
  private served: MetadataImage | null = null;

  constructor(
    clusterId: string,
    private readonly self: BrokerRegistration,
    private readonly store: MetadataStore,
  ) {
    const stored = store.load(self.nodeId);
    this.current = new MetadataImage({
      clusterId,
      controllerId: self.nodeId,
      brokers: [self],
      topics: stored.topics.map((t) =>
        topicImage(
          t.name,
          t.topicId,
          t.partitions.map((p) => this.registration(p)),
          new Map(Object.entries(t.configs)),
        ),
      ),
      dynamicConfigs: {
        clusterDefault: new Map(Object.entries(stored.brokerConfigs.clusterDefault)),
        node: new Map(Object.entries(stored.brokerConfigs.node)),
      },
      clientEntities: new Map(Object.entries(stored.clientEntities).map(([path, configs]) => [path, new Map(Object.entries(configs))])),
      acls: AclSet.of(stored.acls),
      groupConfigs: new Map(Object.entries(stored.groupConfigs).map(([group, configs]) => [group, new Map(Object.entries(configs))])),
      features: stored.features,
    });
  }

  get image(): MetadataImage {
    this.served ??= this.withOfflinePartitions(this.current);
    return this.served;
  }

  /** These partitions' log dir failed: no leader, this broker an offline replica. */
  markReplicasOffline(partitions: readonly { readonly topic: string; readonly partition: number }[]): void {
    for (const p of partitions) this.offline.add(topicPartitionKey(p.topic, p.partition));
    this.served = null;
  }

  private withOfflinePartitions(image: MetadataImage): MetadataImage {
    let served = image;
    for (const topic of image.topics()) {
      if (!topic.partitions.some((p) => this.offline.has(topicPartitionKey(topic.name, p.partition)))) continue;
      const partitions = topic.partitions.map((p) =>
        this.offline.has(topicPartitionKey(topic.name, p.partition))
          ? { ...p, leader: NO_LEADER, offlineReplicas: [...p.offlineReplicas, this.self.nodeId] }
          : p,
      );
      served = served.withTopic(topicImage(topic.name, topic.topicId, partitions, topic.configs));
    }
    return served;
  }

  /** A registration as this broker sees it: replicas on no registered broker are offline. */
  private registration(p: Omit<PartitionRegistration, 'offlineReplicas'>): PartitionRegistration {
    return { ...p, offlineReplicas: p.replicas.filter((id) => id !== this.self.nodeId) };
  }

  private newPartitions(from: number, to: number): PartitionRegistration[] {
    const id = this.self.nodeId;
    return Array.from({ length: to - from }, (_, i) => ({
      partition: from + i,
      leader: id,
      leaderEpoch: 0,
      partitionEpoch: 0,
      replicas: [id],
      isr: [id],
      offlineReplicas: [],
    }));
  }

  /** The topic as it would be created: for validation, and for `createTopic`. */
  proposeTopic(name: string, topicId: string, partitionCount: number, configs: ReadonlyMap<string, string>): TopicImage {
    return topicImage(name, topicId, this.newPartitions(0, partitionCount), new Map(configs));
  }

  createTopic(topic: TopicImage): TopicImage {
    this.commit(this.current.withTopic(topic));
    return topic;
  }

  addPartitions(name: string, count: number): TopicImage {
    const topic = this.existing(name);
    const grown = topicImage(
      topic.name,
      topic.topicId,
      [...topic.partitions, ...this.newPartitions(topic.partitionCount, count)],
      topic.configs,
    );
    this.commit(this.current.withTopic(grown));
    return grown;
  }

  setTopicConfigs(name: string, overrides: ReadonlyMap<string, string>): TopicImage {
    const topic = this.existing(name);
    const updated = topicImage(topic.name, topic.topicId, topic.partitions, new Map(overrides));
    this.commit(this.current.withTopic(updated));
    return updated;
  }

  removeTopic(name: string): void {
    for (const key of this.offline) if (key.startsWith(`${name}\u0000`)) this.offline.delete(key);
    if (this.current.topic(name) !== undefined) this.commit(this.current.withoutTopic(name));
  }

  setDynamicConfigs(scope: DynamicScope, configs: ReadonlyMap<string, string>): void {
    this.commit(this.current.withDynamicConfigs(scope, configs));
  }

  setClientEntityConfigs(entity: ClientEntity, configs: ReadonlyMap<string, string>): void {
    this.commit(this.current.withClientEntityConfigs(entity, configs));
  }

  setGroupConfigs(groupId: string, configs: ReadonlyMap<string, string>): void {
    this.commit(this.current.withGroupConfigs(groupId, configs));
  }

  /** The finalized feature levels UpdateFeatures decided; the epoch counts the changes. */
  setFinalizedFeatures(levels: ReadonlyMap<string, number>): void {
    this.commit(this.current.withFeatures({ levels: new Map(levels), epoch: this.current.features.epoch + 1n }));
  }

  setResourceAcls(pattern: ResourcePattern, entries: readonly AccessControlEntry[]): void {
    this.commit(this.current.withAcls(this.current.acls.withEntries(pattern, entries)));
  }

  private existing(name: string): TopicImage {
    const topic = this.current.topic(name);
    if (topic === undefined) throw new RangeError(`topic ${name} is not in the metadata`);
    return topic;
  }

  /** Persists `next`, then makes it current; if persisting fails, the current image stays. */
  private commit(next: MetadataImage): void {
    this.store.save(stored(next));
    this.current = next;
    this.served = null;
  }
}

function stored(image: MetadataImage): StoredMetadata {
  return {
    topics: image.topics().map((t) => ({
      name: t.name,
      topicId: t.topicId,
      configs: Object.fromEntries(t.configs),
      partitions: t.partitions.map((p) => ({
        partition: p.partition,
        replicas: [...p.replicas],
        leader: p.leader,
        leaderEpoch: p.leaderEpoch,
        partitionEpoch: p.partitionEpoch,
        isr: [...p.isr],
      })),
    })),
    brokerConfigs: {
      clusterDefault: Object.fromEntries(image.dynamicConfigs('clusterDefault')),
      node: Object.fromEntries(image.dynamicConfigs('node')),
    },
    clientEntities: Object.fromEntries(
      image.clientEntities().map(({ entity, configs }) => [entityPath(entity), Object.fromEntries(configs)]),
    ),
    acls: image.acls.bindings(),
    groupConfigs: Object.fromEntries(image.configuredGroups().map((g) => [g, Object.fromEntries(image.groupConfigs(g))])),
    features: image.features,
  };
}
