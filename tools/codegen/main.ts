/**
 * Generates src/protocol/messages from Apache Kafka's JSON message definitions.
 *
 *   node dist/tools/codegen/main.js [--protocol <kafka-protocol dir>] [--out <dir>]
 *
 * Defaults: ../shared/kafka-protocol beside the repository, output src/protocol/messages; also
 * writes src/protocol/errors.ts from tools/codegen/kafka-errors.json.
 * The generated files are committed; test/unit/protocol/codegen.test.ts regenerates them into
 * a temporary folder and fails on any difference.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emitFile, GENERATED_BANNER } from './emit.js';
import { generateErrors } from './errors.js';
import { loadMessage, type MessageDef } from './schema.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const DEFAULT_PROTOCOL_DIR = resolve(REPO_ROOT, '../shared/kafka-protocol');
export const DEFAULT_OUT_DIR = join(REPO_ROOT, 'src/protocol/messages');

export function kebab(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}

function loadDir(dir: string): MessageDef[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => loadMessage(join(dir, f)));
}

interface ApiPair {
  apiKey: number;
  name: string;
  request: MessageDef;
  response: MessageDef;
}

function relativeSource(m: MessageDef, protocolDir: string): MessageDef {
  return { ...m, sourceFile: m.sourceFile.slice(protocolDir.length + 1) };
}

export function generate(protocolDir: string, outDir: string): string[] {
  const messages = loadDir(join(protocolDir, 'message')).map((m) => relativeSource(m, protocolDir));
  const coordinator = [
    ...loadDir(join(protocolDir, 'group-coordinator')),
    ...loadDir(join(protocolDir, 'transaction-coordinator')),
  ].map((m) => relativeSource(m, protocolDir));

  const files = new Map<string, string>();

  const requests = new Map<number, MessageDef>();
  const responses = new Map<number, MessageDef>();
  for (const m of messages) {
    if (m.kind === 'request' && m.listeners.includes('broker')) requests.set(m.apiKey!, m);
    if (m.kind === 'response') responses.set(m.apiKey!, m);
  }
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

/** Every API whose definition lists the broker among its listeners, by API key. */
export const API_MESSAGES: readonly ApiMessages[] = [`);
  for (const a of apis) {
    lines.push(
      `  { apiKey: ${a.apiKey}, name: '${a.name}', request: ${a.request.name}, response: ${a.response.name}, latestVersionUnstable: ${a.request.latestVersionUnstable}, listeners: ${JSON.stringify(a.request.listeners)} },`,
    );
  }
  lines.push('];\n');
  return lines.join('\n');
}

function parseArgs(argv: string[]): { protocol: string; out: string } {
  let protocol = DEFAULT_PROTOCOL_DIR;
  let out = DEFAULT_OUT_DIR;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--protocol') protocol = resolve(argv[++i] ?? '');
    else if (argv[i] === '--out') out = resolve(argv[++i] ?? '');
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  return { protocol, out };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { protocol, out } = parseArgs(process.argv.slice(2));
  const files = generate(protocol, out);
  generateErrors(REPO_ROOT);
  console.log(`generated ${files.length} files in ${out} and src/protocol/errors.ts`);
}
