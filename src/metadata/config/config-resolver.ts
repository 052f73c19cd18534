/**
 * Effective configuration and where each value comes from, as DescribeConfigs reports it.
 * Precedence, highest first: a topic's override (DYNAMIC_TOPIC_CONFIG), this node's dynamic
 * broker config (DYNAMIC_BROKER_CONFIG), the cluster-wide dynamic default
 * (DYNAMIC_DEFAULT_BROKER_CONFIG), server.properties (STATIC_BROKER_CONFIG), Kafka's default
 * (DEFAULT_CONFIG). A topic key without an override takes the first of its broker synonyms that
 * has a value (`retention.ms` ← `log.retention.ms` ← `log.retention.minutes` ← `log.retention.hours`).
 * A group's key likewise: its override (GROUP_CONFIG), else its broker synonym
 * (`consumer.session.timeout.ms` ← `group.consumer.session.timeout.ms`).
 */
import type { MetadataSource, TopicImage } from '../metadata-image.js';
import { GROUP_CONFIGS, groupConfigOverrides, type GroupConfigDefinition, type GroupConfigOverrides } from './group-configs.js';
import {
  BROKER_CONFIG_BY_NAME,
  ConfigSource,
  TOPIC_CONFIGS,
  TOPIC_CONFIG_BY_NAME,
  type BrokerConfigDefinition,
  type BrokerSynonym,
  type ConfigDefinition,
  type TopicConfigDefinition,
} from './config-definitions.js';

export interface ConfigSynonym {
  readonly name: string;
  readonly value: string;
  readonly source: number;
}

export interface ConfigEntry {
  readonly definition: ConfigDefinition;
  readonly value: string | null;
  readonly source: number;
  readonly readOnly: boolean;
  /** Every value that could supply this one, highest precedence first (Kafka's synonyms). */
  readonly synonyms: readonly ConfigSynonym[];
}

/** Broker keys that stand for the same setting in different units, highest precedence first. */
const BROKER_SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['log.retention.ms', 'log.retention.minutes', 'log.retention.hours'],
  ['log.roll.ms', 'log.roll.hours'],
  ['log.roll.jitter.ms', 'log.roll.jitter.hours'],
];

function brokerSynonymKeys(key: string): readonly string[] {
  const group = BROKER_SYNONYM_GROUPS.find((g) => g.includes(key));
  return group === undefined ? [key] : group.slice(group.indexOf(key));
}

const SOURCE_PRECEDENCE: readonly number[] = [
  ConfigSource.DYNAMIC_BROKER_CONFIG,
  ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG,
  ConfigSource.STATIC_BROKER_CONFIG,
  ConfigSource.DEFAULT_CONFIG,
];

/** Kafka multiplies in Java longs; unit conversions here stay within 2^53 for any int input. */
function scaled(value: string, scale: number): string {
  return scale === 1 ? value : String(BigInt(value) * BigInt(scale));
}

export class ConfigResolver {
  constructor(
    private readonly staticSettings: ReadonlyMap<string, string>,
    private readonly metadata: MetadataSource,
  ) {}

  /** Every layer that sets broker key `key`, highest precedence first. */
  private brokerLayers(key: string): ConfigSynonym[] {
    const layers: ConfigSynonym[] = [];
    const node = this.metadata.image.dynamicConfigs('node').get(key);
    if (node !== undefined) layers.push({ name: key, value: node, source: ConfigSource.DYNAMIC_BROKER_CONFIG });
    const cluster = this.metadata.image.dynamicConfigs('clusterDefault').get(key);
    if (cluster !== undefined) layers.push({ name: key, value: cluster, source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG });
    const stat = this.staticSettings.get(key);
    if (stat !== undefined) layers.push({ name: key, value: stat, source: ConfigSource.STATIC_BROKER_CONFIG });
    const def = BROKER_CONFIG_BY_NAME.get(key)?.defaultValue ?? null;
    if (def !== null) layers.push({ name: key, value: def, source: ConfigSource.DEFAULT_CONFIG });
    return layers;
  }

  /**
   * The synonyms Kafka lists for a setting known by `keys` (the first is its own name): every
   * source in precedence order, each with the keys it sets, from the first entry naming `keys[0]`
   * on. A setting whose own key is set nowhere, not even by a default, lists none
   * (`segment.ms` shows no `log.roll.hours`).
   */
  private synonymsOf(keys: readonly string[]): ConfigSynonym[] {
    const bySource = keys
      .flatMap((k) => this.brokerLayers(k))
      .sort((a, b) => SOURCE_PRECEDENCE.indexOf(a.source) - SOURCE_PRECEDENCE.indexOf(b.source));
    const own = bySource.findIndex((s) => s.name === keys[0]);
    return own < 0 ? [] : bySource.slice(own);
  }

  /** The broker-wide value of a broker key, as the broker acts on it. */
  brokerValue(key: string): string | null {
    return this.brokerLayers(key)[0]?.value ?? null;
  }

  brokerEntry(def: BrokerConfigDefinition): ConfigEntry {
    const own = this.brokerLayers(def.name);
    const top = own[0];
    return {
      definition: def,
      value: top?.value ?? null,
      source: top?.source ?? ConfigSource.DEFAULT_CONFIG,
      readOnly: !def.dynamic,
      synonyms: this.synonymsOf(brokerSynonymKeys(def.name)),
    };
  }

  /** The dynamic configs of one broker resource ("" = cluster default), as Kafka describes it. */
  dynamicEntries(scope: 'clusterDefault' | 'node'): ConfigEntry[] {
    const source = scope === 'node' ? ConfigSource.DYNAMIC_BROKER_CONFIG : ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG;
    return [...this.metadata.image.dynamicConfigs(scope)].flatMap(([name, value]) => {
      const def = BROKER_CONFIG_BY_NAME.get(name);
      return def === undefined ? [] : [{ definition: def, value, source, readOnly: false, synonyms: [{ name, value, source }] }];
    });
  }

  topicEntry(def: TopicConfigDefinition, overrides: ReadonlyMap<string, string>): ConfigEntry {
    return this.overridableEntry(def, overrides, ConfigSource.DYNAMIC_TOPIC_CONFIG);
  }

  /** A key of a resource that overrides broker settings (a topic, a group): its override, else its first broker synonym with a value. */
  private overridableEntry(
    def: ConfigDefinition & { readonly synonyms: readonly BrokerSynonym[] },
    overrides: ReadonlyMap<string, string>,
    overrideSource: number,
  ): ConfigEntry {
    const synonyms: ConfigSynonym[] = [];
    const override = overrides.get(def.name);
    if (override !== undefined) synonyms.push({ name: def.name, value: override, source: overrideSource });
    let inherited: { value: string; source: number } | null = null;
    for (const syn of def.synonyms) {
      const layers = this.brokerLayers(syn.key);
      if (inherited === null && layers[0] !== undefined)
        inherited = { value: scaled(layers[0].value, syn.scale), source: layers[0].source };
    }
    synonyms.push(...this.synonymsOf(def.synonyms.map((s) => s.key)));
    const chosen =
      override !== undefined
        ? { value: override, source: overrideSource }
        : (inherited ?? { value: def.defaultValue, source: ConfigSource.DEFAULT_CONFIG });
    // Kafka names the source after the first synonym it lists, so a value inherited from a
    // secondary key alone (log.retention.hours without log.retention.ms) shows as a default.
    return { definition: def, value: chosen.value, source: synonyms[0]?.source ?? ConfigSource.DEFAULT_CONFIG, readOnly: false, synonyms };
  }

  /**
   * Every described key of a group's config resource, as Kafka 4.4 describes it: the last synonym
   * is always a default, under the broker key's name (or the group key's when it has none), also
   * for broker keys this broker does not define.
   */
  groupEntries(groupId: string): ConfigEntry[] {
    const overrides = this.metadata.image.groupConfigs(groupId);
    return GROUP_CONFIGS.filter((def) => !def.internal).map((def) => this.groupEntry(def, overrides));
  }

  private groupEntry(def: GroupConfigDefinition, overrides: ReadonlyMap<string, string>): ConfigEntry {
    const entry = this.overridableEntry(def, overrides, ConfigSource.GROUP_CONFIG);
    if (entry.synonyms.some((s) => s.source === ConfigSource.DEFAULT_CONFIG)) return entry;
    const fallback: ConfigSynonym = {
      name: def.synonyms[0]?.key ?? def.name,
      value: def.defaultValue ?? '',
      source: ConfigSource.DEFAULT_CONFIG,
    };
    const inherited = entry.source === ConfigSource.DEFAULT_CONFIG;
    return { ...entry, ...(inherited ? { value: fallback.value } : {}), synonyms: [...entry.synonyms, fallback] };
  }

  /** The value in effect for a group key (described or internal), for APPEND and SUBTRACT. */
  groupValue(groupId: string, name: string): string | null {
    const def = GROUP_CONFIGS.find((d) => d.name === name);
    return def === undefined ? null : this.groupEntry(def, this.metadata.image.groupConfigs(groupId)).value;
  }

  /** What group `groupId` overrides (GROUP config resource), typed; the rest is the broker's. */
  groupConfig(groupId: string): GroupConfigOverrides {
    return groupConfigOverrides(this.metadata.image.groupConfigs(groupId));
  }

  topicEntries(overrides: ReadonlyMap<string, string>): ConfigEntry[] {
    return TOPIC_CONFIGS.map((def) => this.topicEntry(def, overrides));
  }

  /** Every topic key with its effective value: what the partition logs are configured with. */
  effectiveTopicConfig(topic: Pick<TopicImage, 'configs'>): Map<string, string> {
    return new Map(this.topicEntries(topic.configs).map((e) => [e.definition.name, e.value ?? '']));
  }

  /** The effective value of one topic key for these overrides. */
  topicValue(name: string, overrides: ReadonlyMap<string, string>): string | null {
    const def = TOPIC_CONFIG_BY_NAME.get(name);
    return def === undefined ? null : this.topicEntry(def, overrides).value;
  }
}
