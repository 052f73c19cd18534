/**
 * The cluster metadata image: what every broker knows of the cluster at one moment — the
 * registered brokers, the controller, each topic with each partition's leader, leader epoch,
 * replicas and ISR, the dynamic broker configs, the configs of client entities (SCRAM credentials,
 * quotas), and the finalized feature levels. Handlers read it; only the controller side
 * (`LocalController` on a single broker, the ZooKeeper controller in a cluster) makes a new one.
 * An image is immutable: a change produces the next image, so a request that read one sees a
 * consistent cluster even while a change lands.
 */
import { entityPath, parseEntityPath, type ClientEntity, type ClientEntityConfigs } from './client-entities.js';
import { AclSet } from '../security/acl/index.js';
import type { SecurityProtocol } from '../common/session.js';
import { isInternalTopic } from './topic-names.js';
import { DEFAULT_FINALIZED_FEATURES, type FinalizedFeatures } from './features.js';

/** One advertised listener of a broker. */
export interface ListenerEndpoint {
  readonly listenerName: string;
  readonly securityProtocol: SecurityProtocol;
  readonly host: string;
  readonly port: number;
}

export interface BrokerRegistration {
  readonly nodeId: number;
  /** The endpoint of the inter-broker listener: where other brokers reach this one. */
  readonly host: string;
  readonly port: number;
  readonly rack: string | null;
  /** Every advertised listener; clients are answered with the one they came in on. */
  readonly endpoints: readonly ListenerEndpoint[];
}

/** The broker's endpoint on `listenerName`, or undefined when it has no such listener (Kafka leaves it out). */
export function endpointOn(broker: BrokerRegistration, listenerName: string): ListenerEndpoint | undefined {
  return broker.endpoints.find((e) => e.listenerName === listenerName);
}

/** A partition's replica state, as Kafka's controller records it (`LeaderAndIsr` plus the assignment). */
export interface PartitionRegistration {
  readonly partition: number;
  /** The leader's broker id, or -1 while no replica can lead. */
  readonly leader: number;
  readonly leaderEpoch: number;
  /** Bumped on every change of the registration (Kafka's partition epoch, the ZooKeeper znode version). */
  readonly partitionEpoch: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly offlineReplicas: readonly number[];
}

export interface TopicImage {
  readonly name: string;
  /** Kafka's UUID text form (base64url, 22 chars). */
  readonly topicId: string;
  /** Indexed by partition number. */
  readonly partitions: readonly PartitionRegistration[];
  readonly partitionCount: number;
  /** Overrides only; effective values come from `ConfigResolver`. */
  readonly configs: ReadonlyMap<string, string>;
  readonly internal: boolean;
}

/** Dynamic broker configs: the cluster-wide default resource ("") and this node's resource. */
export type DynamicScope = 'clusterDefault' | 'node';

export const NO_LEADER = -1;

const NO_CONFIGS: ReadonlyMap<string, string> = new Map();

export function topicImage(
  name: string,
  topicId: string,
  partitions: readonly PartitionRegistration[],
  configs: ReadonlyMap<string, string>,
): TopicImage {
  partitions.forEach((p, i) => {
    if (p.partition !== i) throw new RangeError(`${name}: partition ${p.partition} registered at index ${i}`);
  });
  return { name, topicId, partitions, partitionCount: partitions.length, configs, internal: isInternalTopic(name) };
}

/** Where the current image is read; the controller side replaces it. */
export interface MetadataSource {
  readonly image: MetadataImage;
}

export interface MetadataImageParts {
  readonly clusterId: string;
  readonly controllerId: number;
  readonly brokers: readonly BrokerRegistration[];
  readonly topics: readonly TopicImage[];
  readonly dynamicConfigs: Readonly<Record<DynamicScope, ReadonlyMap<string, string>>>;
  /** Configs of users, client ids and ips (SCRAM credentials, quotas) by entity path; none left empty. */
  readonly clientEntities: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** The cluster's ACLs (none when absent). */
  readonly acls?: AclSet;
  /** GROUP config resources' overrides by group id (none when absent); none left empty. */
  readonly groupConfigs?: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** The finalized feature levels (a new cluster's defaults when absent). */
  readonly features?: FinalizedFeatures;
}

function byName(a: TopicImage, b: TopicImage): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export class MetadataImage {
  readonly clusterId: string;
  readonly controllerId: number;
  private readonly brokerById: ReadonlyMap<number, BrokerRegistration>;
  /** Sorted by name (Kafka lists them in no particular order; sorted is stable for cursors). */
  private readonly sortedTopics: readonly TopicImage[];
  private readonly topicByName: ReadonlyMap<string, TopicImage>;
  private readonly topicByTopicId: ReadonlyMap<string, TopicImage>;
  private readonly dynamic: Readonly<Record<DynamicScope, ReadonlyMap<string, string>>>;
  private readonly entityConfigs: ReadonlyMap<string, ReadonlyMap<string, string>>;
  private readonly groupOverrides: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** Every ACL of the cluster, as the authorizer reads them. */
  readonly acls: AclSet;
  /** The finalized feature levels and their epoch, as ApiVersions v3+ lists them. */
  readonly features: FinalizedFeatures;

  constructor(parts: MetadataImageParts) {
    this.clusterId = parts.clusterId;
    this.controllerId = parts.controllerId;
    this.brokerById = new Map([...parts.brokers].sort((a, b) => a.nodeId - b.nodeId).map((b) => [b.nodeId, b]));
    this.sortedTopics = [...parts.topics].sort(byName);
    this.topicByName = new Map(this.sortedTopics.map((t) => [t.name, t]));
    this.topicByTopicId = new Map(this.sortedTopics.map((t) => [t.topicId, t]));
    this.dynamic = parts.dynamicConfigs;
    this.entityConfigs = parts.clientEntities;
    this.acls = parts.acls ?? AclSet.EMPTY;
    this.groupOverrides = parts.groupConfigs ?? new Map();
    this.features = parts.features ?? DEFAULT_FINALIZED_FEATURES;
  }

  private parts(): MetadataImageParts {
    return {
      clusterId: this.clusterId,
      controllerId: this.controllerId,
      brokers: this.brokers(),
      topics: this.sortedTopics,
      dynamicConfigs: this.dynamic,
      clientEntities: this.entityConfigs,
      acls: this.acls,
      groupConfigs: this.groupOverrides,
      features: this.features,
    };
  }

  /** Registered brokers by id. */
  brokers(): readonly BrokerRegistration[] {
    return [...this.brokerById.values()];
  }

  broker(nodeId: number): BrokerRegistration | undefined {
    return this.brokerById.get(nodeId);
  }

  topics(): readonly TopicImage[] {
    return this.sortedTopics;
  }

  topic(name: string): TopicImage | undefined {
    return this.topicByName.get(name);
  }

  topicById(topicId: string): TopicImage | undefined {
    return this.topicByTopicId.get(topicId);
  }

  partition(topicName: string, partition: number): PartitionRegistration | undefined {
    return this.topicByName.get(topicName)?.partitions[partition];
  }

  dynamicConfigs(scope: DynamicScope): ReadonlyMap<string, string> {
    return this.dynamic[scope];
  }

  /** The entity's configs; empty when it has none. */
  clientEntityConfigs(entity: ClientEntity): ReadonlyMap<string, string> {
    return this.entityConfigs.get(entityPath(entity)) ?? NO_CONFIGS;
  }

  clientEntities(): readonly ClientEntityConfigs[] {
    return [...this.entityConfigs].map(([path, configs]) => ({ entity: parseEntityPath(path), configs }));
  }

  /** The next image with the entity's configs replaced; an empty map removes the entity. */
  withClientEntityConfigs(entity: ClientEntity, configs: ReadonlyMap<string, string>): MetadataImage {
    const next = new Map(this.entityConfigs);
    if (configs.size === 0) next.delete(entityPath(entity));
    else next.set(entityPath(entity), new Map(configs));
    return new MetadataImage({ ...this.parts(), clientEntities: next });
  }

  /** A group's config overrides (GROUP config resource); empty when it has none. */
  groupConfigs(groupId: string): ReadonlyMap<string, string> {
    return this.groupOverrides.get(groupId) ?? NO_CONFIGS;
  }

  /** Ids of the groups that have config overrides. */
  configuredGroups(): readonly string[] {
    return [...this.groupOverrides.keys()];
  }

  /** The next image with the group's overrides replaced; an empty map removes them. */
  withGroupConfigs(groupId: string, configs: ReadonlyMap<string, string>): MetadataImage {
    const next = new Map(this.groupOverrides);
    if (configs.size === 0) next.delete(groupId);
    else next.set(groupId, new Map(configs));
    return new MetadataImage({ ...this.parts(), groupConfigs: next });
  }

  /** The next image with `topic` added or replaced (matched by name). */
  withTopic(topic: TopicImage): MetadataImage {
    return new MetadataImage({ ...this.parts(), topics: [...this.sortedTopics.filter((t) => t.name !== topic.name), topic] });
  }

  withoutTopic(name: string): MetadataImage {
    return new MetadataImage({ ...this.parts(), topics: this.sortedTopics.filter((t) => t.name !== name) });
  }

  withAcls(acls: AclSet): MetadataImage {
    return new MetadataImage({ ...this.parts(), acls });
  }

  withFeatures(features: FinalizedFeatures): MetadataImage {
    return new MetadataImage({ ...this.parts(), features });
  }

  withDynamicConfigs(scope: DynamicScope, configs: ReadonlyMap<string, string>): MetadataImage {
    return new MetadataImage({ ...this.parts(), dynamicConfigs: { ...this.dynamic, [scope]: new Map(configs) } });
  }
}
