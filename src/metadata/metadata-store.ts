/**
 * Persistence of the single broker's cluster metadata in `<first log dir>/__cluster_metadata.json`,
 * replaced atomically on every change (see `atomic-file.ts`). Format, version 2:
 *
 *   {
 *     "version": 2,
 *     "topics": [{ "name": "orders", "topicId": "<22-char base64url>",
 *                  "configs": { "retention.ms": "3600000" },
 *                  "partitions": [{ "partition": 0, "replicas": [1], "leader": 1, "leaderEpoch": 0,
 *                                   "partitionEpoch": 0, "isr": [1] }] }],
 *     "brokerConfigs": { "clusterDefault": { "<key>": "<value>" }, "node": { "<key>": "<value>" } },
 *     "clientEntities": { "users/alice": { "SCRAM-SHA-512": "salt=…", "producer_byte_rate": "1048576" } },
 *     "acls": [{ "resourceType": "Topic", "name": "orders", "patternType": "LITERAL",
 *                "principal": "User:alice", "host": "*", "operation": "Read", "permissionType": "Allow" }],
 *     "groupConfigs": { "orders-app": { "consumer.heartbeat.interval.ms": "6000" } },
 *     "features": { "epoch": 2, "levels": { "group.version": 1, "transaction.version": 2 } }
 *   }
 *
 * `configs` holds only a topic's overrides; `brokerConfigs` the dynamic broker configs set by
 * AlterConfigs (cluster-wide default resource "" and this node's resource); `clientEntities` the
 * configs of users, client ids and ips by their Kafka config path (see `client-entities.ts`),
 * absent from files written before it existed. Version 1 (written
 * until December 2026) kept a partition count per topic instead of registrations; it is read as
 * every partition having this broker as its only replica and leader, at epoch 0, which is what
 * a single broker always had. The next save writes version 2. `acls` (CreateAcls' bindings, with
 * the names Kafka's ZooKeeper layout uses) may be absent: files written before ACLs have none.
 * `groupConfigs` (the GROUP config resources' overrides, by group id) may be absent likewise.
 * `features` (the finalized feature levels UpdateFeatures set, a feature at level 0 left out, and
 * the epoch counting their changes) is absent until the first change: the defaults apply.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomically } from '../common/atomic-file.js';
import { parseEntityPath } from './client-entities.js';
import {
  operationName,
  parseOperation,
  parsePatternType,
  parsePermissionType,
  parseResourceType,
  patternTypeName,
  permissionTypeName,
  resourceTypeName,
  type AclBinding,
} from '../security/acl/index.js';
import type { PartitionRegistration } from './metadata-image.js';
import { DEFAULT_FINALIZED_FEATURES, type FinalizedFeatures } from './features.js';

export const METADATA_FILE = '__cluster_metadata.json';
const FORMAT_VERSION = 2;
const FORMAT_V1 = 1;

export type StoredPartition = Omit<PartitionRegistration, 'offlineReplicas'>;

export interface StoredTopic {
  readonly name: string;
  readonly topicId: string;
  readonly configs: Readonly<Record<string, string>>;
  readonly partitions: readonly StoredPartition[];
}

export interface StoredMetadata {
  readonly topics: readonly StoredTopic[];
  readonly brokerConfigs: {
    readonly clusterDefault: Readonly<Record<string, string>>;
    readonly node: Readonly<Record<string, string>>;
  };
  readonly clientEntities: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly acls: readonly AclBinding[];
  readonly groupConfigs: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly features: FinalizedFeatures;
}

export const EMPTY_METADATA: StoredMetadata = {
  topics: [],
  brokerConfigs: { clusterDefault: {}, node: {} },
  clientEntities: {},
  acls: [],
  groupConfigs: {},
  features: DEFAULT_FINALIZED_FEATURES,
};

function checkFeatures(path: string, v: unknown): FinalizedFeatures {
  if (v === undefined) return DEFAULT_FINALIZED_FEATURES;
  const r = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
  const levels = r['levels'];
  const valid =
    Number.isSafeInteger(r['epoch']) &&
    (r['epoch'] as number) >= 0 &&
    typeof levels === 'object' &&
    levels !== null &&
    !Array.isArray(levels) &&
    Object.values(levels).every((l) => Number.isInteger(l) && (l as number) > 0);
  if (!valid) throw new MetadataFormatError(path, `malformed features ${JSON.stringify(v)}`);
  return { epoch: BigInt(r['epoch'] as number), levels: new Map(Object.entries(levels as Record<string, number>)) };
}

function featuresJson(f: FinalizedFeatures): { epoch: number; levels: Record<string, number> } {
  return { epoch: Number(f.epoch), levels: Object.fromEntries(f.levels) };
}

function aclJson(b: AclBinding): Record<string, string> {
  return {
    resourceType: resourceTypeName(b.pattern.resourceType),
    name: b.pattern.name,
    patternType: patternTypeName(b.pattern.patternType),
    principal: b.entry.principal,
    host: b.entry.host,
    operation: operationName(b.entry.operation),
    permissionType: permissionTypeName(b.entry.permissionType),
  };
}

function checkAcl(path: string, a: unknown): AclBinding {
  const r = isStringRecord(a) ? a : {};
  const resourceType = parseResourceType(r['resourceType'] ?? '');
  const patternType = parsePatternType(r['patternType'] ?? '');
  const operation = parseOperation(r['operation'] ?? '');
  const permissionType = parsePermissionType(r['permissionType'] ?? '');
  const { name, principal, host } = r;
  if (
    resourceType === undefined ||
    patternType === undefined ||
    operation === undefined ||
    permissionType === undefined ||
    name === undefined ||
    principal === undefined ||
    host === undefined
  ) {
    throw new MetadataFormatError(path, `malformed ACL ${JSON.stringify(a)}`);
  }
  return { pattern: { resourceType, name, patternType }, entry: { principal, host, operation, permissionType } };
}

export class MetadataFormatError extends Error {
  constructor(path: string, problem: string) {
    super(`${path}: ${problem}`);
    this.name = 'MetadataFormatError';
  }
}

function isStringRecord(v: unknown): v is Record<string, string> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');
}

function isIdList(v: unknown): v is number[] {
  return Array.isArray(v) && v.every((x) => Number.isInteger(x) && (x as number) >= 0);
}

function checkPartition(path: string, topic: string, index: number, p: unknown): StoredPartition {
  const r = (typeof p === 'object' && p !== null ? p : {}) as Record<string, unknown>;
  const valid =
    r['partition'] === index &&
    isIdList(r['replicas']) &&
    r['replicas'].length > 0 &&
    Number.isInteger(r['leader']) &&
    Number.isInteger(r['leaderEpoch']) &&
    Number.isInteger(r['partitionEpoch']) &&
    isIdList(r['isr']);
  if (!valid) throw new MetadataFormatError(path, `malformed partition ${index} of topic ${topic}: ${JSON.stringify(p)}`);
  return {
    partition: index,
    replicas: r['replicas'] as number[],
    leader: r['leader'] as number,
    leaderEpoch: r['leaderEpoch'] as number,
    partitionEpoch: r['partitionEpoch'] as number,
    isr: r['isr'] as number[],
  };
}

/** Version 1's partition count, as registrations: this broker alone, at epoch 0. */
function singleReplicaPartitions(count: number, nodeId: number): StoredPartition[] {
  return Array.from({ length: count }, (_, partition) => ({
    partition,
    replicas: [nodeId],
    leader: nodeId,
    leaderEpoch: 0,
    partitionEpoch: 0,
    isr: [nodeId],
  }));
}

function checkTopic(path: string, t: unknown, version: number, localNodeId: number): StoredTopic {
  if (typeof t !== 'object' || t === null) throw new MetadataFormatError(path, 'a topic entry is not an object');
  const r = t as Record<string, unknown>;
  if (typeof r['name'] !== 'string' || typeof r['topicId'] !== 'string' || !isStringRecord(r['configs'])) {
    throw new MetadataFormatError(path, `malformed topic entry ${JSON.stringify(t)}`);
  }
  const name = r['name'];
  let partitions: StoredPartition[];
  if (version === FORMAT_V1) {
    const count = r['partitions'];
    if (!Number.isInteger(count) || (count as number) <= 0)
      throw new MetadataFormatError(path, `malformed topic entry ${JSON.stringify(t)}`);
    partitions = singleReplicaPartitions(count as number, localNodeId);
  } else {
    const list = r['partitions'];
    if (!Array.isArray(list) || list.length === 0) throw new MetadataFormatError(path, `topic ${name} has no partitions`);
    partitions = list.map((p, i) => checkPartition(path, name, i, p));
  }
  return { name, topicId: r['topicId'], configs: r['configs'], partitions };
}

function checkGroupConfigs(path: string, v: unknown): Record<string, Record<string, string>> {
  if (v === undefined) return {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new MetadataFormatError(path, 'groupConfigs is not an object');
  for (const [group, configs] of Object.entries(v)) {
    if (!isStringRecord(configs)) throw new MetadataFormatError(path, `group ${group} has malformed configs`);
  }
  return v as Record<string, Record<string, string>>;
}

function checkClientEntities(path: string, v: unknown): Record<string, Record<string, string>> {
  if (v === undefined) return {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new MetadataFormatError(path, 'clientEntities is not an object');
  for (const [entity, configs] of Object.entries(v)) {
    if (!isStringRecord(configs)) throw new MetadataFormatError(path, `client entity ${entity} has malformed configs`);
    try {
      parseEntityPath(entity);
    } catch {
      throw new MetadataFormatError(path, `'${entity}' is not a client entity`);
    }
  }
  return v as Record<string, Record<string, string>>;
}

export class MetadataStore {
  readonly path: string;

  constructor(logDir: string) {
    this.path = join(logDir, METADATA_FILE);
  }

  /** `localNodeId` is the broker that was the only replica of everything a version 1 file lists. */
  load(localNodeId: number): StoredMetadata {
    if (!existsSync(this.path)) return EMPTY_METADATA;
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(this.path, 'utf8'));
    } catch (err) {
      throw new MetadataFormatError(this.path, `not JSON (${String(err)})`);
    }
    const doc = parsed as Record<string, unknown>;
    const version = doc['version'];
    if (version !== FORMAT_VERSION && version !== FORMAT_V1)
      throw new MetadataFormatError(this.path, `unsupported version ${String(version)}`);
    if (!Array.isArray(doc['topics'])) throw new MetadataFormatError(this.path, 'topics is not an array');
    const bc = doc['brokerConfigs'] as Record<string, unknown> | undefined;
    if (bc === undefined || !isStringRecord(bc['clusterDefault']) || !isStringRecord(bc['node'])) {
      throw new MetadataFormatError(this.path, 'brokerConfigs is malformed');
    }
    const acls = doc['acls'] ?? [];
    if (!Array.isArray(acls)) throw new MetadataFormatError(this.path, 'acls is not an array');
    return {
      topics: doc['topics'].map((t) => checkTopic(this.path, t, version, localNodeId)),
      brokerConfigs: { clusterDefault: bc['clusterDefault'], node: bc['node'] },
      clientEntities: checkClientEntities(this.path, doc['clientEntities']),
      acls: acls.map((a) => checkAcl(this.path, a)),
      groupConfigs: checkGroupConfigs(this.path, doc['groupConfigs']),
      features: checkFeatures(this.path, doc['features']),
    };
  }

  save(metadata: StoredMetadata): void {
    writeFileAtomically(
      this.path,
      `${JSON.stringify({ version: FORMAT_VERSION, ...metadata, acls: metadata.acls.map(aclJson), features: featuresJson(metadata.features) }, null, 2)}\n`,
    );
  }
}
