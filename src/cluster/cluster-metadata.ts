/**
 * The single broker's view of the cluster: its id, this node (also the controller), the topics
 * and the dynamic broker configs. Every change is persisted before it is visible, so a restart
 * finds the same topics with the same ids. Owned by the main thread; mutations are serialized
 * by `TopicAdmin`.
 */
import { isInternalTopic } from './topic-names.js';
import type { MetadataStore, StoredMetadata, StoredTopic } from './metadata-store.js';

export interface BrokerNode {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  readonly rack: string | null;
}

export interface TopicMetadata {
  readonly name: string;
  readonly topicId: string;
  readonly partitionCount: number;
  /** Overrides only; effective values come from `ConfigResolver`. */
  readonly configs: ReadonlyMap<string, string>;
  readonly internal: boolean;
}

/** Dynamic broker configs: the cluster-wide default resource ("") and this node's resource. */
export type DynamicScope = 'clusterDefault' | 'node';

function fromStored(t: StoredTopic): TopicMetadata {
  return { name: t.name, topicId: t.topicId, partitionCount: t.partitions, configs: new Map(Object.entries(t.configs)), internal: t.internal };
}

export class ClusterMetadata {
  private readonly byName = new Map<string, TopicMetadata>();
  private readonly byId = new Map<string, TopicMetadata>();
  private readonly dynamic: Record<DynamicScope, Map<string, string>>;

  constructor(
    readonly clusterId: string,
    readonly node: BrokerNode,
    private readonly store: MetadataStore,
  ) {
    const stored = store.load();
    for (const t of stored.topics) this.index(fromStored(t));
    this.dynamic = {
      clusterDefault: new Map(Object.entries(stored.brokerConfigs.clusterDefault)),
      node: new Map(Object.entries(stored.brokerConfigs.node)),
    };
  }

  get controllerId(): number {
    return this.node.nodeId;
  }

  /** Topics sorted by name (Kafka lists them in no particular order; sorted is stable for cursors). */
  topics(): TopicMetadata[] {
    return [...this.byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  topic(name: string): TopicMetadata | undefined {
    return this.byName.get(name);
  }

  topicById(topicId: string): TopicMetadata | undefined {
    return this.byId.get(topicId);
  }

  dynamicConfigs(scope: DynamicScope): ReadonlyMap<string, string> {
    return this.dynamic[scope];
  }

  putTopic(topic: Omit<TopicMetadata, 'internal'>): TopicMetadata {
    const full: TopicMetadata = { ...topic, internal: isInternalTopic(topic.name) };
    const previous = this.byName.get(full.name);
    this.index(full);
    this.persistOrRestore(() => (previous === undefined ? this.unindex(full) : this.index(previous)));
    return full;
  }

  removeTopic(name: string): void {
    const previous = this.byName.get(name);
    if (previous === undefined) return;
    this.unindex(previous);
    this.persistOrRestore(() => this.index(previous));
  }

  setDynamicConfigs(scope: DynamicScope, configs: ReadonlyMap<string, string>): void {
    const previous = this.dynamic[scope];
    this.dynamic[scope] = new Map(configs);
    this.persistOrRestore(() => (this.dynamic[scope] = previous));
  }

  private index(t: TopicMetadata): void {
    this.byName.set(t.name, t);
    this.byId.set(t.topicId, t);
  }

  private unindex(t: TopicMetadata): void {
    this.byName.delete(t.name);
    this.byId.delete(t.topicId);
  }

  /** A change that cannot be persisted is undone, so memory never runs ahead of the disk. */
  private persistOrRestore(undo: () => void): void {
    try {
      this.store.save(this.snapshot());
    } catch (err) {
      undo();
      throw err;
    }
  }

  private snapshot(): StoredMetadata {
    return {
      topics: this.topics().map((t) => ({
        name: t.name,
        topicId: t.topicId,
        partitions: t.partitionCount,
        configs: Object.fromEntries(t.configs),
        internal: t.internal,
      })),
      brokerConfigs: {
        clusterDefault: Object.fromEntries(this.dynamic.clusterDefault),
        node: Object.fromEntries(this.dynamic.node),
      },
    };
  }
}
