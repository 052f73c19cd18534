/**
 * Persistence of the cluster metadata in `<first log dir>/__cluster_metadata.json`, replaced
 * atomically on every change (see `atomic-file.ts`). Format, version 1:
 *
 *   {
 *     "version": 1,
 *     "topics": [{ "name": "orders", "topicId": "<22-char base64url>", "partitions": 3,
 *                  "configs": { "retention.ms": "3600000" }, "internal": false }],
 *     "brokerConfigs": { "clusterDefault": { "<key>": "<value>" }, "node": { "<key>": "<value>" } }
 *   }
 *
 * `configs` holds only a topic's overrides; `brokerConfigs` the dynamic broker configs set by
 * AlterConfigs (cluster-wide default resource "" and this node's resource).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomically } from '../common/atomic-file.js';

export const METADATA_FILE = '__cluster_metadata.json';
const FORMAT_VERSION = 1;

export interface StoredTopic {
  readonly name: string;
  readonly topicId: string;
  readonly partitions: number;
  readonly configs: Readonly<Record<string, string>>;
  readonly internal: boolean;
}

export interface StoredMetadata {
  readonly topics: readonly StoredTopic[];
  readonly brokerConfigs: {
    readonly clusterDefault: Readonly<Record<string, string>>;
    readonly node: Readonly<Record<string, string>>;
  };
}

export const EMPTY_METADATA: StoredMetadata = { topics: [], brokerConfigs: { clusterDefault: {}, node: {} } };

export class MetadataFormatError extends Error {
  constructor(path: string, problem: string) {
    super(`${path}: ${problem}`);
    this.name = 'MetadataFormatError';
  }
}

function isStringRecord(v: unknown): v is Record<string, string> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');
}

function checkTopic(path: string, t: unknown): StoredTopic {
  if (typeof t !== 'object' || t === null) throw new MetadataFormatError(path, 'a topic entry is not an object');
  const r = t as Record<string, unknown>;
  const valid =
    typeof r['name'] === 'string' &&
    typeof r['topicId'] === 'string' &&
    Number.isInteger(r['partitions']) &&
    (r['partitions'] as number) > 0 &&
    isStringRecord(r['configs']) &&
    typeof r['internal'] === 'boolean';
  if (!valid) throw new MetadataFormatError(path, `malformed topic entry ${JSON.stringify(t)}`);
  return {
    name: r['name'] as string,
    topicId: r['topicId'] as string,
    partitions: r['partitions'] as number,
    configs: r['configs'] as Record<string, string>,
    internal: r['internal'] as boolean,
  };
}

export class MetadataStore {
  readonly path: string;

  constructor(logDir: string) {
    this.path = join(logDir, METADATA_FILE);
  }

  load(): StoredMetadata {
    if (!existsSync(this.path)) return EMPTY_METADATA;
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(this.path, 'utf8'));
    } catch (err) {
      throw new MetadataFormatError(this.path, `not JSON (${String(err)})`);
    }
    const doc = parsed as Record<string, unknown>;
    if (doc['version'] !== FORMAT_VERSION) throw new MetadataFormatError(this.path, `unsupported version ${String(doc['version'])}`);
    if (!Array.isArray(doc['topics'])) throw new MetadataFormatError(this.path, 'topics is not an array');
    const bc = doc['brokerConfigs'] as Record<string, unknown> | undefined;
    if (bc === undefined || !isStringRecord(bc['clusterDefault']) || !isStringRecord(bc['node'])) {
      throw new MetadataFormatError(this.path, 'brokerConfigs is malformed');
    }
    return {
      topics: doc['topics'].map((t) => checkTopic(this.path, t)),
      brokerConfigs: { clusterDefault: bc['clusterDefault'], node: bc['node'] },
    };
  }

  save(metadata: StoredMetadata): void {
    writeFileAtomically(this.path, `${JSON.stringify({ version: FORMAT_VERSION, ...metadata }, null, 2)}\n`);
  }
}
