/**
 * The single broker's `MetadataWriter`: each change is committed by its `LocalController`
 * (persisted before it becomes current) and then applied to the partition owners, as a Kafka
 * broker acts on its controller's records. A topic whose logs cannot be created is removed again,
 * so the metadata never lists partitions that have no log.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import type { ClientEntity } from '../../metadata/client-entities.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { ConfigResolver } from '../../metadata/config/config-resolver.js';
import type { LocalController } from './local-controller.js';
import type { DynamicScope, MetadataImage, TopicImage } from '../../metadata/metadata-image.js';
import type { AclUpdate, MetadataWriter } from '../../metadata/metadata-writer.js';
import type { ResourcePattern } from '../../security/acl/index.js';
import type { PartitionAdmin, TopicRef } from '../../metadata/admin/partition-admin.js';
import { applyFeatureUpdates, type FeatureUpdate } from '../../metadata/features.js';

function ref(t: TopicImage): TopicRef {
  return { name: t.name, topicId: t.topicId };
}

export class LocalMetadataWriter implements MetadataWriter {
  constructor(
    private readonly controller: LocalController,
    private readonly partitions: PartitionAdmin,
    private readonly configs: ConfigResolver,
  ) {}

  get image(): MetadataImage {
    return this.controller.image;
  }

  /** One broker: every replica is this broker, so the replication factor and assignments (validated as naming it) add nothing. */
  proposeTopic(
    name: string,
    topicId: string,
    partitions: number,
    _replicationFactor: number,
    configs: ReadonlyMap<string, string>,
  ): TopicImage {
    return this.controller.proposeTopic(name, topicId, partitions, configs);
  }

  async createTopic(topic: TopicImage): Promise<void> {
    const created = this.controller.createTopic(topic);
    try {
      await this.partitions.createPartitions(ref(created), created.partitions, this.configs.effectiveTopicConfig(created));
    } catch (err) {
      this.controller.removeTopic(created.name);
      throw new KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, `creating the partition logs failed: ${String(err)}`);
    }
  }

  async addPartitions(topic: TopicImage, count: number): Promise<void> {
    const grown = this.controller.addPartitions(topic.name, count);
    await this.partitions.createPartitions(
      ref(grown),
      grown.partitions.slice(topic.partitionCount),
      this.configs.effectiveTopicConfig(grown),
    );
  }

  async setTopicConfigs(topic: TopicImage, overrides: ReadonlyMap<string, string>): Promise<void> {
    const updated = this.controller.setTopicConfigs(topic.name, overrides);
    await this.partitions.updateTopicConfig(ref(updated), updated.partitionCount, this.configs.effectiveTopicConfig(updated));
  }

  async deleteTopic(topic: TopicImage): Promise<void> {
    this.controller.removeTopic(topic.name);
    await this.partitions.deleteTopic(ref(topic), topic.partitionCount);
  }

  async updateResourceAcls(pattern: ResourcePattern, update: AclUpdate): Promise<void> {
    const current = this.image.acls.entries(pattern);
    const next = update(current);
    if (next !== current) this.controller.setResourceAcls(pattern, next);
  }

  /** Topic defaults follow broker `log.*` keys, so topics whose effective configuration changes are reconfigured live. */
  async setDynamicConfigs(scope: DynamicScope, configs: ReadonlyMap<string, string>): Promise<void> {
    const topics = this.image.topics();
    const before = topics.map((t) => this.configs.effectiveTopicConfig(t));
    this.controller.setDynamicConfigs(scope, configs);
    for (const [i, t] of topics.entries()) {
      const after = this.configs.effectiveTopicConfig(t);
      if ([...after].some(([k, v]) => before[i]!.get(k) !== v)) await this.partitions.updateTopicConfig(ref(t), t.partitionCount, after);
    }
  }

  async setGroupConfigs(groupId: string, configs: ReadonlyMap<string, string>): Promise<void> {
    this.controller.setGroupConfigs(groupId, configs);
  }

  async updateFeatures(updates: readonly FeatureUpdate[], validateOnly: boolean): Promise<void> {
    const levels = applyFeatureUpdates(this.image.features.levels, updates);
    if (!validateOnly && updates.length > 0) this.controller.setFinalizedFeatures(levels);
  }

  async setClientEntityConfigs(entity: ClientEntity, configs: ReadonlyMap<string, string>): Promise<void> {
    this.controller.setClientEntityConfigs(entity, configs);
  }
}
