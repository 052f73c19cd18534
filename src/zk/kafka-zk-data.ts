/**
 * Kafka's ZooKeeper-era layout: the znode paths and the JSON in them, as Kafka 3.9 writes them
 * (`kafka.zk.ZkData`), so Kafka's own tools can read a Sluice cluster's ZooKeeper and Sluice can
 * read one Kafka wrote. Pure functions; decoders accept the older versions Kafka still reads and
 * throw `KafkaZkDataError` on anything else. Key order in the JSON is not significant to any
 * reader; it follows what Kafka's Jackson output usually shows.
 */
import {
  PatternType,
  enumName,
  operationName,
  parseOperation,
  parsePatternType,
  parsePermissionType,
  parseResourceType,
  patternTypeName,
  permissionTypeName,
  resourceTypeName,
  type AccessControlEntry,
  type ResourcePattern,
  type ResourceType,
} from '../security/acl/index.js';
import { KafkaZkDataError } from './kafka-zk-errors.js';

// --- Paths ---

export const CONTROLLER_PATH = '/controller';
export const CONTROLLER_EPOCH_PATH = '/controller_epoch';
export const BROKER_IDS_PATH = '/brokers/ids';
export const TOPICS_PATH = '/brokers/topics';
export const BROKER_SEQUENCE_ID_PATH = '/brokers/seqid';
export const CLUSTER_ID_PATH = '/cluster/id';
export const CONFIG_CHANGES_PATH = '/config/changes';
export const CONFIG_CHANGE_PREFIX = 'config_change_';
export const DELETE_TOPICS_PATH = '/admin/delete_topics';
export const ISR_CHANGE_NOTIFICATION_PATH = '/isr_change_notification';
export const LOG_DIR_EVENT_NOTIFICATION_PATH = '/log_dir_event_notification';
export const LOG_DIR_EVENT_PREFIX = 'log_dir_event_';
export const PRODUCER_ID_BLOCK_PATH = '/latest_producer_id_block';
export const FEATURE_PATH = '/feature';

/** The config entity types (`ConfigType.ALL`), each a folder under /config. */
export const CONFIG_ENTITY_TYPES = ['topics', 'clients', 'users', 'brokers', 'ips'] as const;
/**
 * Sluice's GROUP config resources (`/config/groups/<group id>`, the id sanitized as client ids are): Kafka kept none in ZooKeeper
 * (they came with KRaft), so this follows the other entities' layout and notifications; it is not
 * among the paths created at start-up, which stay Kafka's.
 */
export const GROUP_CONFIG_ENTITY = 'groups';
export type ConfigEntityType = (typeof CONFIG_ENTITY_TYPES)[number] | typeof GROUP_CONFIG_ENTITY;
/** The entity name of the cluster-wide default (`ZooKeeperInternals.DEFAULT_STRING`). */
export const DEFAULT_ENTITY = '<default>';

/** What Kafka creates at broker start-up if missing (`ZkData.PersistentZkPaths`). */
export const PERSISTENT_PATHS: readonly string[] = [
  '/consumers',
  BROKER_IDS_PATH,
  TOPICS_PATH,
  CONFIG_CHANGES_PATH,
  DELETE_TOPICS_PATH,
  BROKER_SEQUENCE_ID_PATH,
  ISR_CHANGE_NOTIFICATION_PATH,
  PRODUCER_ID_BLOCK_PATH,
  LOG_DIR_EVENT_NOTIFICATION_PATH,
  ...CONFIG_ENTITY_TYPES.map((type) => `/config/${type}`),
];

export const brokerIdPath = (id: number): string => `${BROKER_IDS_PATH}/${id}`;
export const topicPath = (topic: string): string => `${TOPICS_PATH}/${topic}`;
export const topicPartitionsPath = (topic: string): string => `${topicPath(topic)}/partitions`;
export const topicPartitionPath = (topic: string, partition: number): string => `${topicPartitionsPath(topic)}/${partition}`;
export const partitionStatePath = (topic: string, partition: number): string => `${topicPartitionPath(topic, partition)}/state`;
export const configEntityPath = (type: ConfigEntityType, name: string): string => `/config/${type}/${name}`;
export const deleteTopicPath = (topic: string): string => `${DELETE_TOPICS_PATH}/${topic}`;

// --- JSON helpers ---

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function encode(value: Json): Buffer {
  return Buffer.from(JSON.stringify(value), 'utf8');
}

class Reader {
  constructor(
    private readonly path: string,
    private readonly data: Buffer | null,
  ) {}

  fail(problem: string): never {
    throw new KafkaZkDataError(this.path, problem, this.data);
  }

  object(): JsonObject {
    if (this.data === null || this.data.length === 0) this.fail('no JSON');
    let parsed: unknown;
    try {
      parsed = JSON.parse(this.data.toString('utf8'));
    } catch {
      this.fail('not JSON');
    }
    return this.asObject(parsed, 'the document');
  }

  asObject(value: unknown, what: string): JsonObject {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail(`${what} is not a JSON object`);
    return value as JsonObject;
  }

  int(obj: JsonObject, key: string): number {
    const v = obj[key];
    if (typeof v !== 'number' || !Number.isInteger(v)) this.fail(`"${key}" is not an integer`);
    return v;
  }

  bigintString(obj: JsonObject, key: string): bigint {
    const v = obj[key];
    if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
    if (typeof v !== 'string' || !/^-?\d+$/.test(v)) this.fail(`"${key}" is not an integer string`);
    return BigInt(v);
  }

  string(obj: JsonObject, key: string): string {
    const v = obj[key];
    if (typeof v !== 'string') this.fail(`"${key}" is not a string`);
    return v;
  }

  optionalString(obj: JsonObject, key: string): string | null {
    const v = obj[key];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string') this.fail(`"${key}" is not a string`);
    return v;
  }

  intArray(value: unknown, what: string): number[] {
    if (!Array.isArray(value) || !value.every((x) => typeof x === 'number' && Number.isInteger(x)))
      this.fail(`${what} is not an array of integers`);
    return value as number[];
  }

  /** `{"0":[1,2],"1":[2,3]}` as partition → replicas; absent is empty. */
  replicaMap(obj: JsonObject, key: string): Map<number, number[]> {
    const out = new Map<number, number[]>();
    const v = obj[key];
    if (v === undefined || v === null) return out;
    for (const [partition, replicas] of Object.entries(this.asObject(v, `"${key}"`))) {
      if (!/^\d+$/.test(partition)) this.fail(`"${key}" has partition "${partition}"`);
      out.set(Number(partition), this.intArray(replicas, `"${key}"."${partition}"`));
    }
    return out;
  }
}

function replicaMapJson(map: ReadonlyMap<number, readonly number[]> | undefined): JsonObject {
  const out: JsonObject = {};
  for (const [partition, replicas] of [...(map ?? new Map<number, readonly number[]>())].sort(([a], [b]) => a - b)) {
    if (replicas.length > 0) out[String(partition)] = [...replicas];
  }
  return out;
}

// --- /brokers/ids/<id> ---

export interface BrokerEndpoint {
  readonly listenerName: string;
  readonly securityProtocol: string;
  readonly host: string;
  readonly port: number;
}

export interface SupportedFeatureRange {
  readonly minVersion: number;
  readonly maxVersion: number;
}

export interface BrokerInfo {
  readonly id: number;
  /** The advertised listeners; the first PLAINTEXT one is also the top-level host and port. */
  readonly endpoints: readonly BrokerEndpoint[];
  readonly rack?: string | null;
  /** -1 when JMX is off, as Kafka writes it. */
  readonly jmxPort?: number;
  readonly features?: Readonly<Record<string, SupportedFeatureRange>>;
}

export interface DecodedBroker {
  readonly id: number;
  readonly version: number;
  /** The first PLAINTEXT endpoint's, null/-1 when there is none (as Kafka writes them). */
  readonly host: string | null;
  readonly port: number;
  readonly rack: string | null;
  readonly jmxPort: number;
  readonly endpoints: BrokerEndpoint[];
  readonly features: Record<string, SupportedFeatureRange>;
}

/** Kafka's `SocketServerConfigs.DEFAULT_NAME_TO_SECURITY_PROTO`, for JSON without a map. */
const DEFAULT_SECURITY_PROTOCOLS: Readonly<Record<string, string>> = {
  PLAINTEXT: 'PLAINTEXT',
  SSL: 'SSL',
  SASL_PLAINTEXT: 'SASL_PLAINTEXT',
  SASL_SSL: 'SASL_SSL',
};

/** `LISTENER://host:port`, with an IPv6 host in brackets (Kafka's `EndPoint.connectionString`). */
export function endpointConnectionString(e: BrokerEndpoint): string {
  return `${e.listenerName}://${e.host.includes(':') ? `[${e.host}]` : e.host}:${e.port}`;
}

const ENDPOINT = /^([^:]+):\/\/(?:\[([^\]]*)\]|([^:]*)):(-?\d+)$/;

/** Encodes Kafka's version 5 broker registration; `timestamp` is its registration time in ms. */
export function encodeBrokerInfo(info: BrokerInfo, timestamp: number): Buffer {
  const plaintext = info.endpoints.find((e) => e.securityProtocol === 'PLAINTEXT');
  const features: JsonObject = {};
  for (const [name, range] of Object.entries(info.features ?? {}))
    features[name] = { min_version: range.minVersion, max_version: range.maxVersion };
  const protocols: JsonObject = {};
  for (const e of info.endpoints) protocols[e.listenerName] = e.securityProtocol;
  const json: JsonObject = {
    features,
    listener_security_protocol_map: protocols,
    endpoints: info.endpoints.map(endpointConnectionString),
    jmx_port: info.jmxPort ?? -1,
    port: plaintext?.port ?? -1,
    host: plaintext?.host ?? null,
  };
  if (info.rack !== undefined && info.rack !== null) json['rack'] = info.rack;
  json['version'] = 5;
  json['timestamp'] = String(timestamp);
  return encode(json);
}

export function decodeBrokerInfo(id: number, data: Buffer | null): DecodedBroker {
  const r: Reader = new Reader(brokerIdPath(id), data);
  const obj = r.object();
  const version = r.int(obj, 'version');
  if (version < 1) r.fail(`unsupported broker registration version ${version}`);
  const jmxPort = r.int(obj, 'jmx_port');
  let endpoints: BrokerEndpoint[];
  if (version === 1) {
    endpoints = [{ listenerName: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: r.string(obj, 'host'), port: r.int(obj, 'port') }];
  } else {
    const mapJson = obj['listener_security_protocol_map'];
    const protocols: Record<string, Json> =
      mapJson === undefined || mapJson === null ? DEFAULT_SECURITY_PROTOCOLS : r.asObject(mapJson, '"listener_security_protocol_map"');
    const list = obj['endpoints'];
    if (!Array.isArray(list)) r.fail('"endpoints" is not an array');
    endpoints = list.map((s) => {
      const m = typeof s === 'string' ? ENDPOINT.exec(s) : null;
      if (m === null) return r.fail(`endpoint ${JSON.stringify(s)} is not LISTENER://host:port`);
      const listenerName = m[1]!.toUpperCase();
      const securityProtocol = protocols[listenerName];
      if (typeof securityProtocol !== 'string') return r.fail(`listener ${listenerName} has no security protocol`);
      return { listenerName, securityProtocol, host: m[2] ?? m[3] ?? '', port: Number(m[4]) };
    });
  }
  const features: Record<string, SupportedFeatureRange> = {};
  const featuresJson = obj['features'];
  if (featuresJson !== undefined && featuresJson !== null) {
    for (const [name, range] of Object.entries(r.asObject(featuresJson, '"features"'))) {
      const o = r.asObject(range, `feature ${name}`);
      features[name] = { minVersion: r.int(o, 'min_version'), maxVersion: r.int(o, 'max_version') };
    }
  }
  const plaintext = endpoints.find((e) => e.securityProtocol === 'PLAINTEXT');
  return {
    id,
    version,
    host: version === 1 ? r.string(obj, 'host') : (r.optionalString(obj, 'host') ?? plaintext?.host ?? null),
    port: typeof obj['port'] === 'number' ? r.int(obj, 'port') : (plaintext?.port ?? -1),
    rack: r.optionalString(obj, 'rack'),
    jmxPort,
    endpoints,
    features,
  };
}

// --- /controller and /controller_epoch ---

/** Kafka 3.9's version 2 (`kraftControllerEpoch` -1: a ZooKeeper-mode controller). */
export function encodeController(brokerId: number, timestamp: number): Buffer {
  return encode({ version: 2, brokerid: brokerId, timestamp: String(timestamp), kraftControllerEpoch: -1 });
}

export function decodeController(data: Buffer | null): number {
  const r: Reader = new Reader(CONTROLLER_PATH, data);
  return r.int(r.object(), 'brokerid');
}

/** The epoch as plain decimal text, not JSON. */
export function encodeControllerEpoch(epoch: number): Buffer {
  return Buffer.from(String(epoch), 'utf8');
}

export function decodeControllerEpoch(data: Buffer | null): number {
  const text = data?.toString('utf8').trim() ?? '';
  if (!/^-?\d+$/.test(text)) new Reader(CONTROLLER_EPOCH_PATH, data).fail('not a decimal epoch');
  return Number(text);
}

// --- /cluster/id ---

export function encodeClusterId(id: string): Buffer {
  return encode({ version: '1', id });
}

export function decodeClusterId(data: Buffer | null): string {
  const r: Reader = new Reader(CLUSTER_ID_PATH, data);
  return r.string(r.object(), 'id');
}

// --- /brokers/topics/<topic> ---

export interface TopicAssignmentData {
  /** null for a topic written before topic ids (Kafka 2.8). */
  readonly topicId: string | null;
  readonly partitions: ReadonlyMap<number, readonly number[]>;
  readonly addingReplicas?: ReadonlyMap<number, readonly number[]>;
  readonly removingReplicas?: ReadonlyMap<number, readonly number[]>;
}

export interface DecodedTopicAssignment {
  readonly topicId: string | null;
  readonly partitions: Map<number, number[]>;
  readonly addingReplicas: Map<number, number[]>;
  readonly removingReplicas: Map<number, number[]>;
}

/** Version 3; a partition with no adding (removing) replicas is left out of that map, as Kafka does. */
export function encodeTopicAssignment(a: TopicAssignmentData): Buffer {
  const partitions: JsonObject = {};
  for (const [partition, replicas] of [...a.partitions].sort(([x], [y]) => x - y)) partitions[String(partition)] = [...replicas];
  const json: JsonObject = { version: 3 };
  if (a.topicId !== null) json['topic_id'] = a.topicId;
  json['partitions'] = partitions;
  json['adding_replicas'] = replicaMapJson(a.addingReplicas);
  json['removing_replicas'] = replicaMapJson(a.removingReplicas);
  return encode(json);
}

export function decodeTopicAssignment(topic: string, data: Buffer | null): DecodedTopicAssignment {
  const r: Reader = new Reader(topicPath(topic), data);
  const obj = r.object();
  return {
    topicId: r.optionalString(obj, 'topic_id'),
    partitions: r.replicaMap(obj, 'partitions'),
    addingReplicas: r.replicaMap(obj, 'adding_replicas'),
    removingReplicas: r.replicaMap(obj, 'removing_replicas'),
  };
}

// --- /brokers/topics/<topic>/partitions/<n>/state ---

/** A partition's leader and ISR as the controller writes them (`LeaderIsrAndControllerEpoch`). */
export interface LeaderAndIsrZk {
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly isr: readonly number[];
  /** The epoch of the controller that wrote this state. */
  readonly controllerEpoch: number;
  /** KIP-704: 0 RECOVERED (left out of the JSON), 1 RECOVERING. */
  readonly leaderRecoveryState?: number;
}

export function encodePartitionState(s: LeaderAndIsrZk): Buffer {
  const json: JsonObject = {
    controller_epoch: s.controllerEpoch,
    leader: s.leader,
    version: 1,
    leader_epoch: s.leaderEpoch,
    isr: [...s.isr],
  };
  if (s.leaderRecoveryState !== undefined && s.leaderRecoveryState !== 0) json['leader_recovery_state'] = s.leaderRecoveryState;
  return encode(json);
}

export function decodePartitionState(topic: string, partition: number, data: Buffer | null): LeaderAndIsrZk {
  const r: Reader = new Reader(partitionStatePath(topic, partition), data);
  const obj = r.object();
  const state = {
    leader: r.int(obj, 'leader'),
    leaderEpoch: r.int(obj, 'leader_epoch'),
    isr: r.intArray(obj['isr'], '"isr"'),
    controllerEpoch: r.int(obj, 'controller_epoch'),
  };
  const recovery = obj['leader_recovery_state'];
  return recovery === undefined || recovery === 0 ? state : { ...state, leaderRecoveryState: r.int(obj, 'leader_recovery_state') };
}

// --- /feature ---

/** `FeatureZNode` version 2 (Kafka 3.3+): a level per feature, no `min_version_level`. */
const FEATURE_ZNODE_V1 = 1;
const FEATURE_ZNODE_V2 = 2;
/** `FeatureZNodeStatus.Enabled`: the finalized features are in force. */
const FEATURE_STATUS_ENABLED = 1;

/** The finalized feature levels; a feature at level 0 is left out (Kafka refuses a level below 1 here). */
export function encodeFeatures(levels: ReadonlyMap<string, number>): Buffer {
  const features: JsonObject = {};
  for (const [name, level] of levels) features[name] = { max_version_level: level };
  return encode({ features, version: FEATURE_ZNODE_V2, status: FEATURE_STATUS_ENABLED });
}

/**
 * The finalized levels `/feature` holds, version 1 (`min_version_level` too) or 2. A node whose
 * status is Disabled (0) finalizes nothing, as Kafka reads it.
 */
export function decodeFeatures(data: Buffer | null): Map<string, number> {
  const r = new Reader(FEATURE_PATH, data);
  const obj = r.object();
  const version = r.int(obj, 'version');
  if (version !== FEATURE_ZNODE_V1 && version !== FEATURE_ZNODE_V2) r.fail(`unsupported version ${version}`);
  const status = r.int(obj, 'status');
  if (status !== 0 && status !== FEATURE_STATUS_ENABLED) r.fail(`malformed status ${status}`);
  const featuresJson = obj['features'];
  if (featuresJson === undefined || featuresJson === null) r.fail('"features" is absent');
  const levels = new Map<string, number>();
  for (const [name, range] of Object.entries(r.asObject(featuresJson, '"features"'))) {
    const o = r.asObject(range, `feature ${name}`);
    const max = r.int(o, 'max_version_level');
    if (max < 1) r.fail(`feature ${name} has max_version_level ${max}, below 1`);
    if (version === FEATURE_ZNODE_V1 && r.int(o, 'min_version_level') > max)
      r.fail(`feature ${name} has min_version_level above max_version_level`);
    levels.set(name, max);
  }
  return status === FEATURE_STATUS_ENABLED ? levels : new Map<string, number>();
}

// --- /config/<type>/<name> and /config/changes ---

export function encodeEntityConfig(configs: Readonly<Record<string, string>>): Buffer {
  return encode({ version: 1, config: { ...configs } });
}

export function decodeEntityConfig(path: string, data: Buffer | null): Record<string, string> {
  // Kafka reads a znode without data as no configs.
  if (data === null || data.length === 0) return {};
  const r: Reader = new Reader(path, data);
  const config = r.object()['config'];
  if (config === undefined || config === null) return {};
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(r.asObject(config, '"config"'))) {
    if (typeof value !== 'string') r.fail(`config "${key}" is not a string`);
    out[key] = value;
  }
  return out;
}

/** `entityPath` is `<type>/<name>`, e.g. `topics/orders`, `brokers/<default>`. */
export function encodeConfigChange(entityPath: string): Buffer {
  return encode({ version: 2, entity_path: entityPath });
}

/** Reads version 2 and version 1 (`entity_type` + `entity_name`) notifications. */
export function decodeConfigChange(path: string, data: Buffer | null): string {
  const r: Reader = new Reader(path, data);
  const obj = r.object();
  const version = r.int(obj, 'version');
  if (version === 2) return r.string(obj, 'entity_path');
  if (version === 1) return `${r.string(obj, 'entity_type')}/${r.string(obj, 'entity_name')}`;
  return r.fail(`unsupported config change notification version ${version}`);
}

// --- /log_dir_event_notification ---

/** Kafka's `LogDirEventNotificationHandler.LogDirFailureEvent`, the only event there is. */
const LOG_DIR_FAILURE_EVENT = 1;

/** A broker's notice that one of its log dirs failed (`LogDirEventNotificationSequenceZNode`). */
export function encodeLogDirEvent(brokerId: number): Buffer {
  return encode({ version: 1, broker: brokerId, event: LOG_DIR_FAILURE_EVENT });
}

/** The broker a log dir event names. */
export function decodeLogDirEvent(path: string, data: Buffer | null): number {
  const r: Reader = new Reader(path, data);
  return r.int(r.object(), 'broker');
}

// --- /latest_producer_id_block ---

export interface ProducerIdBlockData {
  readonly brokerId: number;
  readonly firstProducerId: bigint;
  readonly size: number;
}

export function encodeProducerIdBlock(b: ProducerIdBlockData): Buffer {
  return encode({
    version: 1,
    broker: b.brokerId,
    block_start: b.firstProducerId.toString(),
    block_end: (b.firstProducerId + BigInt(b.size) - 1n).toString(),
  });
}

export function decodeProducerIdBlock(data: Buffer | null): ProducerIdBlockData {
  const r: Reader = new Reader(PRODUCER_ID_BLOCK_PATH, data);
  const obj = r.object();
  const start = r.bigintString(obj, 'block_start');
  const end = r.bigintString(obj, 'block_end');
  if (end < start) r.fail('block_end is before block_start');
  return { brokerId: r.int(obj, 'broker'), firstProducerId: start, size: Number(end - start + 1n) };
}

// --- ACLs: /kafka-acl, /kafka-acl-extended/prefixed and their change notifications (Kafka's AclAuthorizer) ---

export const LITERAL_ACL_PATH = '/kafka-acl';
export const PREFIXED_ACL_PATH = '/kafka-acl-extended/prefixed';
export const LITERAL_ACL_CHANGES_PATH = '/kafka-acl-changes';
export const EXTENDED_ACL_CHANGES_PATH = '/kafka-acl-extended-changes';
export const ACL_CHANGE_PREFIX = 'acl_changes_';

/** `/kafka-acl/<Type>/<name>` (LITERAL) or `/kafka-acl-extended/prefixed/<Type>/<name>` (PREFIXED). */
export function aclResourcePath(p: ResourcePattern): string {
  return `${aclRootPath(p.patternType)}/${resourceTypeName(p.resourceType)}/${p.name}`;
}

export function aclRootPath(patternType: PatternType): string {
  if (patternType === PatternType.LITERAL) return LITERAL_ACL_PATH;
  if (patternType === PatternType.PREFIXED) return PREFIXED_ACL_PATH;
  throw new RangeError(`ACLs of pattern type ${patternType} are not stored`);
}

export function encodeResourceAcls(entries: readonly AccessControlEntry[]): Buffer {
  return encode({
    version: 1,
    acls: entries.map((e) => ({
      principal: e.principal,
      permissionType: permissionTypeName(e.permissionType),
      operation: operationName(e.operation),
      host: e.host,
    })),
  });
}

export function decodeResourceAcls(path: string, data: Buffer | null): AccessControlEntry[] {
  // Kafka reads a resource znode without data as no ACLs.
  if (data === null || data.length === 0) return [];
  const r = new Reader(path, data);
  const obj = r.object();
  const acls = obj['acls'];
  if (!Array.isArray(acls)) return r.fail('"acls" is not an array');
  return acls.map((a, i) => {
    const acl = r.asObject(a, `acl ${i}`);
    const operation = parseOperation(r.string(acl, 'operation'));
    const permissionType = parsePermissionType(r.string(acl, 'permissionType'));
    if (operation === undefined || permissionType === undefined) return r.fail(`acl ${i} has an unknown operation or permission type`);
    return { principal: r.string(acl, 'principal'), host: r.string(acl, 'host'), operation, permissionType };
  });
}

function resourceTypeEnumName(t: ResourceType): string {
  return enumName(resourceTypeName(t));
}

/** Where a change of this pattern's ACLs is announced: literal and prefixed patterns have separate folders. */
export function aclChangesPath(patternType: PatternType): string {
  return patternType === PatternType.LITERAL ? LITERAL_ACL_CHANGES_PATH : EXTENDED_ACL_CHANGES_PATH;
}

/** Literal: `TOPIC:orders`; extended: `{"version":1,"resourceType":"TOPIC","name":"sales-","patternType":"PREFIXED"}`. */
export function encodeAclChange(p: ResourcePattern): Buffer {
  if (p.patternType === PatternType.LITERAL) return Buffer.from(`${resourceTypeEnumName(p.resourceType)}:${p.name}`, 'utf8');
  return encode({
    version: 1,
    resourceType: resourceTypeEnumName(p.resourceType),
    name: p.name,
    patternType: patternTypeName(p.patternType),
  });
}

export function decodeLiteralAclChange(path: string, data: Buffer | null): ResourcePattern {
  const r = new Reader(path, data);
  const text = data?.toString('utf8') ?? '';
  const colon = text.indexOf(':');
  const resourceType = colon > 0 ? parseResourceType(text.slice(0, colon)) : undefined;
  if (resourceType === undefined) return r.fail('not <resource type>:<name>');
  return { resourceType, name: text.slice(colon + 1), patternType: PatternType.LITERAL };
}

export function decodeExtendedAclChange(path: string, data: Buffer | null): ResourcePattern {
  const r = new Reader(path, data);
  const obj = r.object();
  if (r.int(obj, 'version') !== 1) return r.fail('unsupported ACL change notification version');
  const resourceType = parseResourceType(r.string(obj, 'resourceType'));
  const patternType = parsePatternType(r.string(obj, 'patternType'));
  if (resourceType === undefined || patternType !== PatternType.PREFIXED) return r.fail('unknown resource type or pattern type');
  return { resourceType, name: r.string(obj, 'name'), patternType };
}
