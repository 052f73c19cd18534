/**
 * Where `TopicAdmin`'s validated changes go: on a single broker, `LocalMetadataWriter` (its own
 * controller's image, persisted, then applied to the partition owners); in a cluster, the
 * ZooKeeper writer (the change is written where the controller watches, and the call returns once
 * the controller's answer has reached this broker's image). Either way the caller's next read of
 * `image` shows the change. Failures are `KafkaError`s carrying the code the request answers.
 */
import type { ClientEntity } from './client-entities.js';
import type { AccessControlEntry, ResourcePattern } from '../security/acl/index.js';
import type { DynamicScope, MetadataSource, TopicImage } from './metadata-image.js';
import type { FeatureUpdate } from './features.js';

export interface MetadataWriter extends MetadataSource {
  /**
   * The topic as it would be created, replicas assigned over the registered brokers (Kafka's
   * assignment, rack-aware), or as `assignments` name them (partition index → replica ids).
   */
  proposeTopic(
    name: string,
    topicId: string,
    partitions: number,
    replicationFactor: number,
    configs: ReadonlyMap<string, string>,
    assignments: readonly (readonly number[])[] | null,
  ): TopicImage;
  createTopic(topic: TopicImage): Promise<void>;
  /** Grows the topic to `count` partitions, the new ones on `assignments` when given. */
  addPartitions(topic: TopicImage, count: number, assignments: readonly (readonly number[])[] | null): Promise<void>;
  setTopicConfigs(topic: TopicImage, overrides: ReadonlyMap<string, string>): Promise<void>;
  deleteTopic(topic: TopicImage): Promise<void>;
  setDynamicConfigs(scope: DynamicScope, configs: ReadonlyMap<string, string>): Promise<void>;
  /** Replaces a user's, client id's or ip's configs (SCRAM credentials, quotas); an empty map removes them. */
  setClientEntityConfigs(entity: ClientEntity, configs: ReadonlyMap<string, string>): Promise<void>;
  /** Replaces a group's config overrides (GROUP config resource); an empty map removes them. */
  setGroupConfigs(groupId: string, configs: ReadonlyMap<string, string>): Promise<void>;
  /**
   * Replaces one resource's ACLs with `update(current)`, read from where they are stored (so a
   * concurrent writer's change is not lost); the next `image` shows the result.
   */
  updateResourceAcls(pattern: ResourcePattern, update: AclUpdate): Promise<void>;
  /**
   * UpdateFeatures: the finalized levels after `updates`, validated all or nothing against the
   * levels where they are stored (and, in a cluster, every registered broker's supported ranges),
   * then stored unless `validateOnly`. Refused with INVALID_UPDATE_VERSION.
   */
  updateFeatures(updates: readonly FeatureUpdate[], validateOnly: boolean): Promise<void>;
}

export type AclUpdate = (current: readonly AccessControlEntry[]) => readonly AccessControlEntry[];
