/**
 * The dependency direction of docs/ARCHITECTURE.md, checked on every import in src/: protocol
 * knows nothing of storage or sockets, storage never sees the network or handlers, handlers
 * never see storage, and only the broker (composition root) and the CLI import everything.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { REPO_ROOT } from '../../../tools/codegen/main.js';

const SRC = join(REPO_ROOT, 'src');

/**
 * For each layer of src/ (a top-level folder, or a sub-folder where one folder holds two layers),
 * the layers it may import from (besides itself).
 */
const ALLOWED: Record<string, readonly string[]> = {
  common: [],
  native: ['common'],
  protocol: ['common', 'native'],
  ipc: ['common', 'protocol'],
  storage: ['common', 'native', 'protocol'],
  'worker-pool': ['common', 'protocol', 'ipc'],
  coordinator: ['common', 'native', 'protocol'],
  security: ['common', 'protocol'],
  metadata: ['common', 'protocol', 'security'],
  zk: ['common', 'security'],
  'controller/local': ['common', 'protocol', 'metadata', 'security'],
  'controller/zk': ['common', 'protocol', 'security', 'metadata', 'zk', 'client'],
  interbroker: ['common', 'protocol', 'client', 'metadata', 'coordinator'],
  replication: ['common', 'protocol', 'storage', 'metadata', 'client', 'interbroker'],
  partitions: ['common', 'protocol', 'storage', 'worker-pool', 'metadata', 'replication'],
  quota: ['common', 'protocol'],
  handlers: ['common', 'protocol', 'metadata', 'partitions', 'coordinator', 'security', 'quota'],
  network: ['common', 'native', 'protocol'],
  client: ['common', 'native', 'protocol', 'security'],
  tune: ['common', 'client'],
  broker: ['*'],
  cli: ['*'],
  '.': ['*'],
};

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** The longest layer name that is a folder prefix of `file`; '.' for a file directly in src/. */
function layerOf(file: string): string {
  const rel = relative(SRC, file);
  if (!rel.includes('/')) return '.';
  const layers = Object.keys(ALLOWED).filter((layer) => rel.startsWith(`${layer}/`));
  return layers.sort((a, b) => b.length - a.length)[0] ?? rel.slice(0, rel.indexOf('/'));
}

test("every src/ folder's README says what it may import, as the table does", () => {
  for (const [layer, allowed] of Object.entries(ALLOWED)) {
    if (layer === '.') continue;
    const path = join(SRC, layer, 'README.md');
    assert.ok(existsSync(path), `src/${layer} has no README.md`);
    const line = /^May import: (.*)\.$/m.exec(readFileSync(path, 'utf8'))?.[1];
    const expected = allowed.includes('*') ? 'anything' : allowed.length === 0 ? 'nothing else in src/' : allowed.join(', ');
    assert.equal(line, expected, `src/${layer}/README.md`);
  }
});

test('no two layers may import each other', () => {
  const twoWay = Object.entries(ALLOWED).flatMap(([from, tos]) =>
    tos.filter((to) => to !== '*' && ALLOWED[to]?.includes(from)).map((to) => `${from} <-> ${to}`),
  );
  assert.deepEqual(twoWay, []);
});

test('imports in src/ follow the documented dependency direction', () => {
  const violations: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = layerOf(file);
    const allowed = ALLOWED[from];
    assert.ok(allowed, `src/${from} is not in the layering table: add it with its allowed dependencies`);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g)) {
      const spec = m[1] ?? m[2]!;
      const target = resolve(dirname(file), spec);
      if (!target.startsWith(SRC)) {
        violations.push(`${relative(REPO_ROOT, file)} imports ${spec}, outside src/`);
        continue;
      }
      const to = layerOf(target.replace(/\.js$/, '.ts'));
      if (to !== from && !allowed.includes('*') && !allowed.includes(to)) {
        violations.push(`${relative(REPO_ROOT, file)} (${from}) imports ${spec} (${to})`);
      }
    }
  }
  assert.deepEqual(violations, []);
});

test("docs/ARCHITECTURE.md's file map lists exactly the layers of the table", () => {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
  const start = doc.search(/^## File map$/m);
  assert.ok(start >= 0, 'docs/ARCHITECTURE.md has no "## File map" section');
  const rest = doc.slice(start).split('\n').slice(1);
  const end = rest.findIndex((line) => line.startsWith('## '));
  const section = end < 0 ? rest : rest.slice(0, end);
  const listed = section
    .filter((line) => line.startsWith('|'))
    .map((line) => /^\|\s*`src\/(.+?)\/`\s*\|/.exec(line)?.[1])
    .filter((layer): layer is string => layer !== undefined);
  const layers = Object.keys(ALLOWED).filter((layer) => layer !== '.');
  assert.deepEqual([...listed].sort(), [...layers].sort());
});
