/**
 * Generates packages/protocol/src/messages from Apache Kafka's JSON message definitions, read from the jars
 * of the pinned release (tools/kafka/kafka-version), fetched from Maven Central on first use; the
 * ZooKeeper-era inter-broker APIs, which Kafka 4 removed, from the kafka-clients jar of
 * tools/kafka/zookeeper-era-version (see kafka-definitions.ts).
 *
 *   npm run codegen [-- --kafka-version <version>] [--out <dir>]
 *
 * Also writes packages/protocol/src/errors.ts from tools/codegen/kafka-errors.json. Given a version other
 * than the pinned one, it regenerates from that release and pins it: that is how the project
 * moves to a new Kafka. The generated files are committed;
 * test/unit/protocol/codegen-regenerate.test.ts regenerates them into a temporary folder and fails
 * on any difference.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureKafkaLibs, KAFKA_VERSION, KAFKA_VERSION_FILE, ZOOKEEPER_ERA_VERSION } from '../kafka/kafka-release.js';
import { emitFile, firstFlexibleVersion, GENERATED_BANNER, range } from './emit.js';
import { generateErrors } from './errors.js';
import { loadKafkaDefinitions, type KafkaDefinitions } from './kafka-definitions.js';
import type { MessageDef } from './schema.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const DEFAULT_OUT_DIR = join(REPO_ROOT, 'packages/protocol/src/messages');

export function kebab(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}

interface ApiPair {
  apiKey: number;
  name: string;
  request: MessageDef;
  response: MessageDef;
}

/**
 * Requests Kafka 4.4 lists for its KRaft controller only, which a ZooKeeper-era controller also
 * serves to brokers: AlterPartition (a leader's ISR change).
 */
const BROKER_TO_CONTROLLER_API_KEYS: readonly number[] = [56];

export function generate(definitions: KafkaDefinitions, outDir: string): string[] {
  const messages = definitions.messages;
  const coordinator = definitions.coordinatorRecords;

  const files = new Map<string, string>();

  const requests = new Map<number, MessageDef>();
  const responses = new Map<number, MessageDef>();
  for (const m of messages) {
    if (m.kind === 'request' && (m.listeners.includes('broker') || BROKER_TO_CONTROLLER_API_KEYS.includes(m.apiKey!)))
      requests.set(m.apiKey!, m);
    if (m.kind === 'response') responses.set(m.apiKey!, m);
  }
  // Their listeners name the ZooKeeper-era broker and controller, not `broker`: taken all the same.
  for (const m of definitions.zookeeperEraApis) (m.kind === 'request' ? requests : responses).set(m.apiKey!, m);
  const apis: ApiPair[] = [...requests.values()]
    .sort((a, b) => a.apiKey! - b.apiKey!)
    .map((request) => {
      const response = responses.get(request.apiKey!);
      if (!response) throw new Error(`no response for ${request.name}`);
      return { apiKey: request.apiKey!, name: request.name.replace(/Request$/, ''), request, response };
    });

  const apiFile = (a: ApiPair): string => `${String(a.apiKey).padStart(2, '0')}-${kebab(a.name)}`;
  for (const a of apis) files.set(`api/${apiFile(a)}.ts`, emitFile([a.request, a.response], '../../primitives'));

  const headers = messages.filter((m) => m.kind === 'header');
  files.set('headers.ts', emitFile(headers, '../primitives'));

  for (const m of messages.filter((m) => m.kind === 'data')) {
    files.set(`schemas/${kebab(m.name)}.ts`, emitFile([m], '../../primitives'));
  }

  const pairs = new Map<string, MessageDef[]>();
  for (const m of coordinator) {
    const base = m.name.replace(/(Key|Value)$/, '');
    pairs.set(base, [...(pairs.get(base) ?? []), m]);
  }
  for (const [base, ms] of pairs) {
    ms.sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'coordinator-key' ? -1 : 1));
    files.set(`coordinator/${kebab(base)}.ts`, emitFile(ms, '../../primitives'));
  }

  files.set('api-table.ts', emitApiTable(apis));
  files.set('index.ts', emitIndex(apis, apiFile, [...files.keys()]));

  rmSync(outDir, { recursive: true, force: true });
  for (const [rel, text] of files) {
    const path = join(outDir, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  return [...files.keys()].sort();
}

function emitIndex(apis: ApiPair[], apiFile: (a: ApiPair) => string, files: string[]): string {
  const lines = [GENERATED_BANNER, ''];
  lines.push(`import type { MessageCodec } from '../primitives/codec-support.js';`);
  for (const a of apis) {
    lines.push(`import { ${a.request.name}, ${a.response.name} } from './api/${apiFile(a)}.js';`);
  }
  lines.push('');
  for (const f of files.sort()) lines.push(`export * from './${f.replace(/\.ts$/, '.js')}';`);
  lines.push(`
/** A Kafka API as its definitions describe it: the request and response codecs for every version. */
export interface ApiMessages {
  readonly apiKey: number;
  readonly name: string;
  readonly request: MessageCodec<unknown, never>;
  readonly response: MessageCodec<unknown, never>;
  /** The newest version is still in development upstream and must not be advertised. */
  readonly latestVersionUnstable: boolean;
  readonly listeners: readonly string[];
}

/**
 * Every API whose definition lists the broker among its listeners, and the ZooKeeper-era
 * inter-broker APIs (listeners zkBroker, controller), by API key. Being here makes an API
 * encodable and decodable, not advertised: ApiVersions lists only APIs with a handler.
 */
export const API_MESSAGES: readonly ApiMessages[] = [`);
  for (const a of apis) {
    lines.push(
      `  { apiKey: ${a.apiKey}, name: '${a.name}', request: ${a.request.name}, response: ${a.response.name}, latestVersionUnstable: ${a.request.latestVersionUnstable}, listeners: ${JSON.stringify(a.request.listeners)} },`,
    );
  }
  lines.push('];\n');
  return lines.join('\n');
}

/**
 * What the broker needs of every API before any of its requests arrives (the header versions it
 * frames with, the version ranges ApiVersions lists), without the codecs: loading those is most
 * of a broker's start-up, and a handler loads its own on first use.
 */
function emitApiTable(apis: ApiPair[]): string {
  const lines = [GENERATED_BANNER, ''];
  lines.push(`import type { VersionRange } from '../primitives/codec-support.js';

/** One API's versions as its definitions give them; the codecs' \`validVersions\` and \`firstFlexibleVersion\` agree. */
export interface ApiTableEntry {
  readonly apiKey: number;
  readonly name: string;
  readonly requestVersions: VersionRange;
  readonly firstFlexibleRequest: number | null;
  readonly firstFlexibleResponse: number | null;
  /** The newest version is still in development upstream and must not be advertised. */
  readonly latestVersionUnstable: boolean;
}

/** The APIs of \`API_MESSAGES\`, by API key, codec-free. */
export const API_TABLE: readonly ApiTableEntry[] = [`);
  for (const a of apis) {
    lines.push(
      `  { apiKey: ${a.apiKey}, name: '${a.name}', requestVersions: ${range(a.request.validVersions)}, firstFlexibleRequest: ${firstFlexibleVersion(a.request)}, firstFlexibleResponse: ${firstFlexibleVersion(a.response)}, latestVersionUnstable: ${a.request.latestVersionUnstable} },`,
    );
  }
  lines.push('];\n');
  return lines.join('\n');
}

function parseArgs(argv: string[]): { version: string; out: string } {
  let version = KAFKA_VERSION;
  let out = DEFAULT_OUT_DIR;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--kafka-version') version = argv[++i] ?? '';
    else if (argv[i] === '--out') out = resolve(argv[++i] ?? '');
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  if (!/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`--kafka-version wants a release such as 4.4.0, not '${version}'`);
  return { version, out };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { version, out } = parseArgs(process.argv.slice(2));
  await ensureKafkaLibs(version);
  const files = generate(loadKafkaDefinitions(version), out);
  generateErrors(REPO_ROOT);
  if (version !== KAFKA_VERSION) writeFileSync(KAFKA_VERSION_FILE, `${version}\n`);
  console.log(
    `generated ${files.length} files in ${out} and packages/protocol/src/errors.ts from Apache Kafka ${version} (ZooKeeper-era APIs from ${ZOOKEEPER_ERA_VERSION})`,
  );
}
