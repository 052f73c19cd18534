/**
 * A cluster member's metadata image, as Kafka's ZooKeeper-era `MetadataCache`: the controller's
 * UpdateMetadata requests bring the live brokers and partition states, and topic and broker
 * configs come from ZooKeeper's `/config` znodes. Each change builds the next immutable image, so
 * readers always see one consistent cluster. UpdateMetadata is incremental: partitions it names
 * replace the ones held, a partition named with the "being deleted" leader leaves the image, the
 * rest stay. Owned by the main thread.
 */
import { entityPath, type ClientEntity } from './client-entities.js';
import {
  MetadataImage,
  topicImage,
  type BrokerRegistration,
  type DynamicScope,
  type MetadataSource,
  type PartitionRegistration,
  type TopicImage,
} from './metadata-image.js';
import { AclSet, type AccessControlEntry, type ResourcePattern } from '../security/acl/index.js';
import { DEFAULT_FINALIZED_FEATURES, type FinalizedFeatures } from './features.js';

/** Kafka's `LeaderAndIsr.LeaderDuringDelete`: the controller names a partition being deleted with it. */
export const LEADER_DURING_DELETE = -2;

export interface PartitionUpdate {
  readonly topic: string;
  /** Kafka's UUID text form; the zero UUID when the controller's version carries none. */
  readonly topicId: string;
  readonly partition: PartitionRegistration;
}

export interface MetadataUpdate {
  readonly controllerId: number;
  readonly controllerEpoch: number;
  readonly brokers: readonly BrokerRegistration[];
  readonly partitions: readonly PartitionUpdate[];
}

interface HeldTopic {
  readonly topicId: string;
  readonly partitions: Map<number, PartitionRegistration>;
}

export class ClusterMetadataCache implements MetadataSource {
  private current: MetadataImage;
  private controllerEpoch = 0;
  private readonly held = new Map<string, HeldTopic>();
  private readonly topicConfigs = new Map<string, ReadonlyMap<string, string>>();
  private dynamic: Record<DynamicScope, ReadonlyMap<string, string>> = { clusterDefault: new Map(), node: new Map() };
  private readonly clientEntities = new Map<string, ReadonlyMap<string, string>>();
  private readonly groupConfigs = new Map<string, ReadonlyMap<string, string>>();
  private brokers: readonly BrokerRegistration[] = [];
  private controllerId = -1;
  private acls = AclSet.EMPTY;
  private features: FinalizedFeatures = DEFAULT_FINALIZED_FEATURES;

  constructor(private readonly clusterId: string) {
    this.current = this.build();
  }

  get image(): MetadataImage {
    return this.current;
  }

  /** The epoch of the controller whose update was applied last (older controllers are refused). */
  get latestControllerEpoch(): number {
    return this.controllerEpoch;
  }

  /** Applies an UpdateMetadata; the caller has checked the controller epoch. Returns the topics whose partitions changed. */
  applyUpdate(update: MetadataUpdate): Set<string> {
    this.controllerEpoch = update.controllerEpoch;
    this.controllerId = update.controllerId;
    this.brokers = update.brokers;
    const changed = new Set<string>();
    for (const { topic, topicId, partition } of update.partitions) {
      changed.add(topic);
      let held = this.held.get(topic);
      if (partition.leader === LEADER_DURING_DELETE) {
        held?.partitions.delete(partition.partition);
        if (held !== undefined && held.partitions.size === 0) this.held.delete(topic);
        continue;
      }
      if (held === undefined || held.topicId !== topicId) {
        held = { topicId, partitions: new Map() };
        this.held.set(topic, held);
      }
      held.partitions.set(partition.partition, partition);
    }
    this.replace();
    return changed;
  }

  setTopicConfigs(topic: string, overrides: ReadonlyMap<string, string>): void {
    this.topicConfigs.set(topic, overrides);
    this.replace();
  }

  setDynamicConfigs(scope: DynamicScope, configs: ReadonlyMap<string, string>): void {
    this.dynamic = { ...this.dynamic, [scope]: configs };
    this.replace();
  }

  /** The entity's configs as ZooKeeper now holds them (empty: it has none). */
  setClientEntityConfigs(entity: ClientEntity, configs: ReadonlyMap<string, string>): void {
    if (configs.size === 0) this.clientEntities.delete(entityPath(entity));
    else this.clientEntities.set(entityPath(entity), new Map(configs));
    this.replace();
  }

  /** A group's config overrides as ZooKeeper now holds them (empty: it has none). */
  setGroupConfigs(groupId: string, configs: ReadonlyMap<string, string>): void {
    if (configs.size === 0) this.groupConfigs.delete(groupId);
    else this.groupConfigs.set(groupId, new Map(configs));
    this.replace();
  }

  /**
   * The finalized features as `/feature` now holds them (its ZooKeeper version is the epoch). A
   * read older than what is shown (a watch's read overtaken by this broker's own write) is
   * ignored, as Kafka's finalized feature cache refuses an older epoch.
   */
  setFeatures(features: FinalizedFeatures): void {
    if (features.epoch < this.features.epoch) return;
    this.features = features;
    this.replace();
  }

  /** Every ACL, as loaded from ZooKeeper when the member starts (or its session is renewed). */
  setAcls(acls: AclSet): void {
    this.acls = acls;
    this.replace();
  }

  /** One resource's ACLs, as a change notification or this member's own write found them. */
  setResourceAcls(pattern: ResourcePattern, entries: readonly AccessControlEntry[]): void {
    this.acls = this.acls.withEntries(pattern, entries);
    this.replace();
  }

  /**
   * Resolves once `ready` holds for the current image, or with false after `timeoutMs`: a
   * member's admin request waits so for the controller's answer to reach it.
   */
  waitUntil(ready: (image: MetadataImage) => boolean, timeoutMs: number): Promise<boolean> {
    if (ready(this.current)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = (): void => {
        if (!ready(this.current)) return;
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        resolve(false);
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  private readonly waiters = new Set<() => void>();

  private replace(): void {
    this.current = this.build();
    for (const waiter of [...this.waiters]) waiter();
  }

  private build(): MetadataImage {
    const topics: TopicImage[] = [];
    for (const [name, held] of this.held) {
      const sorted = [...held.partitions.values()].sort((a, b) => a.partition - b.partition);
      // A topic is shown once its partitions are contiguous from 0: mid-creation updates can
      // arrive in pieces, and a gap would make the image refuse it.
      if (sorted.some((p, i) => p.partition !== i)) continue;
      topics.push(topicImage(name, held.topicId, sorted, this.topicConfigs.get(name) ?? new Map()));
    }
    return new MetadataImage({
      clusterId: this.clusterId,
      controllerId: this.controllerId,
      brokers: this.brokers,
      topics,
      dynamicConfigs: this.dynamic,
      clientEntities: new Map(this.clientEntities),
      acls: this.acls,
      groupConfigs: new Map(this.groupConfigs),
      features: this.features,
    });
  }
}
