/**
 * The GROUP config resource (KIP-848, KIP-932, KIP-1071): per-group overrides of the group
 * coordinator's broker settings, as Kafka 4.4's GroupConfig defines them. A key without an
 * override takes its broker synonym (`consumer.session.timeout.ms` ← `group.consumer.session.timeout.ms`).
 * Values are validated as Kafka does: type and ConfigDef bounds first, then against the broker's
 * allowed range (`group.consumer.min.session.timeout.ms` … `group.consumer.max.session.timeout.ms`),
 * then a session timeout must exceed its heartbeat interval.
 *
 * The coordinators read the typed `GroupConfigOverrides` (only what the group overrides; the
 * rest is the broker's): consumer groups here, share and streams groups where they are built.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { splitList, validateValue, type BrokerSynonym, type ConfigDefinition, type ConfigType } from './config-definitions.js';
import type { AdminResult } from '../admin/topic-admin.js';

/** The broker keys bounding a group key, with Kafka's defaults for when the broker sets none. */
interface BrokerBounds {
  readonly minKey?: string;
  readonly minDefault?: number;
  readonly maxKey?: string;
  readonly maxDefault?: number;
}

export interface GroupConfigDefinition extends ConfigDefinition {
  readonly synonyms: readonly BrokerSynonym[];
  readonly bounds: BrokerBounds;
  /** Accepted but not described (Kafka's internal group configs). */
  readonly internal: boolean;
}

function group(
  name: string,
  type: ConfigType,
  defaultValue: string,
  doc: string,
  options: { min?: number; oneOf?: readonly string[]; broker?: boolean | string; bounds?: BrokerBounds; internal?: boolean } = {},
): GroupConfigDefinition {
  return {
    name,
    type,
    defaultValue,
    doc,
    ...(options.min === undefined ? {} : { min: options.min }),
    ...(options.oneOf === undefined ? {} : { oneOf: options.oneOf }),
    synonyms: options.broker === false ? [] : [{ key: typeof options.broker === 'string' ? options.broker : `group.${name}`, scale: 1 }],
    bounds: options.bounds ?? {},
    internal: options.internal ?? false,
  };
}

const STREAMS_ASSIGNORS_KEY = 'group.streams.assignors';
const DEFAULT_STREAMS_ASSIGNOR = 'sticky';

/** `group.<kind>.min.<what>` … `group.<kind>.max.<what>` with Kafka's defaults. */
function range(kind: string, what: string, min: number, max: number): BrokerBounds {
  return { minKey: `group.${kind}.min.${what}`, minDefault: min, maxKey: `group.${kind}.max.${what}`, maxDefault: max };
}

/** Every key Kafka 4.4 accepts for a group; the internal ones are not described. */
export const GROUP_CONFIGS: readonly GroupConfigDefinition[] = [
  group('consumer.session.timeout.ms', 'int', '45000', 'The timeout to detect client failures when using the consumer group protocol.', {
    min: 1,
    bounds: range('consumer', 'session.timeout.ms', 45_000, 60_000),
  }),
  group('consumer.heartbeat.interval.ms', 'int', '5000', 'The heartbeat interval given to the members of a consumer group.', {
    min: 1,
    bounds: range('consumer', 'heartbeat.interval.ms', 5_000, 15_000),
  }),
  group('consumer.assignment.interval.ms', 'int', '1000', 'The interval between assignment updates for a consumer group.', { min: 0 }),
  group(
    'consumer.assignor.offload.enable',
    'boolean',
    'true',
    'Whether to offload consumer group assignment to a group coordinator background thread.',
    { internal: true },
  ),
  group('share.session.timeout.ms', 'int', '45000', 'The timeout to detect client failures when using the share group protocol.', {
    min: 1,
    bounds: range('share', 'session.timeout.ms', 45_000, 60_000),
  }),
  group('share.heartbeat.interval.ms', 'int', '5000', 'The heartbeat interval given to the members of a share group.', {
    min: 1,
    bounds: range('share', 'heartbeat.interval.ms', 5_000, 15_000),
  }),
  group('share.record.lock.duration.ms', 'int', '30000', 'The record acquisition lock duration in milliseconds for share groups.', {
    min: 1000,
    bounds: range('share', 'record.lock.duration.ms', 15_000, 60_000),
  }),
  group('share.delivery.count.limit', 'int', '5', 'The maximum number of delivery attempts for a record delivered to a share group.', {
    min: 2,
    bounds: range('share', 'delivery.count.limit', 2, 10),
  }),
  group('share.partition.max.record.locks', 'int', '2000', 'Share-group record lock limit per share-partition.', {
    min: 100,
    bounds: range('share', 'partition.max.record.locks', 100, 10_000),
  }),
  group(
    'share.auto.offset.reset',
    'string',
    'latest',
    'The strategy to initialize the share-partition start offset: earliest, latest or by_duration:<ISO8601 duration>.',
    { broker: false },
  ),
  group('share.assignment.interval.ms', 'int', '1000', 'The interval between assignment updates for a share group.', { min: 0 }),
  group(
    'share.assignor.offload.enable',
    'boolean',
    'true',
    'Whether to offload share group assignment to a group coordinator background thread.',
    { internal: true },
  ),
  group('streams.session.timeout.ms', 'int', '45000', 'The timeout to detect client failures when using the streams group protocol.', {
    min: 1,
    bounds: range('streams', 'session.timeout.ms', 45_000, 60_000),
  }),
  group('streams.heartbeat.interval.ms', 'int', '5000', 'The heartbeat interval given to the members.', {
    min: 1,
    bounds: range('streams', 'heartbeat.interval.ms', 5_000, 15_000),
  }),
  group('streams.num.standby.replicas', 'int', '0', 'The number of standby replicas for each task.', {
    min: 0,
    bounds: { maxKey: 'group.streams.max.standby.replicas', maxDefault: 2 },
  }),
  group('streams.initial.rebalance.delay.ms', 'int', '3000', 'The delay of the first rebalance of a streams group.', { min: 0 }),
  group('streams.assignment.interval.ms', 'int', '1000', 'The interval between assignment updates for a streams group.', { min: 0 }),
  group(
    'streams.assignor.offload.enable',
    'boolean',
    'true',
    'Whether to offload streams group assignment to a group coordinator background thread.',
    { internal: true },
  ),
  group('streams.task.offset.interval.ms', 'int', '60000', 'How often members of a streams group report their task offsets.', {
    min: 1,
    internal: true,
  }),
  group('streams.num.warmup.replicas', 'int', '2', 'The number of warm-up replicas for each task.', { min: 0, internal: true }),
  group(
    'streams.rack.aware.assignment.tags',
    'list',
    '',
    'Client tag keys used to distribute standby replicas across Kafka Streams instances.',
  ),
  group('streams.acceptable.recovery.lag', 'long', '10000', 'The maximum lag of a warm-up replica to be considered caught up.', {
    min: 0,
    internal: true,
  }),
  group(
    'streams.assignor.name',
    'string',
    DEFAULT_STREAMS_ASSIGNOR,
    "The task assignor of this streams group, by short name among the broker's group.streams.assignors; unset, the first of them.",
    { broker: STREAMS_ASSIGNORS_KEY },
  ),
  group(
    'share.isolation.level',
    'string',
    'read_uncommitted',
    'read_committed delivers only committed transactional records; read_uncommitted delivers them all.',
    { oneOf: ['read_committed', 'read_uncommitted'], broker: false },
  ),
  group('share.renew.acknowledge.enable', 'boolean', 'true', 'Whether the renew acknowledge type is enabled for the share group.', {
    broker: false,
  }),
  group('errors.deadletterqueue.topic.name', 'string', '', 'The dead-letter queue topic of this share group; blank has none.', {
    broker: false,
  }),
  group(
    'errors.deadletterqueue.copy.record.enable',
    'boolean',
    'false',
    'Whether the dead-letter queue gets a copy of the original record or only its context headers.',
    { broker: false },
  ),
];

export const GROUP_CONFIG_BY_NAME: ReadonlyMap<string, GroupConfigDefinition> = new Map(GROUP_CONFIGS.map((d) => [d.name, d]));

/** Session timeouts and the heartbeat intervals they must exceed. */
const SESSION_OVER_HEARTBEAT: readonly (readonly [string, string])[] = [
  ['consumer.session.timeout.ms', 'consumer.heartbeat.interval.ms'],
  ['share.session.timeout.ms', 'share.heartbeat.interval.ms'],
  ['streams.session.timeout.ms', 'streams.heartbeat.interval.ms'],
];

const AUTO_OFFSET_RESET = /^(earliest|latest|by_duration:P(\d+D)?(T(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?)$/i;

function invalid(message: string): AdminResult {
  return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: message };
}

/** The broker's value of a key, as a number (its Kafka default when the broker sets none). */
export type BrokerSetting = (key: string) => string | null;

function brokerNumber(setting: BrokerSetting, key: string, fallback: number): number {
  const value = Number(setting(key) ?? fallback);
  return Number.isFinite(value) ? value : fallback;
}

function checkBounds(def: GroupConfigDefinition, value: number, setting: BrokerSetting): string | null {
  const { minKey, minDefault, maxKey, maxDefault } = def.bounds;
  const min = minKey === undefined ? null : brokerNumber(setting, minKey, minDefault!);
  const max = maxKey === undefined ? null : brokerNumber(setting, maxKey, maxDefault!);
  if (min !== null && max !== null && (value < min || value > max)) return `${def.name} must be in the range ${min} to ${max} inclusive.`;
  if (max !== null && value > max) return `${def.name} must be less than or equal to ${max}`;
  if (min !== null && value < min) return `${def.name} must be greater than or equal to ${min}`;
  return null;
}

/** Kafka's checks of a group's overrides (the whole new set), or null when they are valid. */
export function checkGroupConfigs(overrides: ReadonlyMap<string, string>, setting: BrokerSetting): AdminResult | null {
  for (const [name, value] of overrides) {
    const def = GROUP_CONFIG_BY_NAME.get(name);
    if (def === undefined) return invalid(`Unknown group config name: ${name}`);
    const problem = validateValue(def, value);
    if (problem !== null) return invalid(problem);
    if (name === 'share.auto.offset.reset' && !AUTO_OFFSET_RESET.test(value.trim())) {
      return invalid(
        `Invalid value ${value} for configuration ${name}: Invalid value \`${value}\` for configuration ${name}. The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'.`,
      );
    }
    if (name === 'streams.assignor.name') {
      const registered = splitList(setting(STREAMS_ASSIGNORS_KEY) ?? DEFAULT_STREAMS_ASSIGNOR);
      if (!registered.includes(value.trim())) {
        return invalid(
          `streams.assignor.name '${value}' is not a registered task assignor. Registered assignors are: ${registered.join(', ')}.`,
        );
      }
    }
    if (name === 'errors.deadletterqueue.topic.name' && value.startsWith('__'))
      return invalid(`${name}: DLQ topic name must not start with '__'`);
    if (def.type === 'int') {
      const outside = checkBounds(def, Number(value), setting);
      if (outside !== null) return invalid(outside);
    }
  }
  for (const [session, heartbeat] of SESSION_OVER_HEARTBEAT) {
    if (!overrides.has(session) && !overrides.has(heartbeat)) continue;
    const effective = (key: string): number =>
      Number(overrides.get(key) ?? setting(`group.${key}`) ?? GROUP_CONFIG_BY_NAME.get(key)!.defaultValue);
    if (effective(session) <= effective(heartbeat)) return invalid(`${session} must be greater than ${heartbeat}`);
  }
  return null;
}

/**
 * What a group overrides, typed; a field is absent when the group leaves it to the broker's
 * setting. The group coordinator reads the consumer fields; share and streams groups read theirs.
 */
export interface GroupConfigOverrides {
  readonly consumerSessionTimeoutMs?: number;
  readonly consumerHeartbeatIntervalMs?: number;
  readonly shareSessionTimeoutMs?: number;
  readonly shareHeartbeatIntervalMs?: number;
  readonly shareRecordLockDurationMs?: number;
  readonly shareDeliveryCountLimit?: number;
  readonly sharePartitionMaxRecordLocks?: number;
  /** `earliest`, `latest` or `by_duration:<ISO8601 duration>`. */
  readonly shareAutoOffsetReset?: string;
  readonly shareIsolationLevel?: 'read_committed' | 'read_uncommitted';
  readonly shareRenewAcknowledgeEnable?: boolean;
  readonly streamsSessionTimeoutMs?: number;
  readonly streamsHeartbeatIntervalMs?: number;
  readonly streamsNumStandbyReplicas?: number;
  readonly errorsDeadLetterQueueTopicName?: string;
  readonly errorsDeadLetterQueueCopyRecordEnable?: boolean;
}

type Field = keyof GroupConfigOverrides;

const TYPED_FIELDS: readonly (readonly [string, Field])[] = [
  ['consumer.session.timeout.ms', 'consumerSessionTimeoutMs'],
  ['consumer.heartbeat.interval.ms', 'consumerHeartbeatIntervalMs'],
  ['share.session.timeout.ms', 'shareSessionTimeoutMs'],
  ['share.heartbeat.interval.ms', 'shareHeartbeatIntervalMs'],
  ['share.record.lock.duration.ms', 'shareRecordLockDurationMs'],
  ['share.delivery.count.limit', 'shareDeliveryCountLimit'],
  ['share.partition.max.record.locks', 'sharePartitionMaxRecordLocks'],
  ['share.auto.offset.reset', 'shareAutoOffsetReset'],
  ['share.isolation.level', 'shareIsolationLevel'],
  ['share.renew.acknowledge.enable', 'shareRenewAcknowledgeEnable'],
  ['streams.session.timeout.ms', 'streamsSessionTimeoutMs'],
  ['streams.heartbeat.interval.ms', 'streamsHeartbeatIntervalMs'],
  ['streams.num.standby.replicas', 'streamsNumStandbyReplicas'],
  ['errors.deadletterqueue.topic.name', 'errorsDeadLetterQueueTopicName'],
  ['errors.deadletterqueue.copy.record.enable', 'errorsDeadLetterQueueCopyRecordEnable'],
];

/** The typed view of a group's stored overrides (validated when they were written). */
export function groupConfigOverrides(overrides: ReadonlyMap<string, string>): GroupConfigOverrides {
  const typed: Record<string, string | number | boolean> = {};
  for (const [key, field] of TYPED_FIELDS) {
    const raw = overrides.get(key);
    if (raw === undefined) continue;
    const type = GROUP_CONFIG_BY_NAME.get(key)!.type;
    const text = raw.trim();
    typed[field] = type === 'boolean' ? text.toLowerCase() === 'true' : type === 'int' ? Number(text) : text;
  }
  return typed;
}
