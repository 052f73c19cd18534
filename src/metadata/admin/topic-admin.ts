/**
 * Topic and configuration changes, with Kafka's checks and error codes, handed once valid to the
 * `MetadataWriter` (the single broker's own controller, or ZooKeeper in a cluster), which applies
 * them to the partition owners or lets the controller do so. Changes run one at a time on this
 * broker, so two concurrent requests to it cannot both create the same topic.
 */
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { PartitionAdmin } from './partition-admin.js';
import type { MetadataWriter } from '../metadata-writer.js';
import type { DynamicScope, MetadataImage, TopicImage } from '../metadata-image.js';
import {
  BROKER_CONFIG_BY_NAME,
  PER_BROKER_DYNAMIC_CONFIGS,
  TOPIC_CONFIG_BY_NAME,
  isListenerOnlySecurityConfig,
  splitList,
  validateValue,
} from '../config/config-definitions.js';
import type { ConfigResolver } from '../config/config-resolver.js';
import { checkGroupConfigs } from '../config/group-configs.js';
import { CLUSTER_METADATA_TOPIC, collisionKey, topicNameProblem } from '../topic-names.js';
import { randomUuid } from '@sluice/protocol/common/uuid.js';
import type { FeatureUpdate } from '../features.js';

export interface AdminResult {
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

export const OK: AdminResult = { errorCode: ErrorCode.NONE, errorMessage: null };

function fail(errorCode: number, errorMessage: string | null): AdminResult {
  return { errorCode, errorMessage };
}

export interface TopicDefaults {
  readonly numPartitions: number;
  readonly replicationFactor: number;
  readonly deleteTopicEnable: boolean;
}

export interface NewTopic {
  readonly name: string;
  /** -1: `num.partitions`. */
  readonly numPartitions: number;
  /** -1: `default.replication.factor`. */
  readonly replicationFactor: number;
  readonly assignments: readonly { readonly partitionIndex: number; readonly brokerIds: readonly number[] }[];
  readonly configs: readonly { readonly name: string; readonly value: string | null }[];
}

export interface CreatedTopic extends AdminResult {
  /** The topic as created (or as it would be, for validate_only); null on error. */
  readonly topic: TopicImage | null;
  readonly replicationFactor: number;
}

/** Kafka refuses more partitions than this in one request. */
const MAX_PARTITIONS_PER_REQUEST = 10_000;

export class TopicAdmin {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly writer: MetadataWriter,
    readonly configs: ConfigResolver,
    readonly partitions: PartitionAdmin,
    private readonly defaults: TopicDefaults,
  ) {}

  get metadata(): MetadataImage {
    return this.writer.image;
  }

  /** Runs changes one after another; a failed change does not block the next. */
  private serialize<T>(change: () => Promise<T>): Promise<T> {
    const run = this.tail.then(change, change);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Opens (creating if missing) every partition log the metadata lists: a single broker's start-up. */
  async openAll(): Promise<void> {
    for (const t of this.metadata.topics()) {
      await this.partitions.createPartitions({ name: t.name, topicId: t.topicId }, t.partitions, this.configs.effectiveTopicConfig(t));
    }
  }

  /** Runs a writer change, answering its failure with the error code it carries. */
  private async apply(change: () => Promise<void>): Promise<AdminResult> {
    try {
      await change();
      return OK;
    } catch (err) {
      return fail(kafkaErrorCode(err), (err as Error).message);
    }
  }

  createTopic(spec: NewTopic, validateOnly: boolean): Promise<CreatedTopic> {
    return this.serialize(async () => {
      const checked = this.checkNewTopic(spec);
      if ('errorCode' in checked) return { ...checked, topic: null, replicationFactor: -1 };
      const assignments =
        spec.assignments.length > 0
          ? [...spec.assignments].sort((a, b) => a.partitionIndex - b.partitionIndex).map((a) => a.brokerIds)
          : null;
      let topic: TopicImage;
      try {
        topic = this.writer.proposeTopic(
          spec.name,
          randomUuid(),
          checked.partitions,
          checked.replicationFactor,
          checked.configs,
          assignments,
        );
      } catch (err) {
        return { ...fail(kafkaErrorCode(err), (err as Error).message), topic: null, replicationFactor: -1 };
      }
      if (validateOnly) return { ...OK, topic, replicationFactor: checked.replicationFactor };
      const result = await this.apply(() => this.writer.createTopic(topic));
      if (result.errorCode !== ErrorCode.NONE) return { ...result, topic: null, replicationFactor: -1 };
      return { ...OK, topic: this.metadata.topic(topic.name) ?? topic, replicationFactor: checked.replicationFactor };
    });
  }

  private checkNewTopic(spec: NewTopic): AdminResult | { partitions: number; replicationFactor: number; configs: Map<string, string> } {
    const nameProblem = topicNameProblem(spec.name);
    if (nameProblem !== null) return fail(ErrorCode.INVALID_TOPIC_EXCEPTION, nameProblem);
    if (spec.name === CLUSTER_METADATA_TOPIC)
      return fail(ErrorCode.INVALID_REQUEST, `Creation of internal topic ${CLUSTER_METADATA_TOPIC} is prohibited.`);
    if (this.metadata.topic(spec.name) !== undefined) return fail(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${spec.name}' already exists.`);
    const colliding = this.metadata.topics().find((t) => collisionKey(t.name) === collisionKey(spec.name));
    if (colliding !== undefined)
      return fail(ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic '${spec.name}' collides with existing topic: ${colliding.name}`);
    const layout = spec.assignments.length > 0 ? this.checkAssignments(spec) : this.checkCounts(spec);
    if ('errorCode' in layout) return layout;
    const configs = new Map<string, string>();
    for (const { name, value } of spec.configs) {
      if (value === null) return fail(ErrorCode.INVALID_CONFIG, `Null value not supported for topic configs: ${name}`);
      configs.set(name, value);
    }
    const configProblem = checkTopicOverrides(configs);
    if (configProblem !== null) return configProblem;
    return { ...layout, configs };
  }

  private checkCounts(spec: NewTopic): AdminResult | { partitions: number; replicationFactor: number } {
    const partitions = spec.numPartitions === -1 ? this.defaults.numPartitions : spec.numPartitions;
    const replicationFactor = spec.replicationFactor === -1 ? this.defaults.replicationFactor : spec.replicationFactor;
    if (partitions <= 0) return fail(ErrorCode.INVALID_PARTITIONS, 'Number of partitions was set to an invalid non-positive value.');
    if (partitions > MAX_PARTITIONS_PER_REQUEST)
      return fail(ErrorCode.POLICY_VIOLATION, 'Excessively large number of partitions per request.');
    if (replicationFactor <= 0) {
      return fail(ErrorCode.INVALID_REPLICATION_FACTOR, 'Replication factor must be larger than 0, or -1 to use the default value.');
    }
    const registered = this.metadata.brokers().length;
    if (replicationFactor > registered) {
      return fail(
        ErrorCode.INVALID_REPLICATION_FACTOR,
        `Unable to replicate the partition ${replicationFactor} time(s): The target replication factor of ${replicationFactor} cannot be reached because only ${registered} broker(s) are registered or some brokers have all their log directories cordoned.`,
      );
    }
    return { partitions, replicationFactor };
  }

  private checkAssignments(spec: NewTopic): AdminResult | { partitions: number; replicationFactor: number } {
    if (spec.numPartitions !== -1) {
      return fail(ErrorCode.INVALID_REQUEST, 'A manual partition assignment was specified, but numPartitions was not set to -1.');
    }
    if (spec.replicationFactor !== -1) {
      return fail(ErrorCode.INVALID_REQUEST, 'A manual partition assignment was specified, but replicationFactor was not set to -1.');
    }
    if (spec.assignments.length > MAX_PARTITIONS_PER_REQUEST)
      return fail(ErrorCode.POLICY_VIOLATION, 'Excessively large number of partitions per request.');
    const indexes = spec.assignments.map((a) => a.partitionIndex).sort((a, b) => a - b);
    if (indexes.some((p, i) => p !== i)) {
      return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'partitions should be a consecutive 0-based integer sequence');
    }
    const replicationFactor = spec.assignments[0]!.brokerIds.length;
    for (const a of spec.assignments) {
      const problem = this.checkReplicas(a.brokerIds, replicationFactor);
      if (problem !== null) return problem;
    }
    return { partitions: spec.assignments.length, replicationFactor };
  }

  private checkReplicas(brokerIds: readonly number[], expected: number): AdminResult | null {
    if (brokerIds.length === 0)
      return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'The manual partition assignment includes an empty replica list.');
    const unknown = brokerIds.find((b) => this.metadata.broker(b) === undefined);
    if (unknown !== undefined) {
      return fail(
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        `The manual partition assignment includes broker ${unknown}, but no such broker is registered.`,
      );
    }
    const repeated = brokerIds.find((b, i) => brokerIds.indexOf(b) !== i);
    if (repeated !== undefined) {
      return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `The manual partition assignment includes the broker ${repeated} more than once.`);
    }
    if (brokerIds.length !== expected) {
      return fail(
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        `The manual partition assignment includes a partition with ${brokerIds.length} replica(s), but this is not consistent with previous partitions, which have ${expected} replica(s).`,
      );
    }
    return null;
  }

  deleteTopic(topic: TopicImage): Promise<AdminResult> {
    return this.serialize(async () => {
      if (!this.defaults.deleteTopicEnable) return fail(ErrorCode.TOPIC_DELETION_DISABLED, 'Topic deletion is disabled.');
      if (this.metadata.topic(topic.name)?.topicId !== topic.topicId) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, null);
      return this.apply(() => this.writer.deleteTopic(topic));
    });
  }

  get deletionEnabled(): boolean {
    return this.defaults.deleteTopicEnable;
  }

  createPartitions(
    name: string,
    count: number,
    assignments: readonly (readonly number[])[] | null,
    validateOnly: boolean,
  ): Promise<AdminResult> {
    return this.serialize(async () => {
      const topic = this.metadata.topic(name);
      if (topic === undefined) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, null);
      if (count === topic.partitionCount) return fail(ErrorCode.INVALID_PARTITIONS, `Topic already has ${count} partition(s).`);
      if (count < topic.partitionCount) {
        return fail(
          ErrorCode.INVALID_PARTITIONS,
          `The topic ${name} currently has ${topic.partitionCount} partition(s); ${count} would not be an increase.`,
        );
      }
      const added = count - topic.partitionCount;
      if (added > MAX_PARTITIONS_PER_REQUEST)
        return fail(ErrorCode.POLICY_VIOLATION, 'Excessively large number of partitions per request.');
      if (assignments !== null) {
        if (assignments.length !== added) {
          return fail(
            ErrorCode.INVALID_REPLICA_ASSIGNMENT,
            `Attempted to add ${added} additional partition(s), but only ${assignments.length} assignment(s) were specified.`,
          );
        }
        for (const a of assignments) {
          const problem = this.checkReplicas(a, topic.partitions[0]!.replicas.length);
          if (problem !== null) return problem;
        }
      }
      if (validateOnly) return OK;
      return this.apply(() => this.writer.addPartitions(topic, count, assignments));
    });
  }

  /** Replaces a topic's overrides (AlterConfigs and, after merging, IncrementalAlterConfigs). */
  setTopicConfigs(name: string, overrides: ReadonlyMap<string, string>, validateOnly: boolean): Promise<AdminResult> {
    return this.serialize(async () => {
      const topic = this.metadata.topic(name);
      if (topic === undefined) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${name}' does not exist.`);
      const problem = checkTopicOverrides(overrides);
      if (problem !== null || validateOnly) return problem ?? OK;
      return this.apply(() => this.writer.setTopicConfigs(topic, overrides));
    });
  }

  /** Replaces a group's config overrides (the GROUP resource), validated against the broker's group settings. */
  setGroupConfigs(groupId: string, configs: ReadonlyMap<string, string>, validateOnly: boolean): Promise<AdminResult> {
    return this.serialize(async () => {
      const problem = checkGroupConfigs(configs, (key) => this.configs.brokerValue(key));
      if (problem !== null || validateOnly) return problem ?? OK;
      return this.apply(() => this.writer.setGroupConfigs(groupId, configs));
    });
  }

  /** UpdateFeatures: the finalized feature levels, changed all or nothing (see `MetadataWriter.updateFeatures`). */
  updateFeatures(updates: readonly FeatureUpdate[], validateOnly: boolean): Promise<AdminResult> {
    return this.serialize(() => this.apply(() => this.writer.updateFeatures(updates, validateOnly)));
  }

  /** Replaces the dynamic configs of a broker resource. */
  setBrokerConfigs(scope: DynamicScope, configs: ReadonlyMap<string, string>, validateOnly: boolean): Promise<AdminResult> {
    return this.serialize(async () => {
      const problem = checkDynamicBrokerConfigs(scope, configs);
      if (problem !== null || validateOnly) return problem ?? OK;
      return this.apply(() => this.writer.setDynamicConfigs(scope, configs));
    });
  }
}

/** Kafka's checks of topic-level overrides: known keys, valid values, no tiered storage here. */
export function checkTopicOverrides(overrides: ReadonlyMap<string, string>): AdminResult | null {
  for (const [name, value] of overrides) {
    const def = TOPIC_CONFIG_BY_NAME.get(name);
    if (def === undefined) return fail(ErrorCode.INVALID_CONFIG, `Unknown topic config name: ${name}`);
    const problem = validateValue(def, value);
    if (problem !== null) return fail(ErrorCode.INVALID_CONFIG, problem);
  }
  if (overrides.get('remote.storage.enable')?.trim().toLowerCase() === 'true') {
    return fail(
      ErrorCode.INVALID_CONFIG,
      'Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.',
    );
  }
  return null;
}

/**
 * Only Kafka's dynamic broker keys may change at run time; the rest need a restart. TLS keys change
 * only per listener (which Sluice does not offer dynamically); listener and SASL keys belong to
 * one broker and are refused on the cluster default.
 */
export function checkDynamicBrokerConfigs(scope: DynamicScope, configs: ReadonlyMap<string, string>): AdminResult | null {
  const fixed = [...configs.keys()].filter((k) => BROKER_CONFIG_BY_NAME.get(k)?.dynamic !== true);
  if (fixed.length > 0) return fail(ErrorCode.INVALID_REQUEST, `Cannot update these configs dynamically: [${fixed.join(', ')}]`);
  const tls = [...configs.keys()].filter(isListenerOnlySecurityConfig);
  if (tls.length > 0)
    return fail(
      ErrorCode.INVALID_REQUEST,
      `These security configs can be dynamically updated only per-listener using the listener prefix: [${tls.join(', ')}]`,
    );
  // Kafka 3.9 stores a password in ZooKeeper only encrypted with password.encoder.secret; Sluice
  // keeps no key material in its metadata at all, so the keys stay in server.properties.
  const secrets = [...configs.keys()].filter((k) => BROKER_CONFIG_BY_NAME.get(k)!.type === 'password');
  if (secrets.length > 0) {
    return fail(
      ErrorCode.INVALID_CONFIG,
      `Password configs cannot be updated dynamically on this broker (set them in server.properties): ${secrets.join(',')}`,
    );
  }
  const perBroker = [...configs.keys()].filter((k) => PER_BROKER_DYNAMIC_CONFIGS.has(k));
  if (scope === 'clusterDefault' && perBroker.length > 0) {
    return fail(
      ErrorCode.INVALID_REQUEST,
      `Cannot update these configs at default cluster level, broker id must be specified: [${perBroker.join(', ')}]`,
    );
  }
  for (const [name, value] of configs) {
    // Kafka 4.4 refuses a broker value that does not parse as INVALID_REQUEST (topics and groups: INVALID_CONFIG).
    const problem = validateValue(BROKER_CONFIG_BY_NAME.get(name)!, value);
    if (problem !== null) return fail(ErrorCode.INVALID_REQUEST, problem);
    if (name === 'max.connections.per.ip.overrides' && splitList(value).some((item) => !/^.+:\d+$/.test(item))) {
      return fail(ErrorCode.INVALID_CONFIG, `Invalid value ${value} for configuration ${name}: expected host:count pairs`);
    }
  }
  return null;
}
