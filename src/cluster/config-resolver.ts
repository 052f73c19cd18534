/**
 * Effective configuration and where each value comes from, as DescribeConfigs reports it.
 * Precedence, highest first: a topic's override (DYNAMIC_TOPIC_CONFIG), this node's dynamic
 * broker config (DYNAMIC_BROKER_CONFIG), the cluster-wide dynamic default
 * (DYNAMIC_DEFAULT_BROKER_CONFIG), server.properties (STATIC_BROKER_CONFIG), Kafka's default
 * (DEFAULT_CONFIG). A topic key without an override takes the first of its broker synonyms that
 * has a value (`retention.ms` ← `log.retention.ms` ← `log.retention.minutes` ← `log.retention.hours`).
 */
import type { MetadataSource, TopicImage } from './metadata-image.js';
import {
  BROKER_CONFIG_BY_NAME,
  ConfigSource,
  TOPIC_CONFIGS,
  TOPIC_CONFIG_BY_NAME,
  type BrokerConfigDefinition,
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
    const bySource = keys.flatMap((k) => this.brokerLayers(k)).sort((a, b) => SOURCE_PRECEDENCE.indexOf(a.source) - SOURCE_PRECEDENCE.indexOf(b.source));
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
    const synonyms: ConfigSynonym[] = [];
    const override = overrides.get(def.name);
    if (override !== undefined) synonyms.push({ name: def.name, value: override, source: ConfigSource.DYNAMIC_TOPIC_CONFIG });
    let inherited: { value: string; source: number } | null = null;
    for (const syn of def.synonyms) {
      const layers = this.brokerLayers(syn.key);
      if (inherited === null && layers[0] !== undefined) inherited = { value: scaled(layers[0].value, syn.scale), source: layers[0].source };
    }
    synonyms.push(...this.synonymsOf(def.synonyms.map((s) => s.key)));
    const chosen =
      override !== undefined
        ? { value: override, source: ConfigSource.DYNAMIC_TOPIC_CONFIG }
        : (inherited ?? { value: def.defaultValue, source: ConfigSource.DEFAULT_CONFIG });
    // Kafka names the source after the first synonym it lists, so a value inherited from a
    // secondary key alone (log.retention.hours without log.retention.ms) shows as a default.
    return { definition: def, value: chosen.value, source: synonyms[0]?.source ?? ConfigSource.DEFAULT_CONFIG, readOnly: false, synonyms };
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
