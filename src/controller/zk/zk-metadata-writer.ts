/**
 * A cluster member's `MetadataWriter`, as Kafka's ZooKeeper-era brokers administer topics
 * (`AdminZkClient`): any broker writes the change where the controller watches — the topic's
 * assignment and configs, the grown assignment, a deletion marker, a config entity with its
 * change notification — and then waits until the controller's UpdateMetadata has brought the
 * result into this broker's cache (Kafka's `DelayedCreatePartitions`), so the answer to the
 * client is true of the cluster. A wait that outlasts the request times out as in Kafka: the
 * change stands, the answer is REQUEST_TIMED_OUT.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { entityPath, sanitizeEntityName, type ClientEntity } from '../../metadata/client-entities.js';
import type { ClusterMetadataCache } from '../../metadata/cluster-metadata-cache.js';
import {
  topicImage,
  type DynamicScope,
  type MetadataImage,
  type PartitionRegistration,
  type TopicImage,
} from '../../metadata/metadata-image.js';
import type { AclUpdate, MetadataWriter } from '../../metadata/metadata-writer.js';
import type { ResourcePattern } from '../../security/acl/index.js';
import { assignReplicas, assignReplicasForNewPartitions } from '../../metadata/admin/replica-assignment.js';
import { GROUP_CONFIG_ENTITY, TopicExistsError, ZkBadVersionError, type ConfigEntityType, type KafkaZkClient } from '../../zk/index.js';
import { applyFeatureUpdates, DEFAULT_FINALIZED_FEATURES, type FeatureUpdate } from '../../metadata/features.js';

/** Kafka's ZooKeeper name of the cluster-wide default broker config entity. */
const DEFAULT_BROKER_ENTITY = '<default>';

/** An assignment's replica lists by partition index. */
function inPartitionOrder(assignment: ReadonlyMap<number, readonly number[]>): (readonly number[])[] {
  return [...assignment.entries()].sort((a, b) => a[0] - b[0]).map(([, replicas]) => replicas);
}

export class ZkMetadataWriter implements MetadataWriter {
  constructor(
    /** The member's current session (replaced when one expires). */
    private readonly session: () => KafkaZkClient,
    private readonly cache: ClusterMetadataCache,
    private readonly nodeId: number,
    private readonly waitTimeoutMs: number,
  ) {}

  get image(): MetadataImage {
    return this.cache.image;
  }

  private brokerPlacements(): { id: number; rack: string | null }[] {
    return this.image.brokers().map((b) => ({ id: b.nodeId, rack: b.rack }));
  }

  proposeTopic(
    name: string,
    topicId: string,
    partitions: number,
    replicationFactor: number,
    configs: ReadonlyMap<string, string>,
    assignments: readonly (readonly number[])[] | null,
  ): TopicImage {
    const replicas = assignments ?? inPartitionOrder(assignReplicas(this.brokerPlacements(), partitions, replicationFactor));
    const registrations: PartitionRegistration[] = replicas.map((r, partition) => ({
      partition,
      leader: r[0]!,
      leaderEpoch: 0,
      partitionEpoch: 0,
      replicas: [...r],
      isr: [...r],
      offlineReplicas: [],
    }));
    return topicImage(name, topicId, registrations, new Map(configs));
  }

  async createTopic(topic: TopicImage): Promise<void> {
    try {
      await this.session().createTopic(
        topic.name,
        topic.topicId,
        new Map(topic.partitions.map((p) => [p.partition, [...p.replicas]])),
        Object.fromEntries(topic.configs),
      );
    } catch (err) {
      if (err instanceof TopicExistsError) throw new KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${topic.name}' already exists.`);
      throw err;
    }
    await this.awaitImage(`topic ${topic.name} to be created`, (image) => {
      const t = image.topic(topic.name);
      return t !== undefined && t.partitionCount === topic.partitionCount && t.partitions.every((p) => p.leader >= 0);
    });
  }

  async addPartitions(topic: TopicImage, count: number, assignments: readonly (readonly number[])[] | null): Promise<void> {
    const current = await this.session().getTopicAssignment(topic.name);
    if (current === null) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${topic.name}' does not exist.`);
    const existing = inPartitionOrder(current.partitions);
    const added =
      assignments ?? inPartitionOrder(assignReplicasForNewPartitions(this.brokerPlacements(), existing, count - topic.partitionCount));
    const next = new Map(current.partitions);
    added.forEach((replicas, i) => next.set(topic.partitionCount + i, [...replicas]));
    await this.session().setTopicAssignment(topic.name, { ...current, partitions: next }, current.zkVersion);
    await this.awaitImage(`topic ${topic.name} to grow to ${count} partitions`, (image) => {
      const t = image.topic(topic.name);
      return t !== undefined && t.partitionCount === count && t.partitions.every((p) => p.leader >= 0);
    });
  }

  async setTopicConfigs(topic: TopicImage, overrides: ReadonlyMap<string, string>): Promise<void> {
    await this.session().setEntityConfig('topics', topic.name, Object.fromEntries(overrides));
    // The notification reaches every member, this one too; showing it at once keeps read-your-writes.
    this.cache.setTopicConfigs(topic.name, overrides);
  }

  async deleteTopic(topic: TopicImage): Promise<void> {
    await this.session().markTopicForDeletion(topic.name);
    await this.awaitImage(`topic ${topic.name} to be deleted`, (image) => image.topic(topic.name)?.topicId !== topic.topicId);
  }

  async setDynamicConfigs(scope: DynamicScope, configs: ReadonlyMap<string, string>): Promise<void> {
    await this.session().setEntityConfig(
      'brokers',
      scope === 'clusterDefault' ? DEFAULT_BROKER_ENTITY : String(this.nodeId),
      Object.fromEntries(configs),
    );
    this.cache.setDynamicConfigs(scope, configs);
  }

  async setGroupConfigs(groupId: string, configs: ReadonlyMap<string, string>): Promise<void> {
    // Sanitized as Kafka names client ids in ZooKeeper: a group id may hold '/'.
    await this.session().setEntityConfig(GROUP_CONFIG_ENTITY, sanitizeEntityName(groupId), Object.fromEntries(configs));
    this.cache.setGroupConfigs(groupId, configs);
  }

  /**
   * Validated against /feature as it is read and every registered broker's supported ranges, then
   * written at the version read, so that two concurrent updates cannot both apply to the same
   * levels (the loser reads again), as Kafka 3.9's controller serialized them.
   */
  async updateFeatures(updates: readonly FeatureUpdate[], validateOnly: boolean): Promise<void> {
    for (;;) {
      const zk = this.session();
      const [current, brokers] = await Promise.all([zk.getFeatures(), zk.getBrokers()]);
      const peers = new Map(brokers.filter((b) => b.id !== this.nodeId).map((b) => [b.id, b.features]));
      const levels = applyFeatureUpdates(current?.levels ?? DEFAULT_FINALIZED_FEATURES.levels, updates, peers);
      if (validateOnly || updates.length === 0) return;
      if (current === null) {
        await zk.createFeatures(DEFAULT_FINALIZED_FEATURES.levels);
        continue;
      }
      try {
        const zkVersion = await zk.setFeatures(levels, current.zkVersion);
        this.cache.setFeatures({ levels, epoch: BigInt(zkVersion) });
        return;
      } catch (err) {
        if (!(err instanceof ZkBadVersionError)) throw err;
      }
    }
  }

  async setClientEntityConfigs(entity: ClientEntity, configs: ReadonlyMap<string, string>): Promise<void> {
    const [type, ...name] = entityPath(entity).split('/');
    await this.session().setEntityConfig(type as ConfigEntityType, name.join('/'), Object.fromEntries(configs));
    this.cache.setClientEntityConfigs(entity, configs);
  }

  async updateResourceAcls(pattern: ResourcePattern, update: AclUpdate): Promise<void> {
    const written = await this.session().updateResourceAcls(pattern, update);
    // Every member follows the notification, this one too; showing it at once keeps read-your-writes.
    this.cache.setResourceAcls(pattern, written);
  }

  private async awaitImage(what: string, ready: (image: MetadataImage) => boolean): Promise<void> {
    if (!(await this.cache.waitUntil(ready, this.waitTimeoutMs))) {
      throw new KafkaError(
        ErrorCode.REQUEST_TIMED_OUT,
        `Timed out waiting for ${what}: the controller has not answered within ${this.waitTimeoutMs} ms.`,
      );
    }
  }
}
