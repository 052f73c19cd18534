/**
 * The dependency direction of docs/ARCHITECTURE.md, checked on every import. Between products it
 * is the packages' dependencies (each package.json under packages/): a package imports only itself and the
 * packages it declares, never the broker, and none of them imports another's files by path. Inside
 * the broker (src/), protocol-free storage, handlers that never see storage and one composition
 * root are the table below.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { REPO_ROOT } from '../../../tools/codegen/main.js';

const SRC = join(REPO_ROOT, 'src');
const PACKAGES = join(REPO_ROOT, 'packages');

/** The workspace packages and the broker (the root package), each with the folders its sources are in. */
interface Product {
  readonly name: string;
  readonly root: string;
  readonly sources: string;
  readonly dependencies: readonly string[];
}

function product(root: string, sources: string): Product {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; dependencies?: Record<string, string> };
  return { name: manifest.name, root, sources, dependencies: Object.keys(manifest.dependencies ?? {}) };
}

const PRODUCTS: readonly Product[] = [
  product(REPO_ROOT, SRC),
  ...readdirSync(PACKAGES)
    .sort()
    .map((name) => product(join(PACKAGES, name), join(PACKAGES, name, 'src'))),
];

/**
 * For each layer of the broker's src/ (a top-level folder, or a sub-folder where one folder holds
 * two layers), the layers and packages it may import from (besides itself).
 */
const ALLOWED: Record<string, readonly string[]> = {
  common: ['@sluice/protocol'],
  native: ['common', '@sluice/protocol'],
  ipc: ['common', '@sluice/protocol'],
  storage: ['common', 'native', '@sluice/protocol'],
  'worker-pool': ['common', 'ipc', '@sluice/protocol'],
  coordinator: ['common', 'native', '@sluice/protocol'],
  security: ['common', '@sluice/protocol'],
  metadata: ['common', 'security', '@sluice/protocol'],
  zk: ['common', 'security', '@sluice/protocol'],
  'controller/local': ['common', 'metadata', 'security', '@sluice/protocol'],
  'controller/zk': ['common', 'security', 'metadata', 'zk', '@sluice/protocol', '@sluice/client'],
  interbroker: ['common', 'metadata', 'coordinator', '@sluice/protocol', '@sluice/client'],
  replication: ['common', 'storage', 'metadata', 'interbroker', '@sluice/protocol', '@sluice/client'],
  partitions: ['common', 'storage', 'worker-pool', 'metadata', 'replication', '@sluice/protocol'],
  quota: ['common', '@sluice/protocol'],
  handlers: ['common', 'metadata', 'partitions', 'coordinator', 'security', 'quota', '@sluice/protocol'],
  network: ['common', 'native', '@sluice/protocol'],
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

/** Every module specifier a file imports or re-exports, statically or with import(). */
function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map(
    (m) => m[1] ?? m[2]!,
  );
}

/** `@sluice/x` for an import of one of our packages, else undefined. */
function packageOf(spec: string): string | undefined {
  return /^(@sluice\/[^/]+)/.exec(spec)?.[1];
}

/** The longest layer name that is a folder prefix of `file`; '.' for a file directly in src/. */
function layerOf(file: string): string {
  const rel = relative(SRC, file);
  if (!rel.includes('/')) return '.';
  const layers = Object.keys(ALLOWED).filter((layer) => rel.startsWith(`${layer}/`));
  return layers.sort((a, b) => b.length - a.length)[0] ?? rel.slice(0, rel.indexOf('/'));
}

function mayImportLine(path: string): string | undefined {
  return /^May import: (.*)\.$/m.exec(readFileSync(path, 'utf8'))?.[1];
}

test('each package imports only itself and the packages it declares, and no file outside its src/', () => {
  const violations: string[] = [];
  for (const p of PRODUCTS) {
    for (const file of sourceFiles(p.sources)) {
      for (const spec of specifiers(file)) {
        const pkg = packageOf(spec);
        if (pkg !== undefined) {
          if (pkg === p.name || !p.dependencies.includes(pkg))
            violations.push(`${relative(REPO_ROOT, file)} imports ${spec}, not a dependency of ${p.name}`);
        } else if (spec.startsWith('.') && !resolve(dirname(file), spec).startsWith(p.sources + '/')) {
          violations.push(`${relative(REPO_ROOT, file)} imports ${spec}, outside ${relative(REPO_ROOT, p.sources)}/`);
        }
      }
    }
  }
  assert.deepEqual(violations, []);
});

test('the packages depend on each other in one direction, and none on the broker', () => {
  const byName = new Map(PRODUCTS.map((p) => [p.name, p]));
  const broker = PRODUCTS[0]!.name;
  const visiting = new Set<string>();
  const cycle = (name: string): string | null => {
    if (visiting.has(name)) return name;
    visiting.add(name);
    for (const dep of byName.get(name)?.dependencies ?? []) {
      if (!byName.has(dep)) continue;
      const found = cycle(dep);
      if (found !== null) return `${name} -> ${found}`;
    }
    visiting.delete(name);
    return null;
  };
  for (const p of PRODUCTS) {
    assert.equal(cycle(p.name), null);
    if (p.name !== broker) assert.ok(!p.dependencies.includes(broker), `${p.name} depends on the broker`);
  }
});

test("every package's README says what it may import, as its package.json does", () => {
  for (const p of PRODUCTS.slice(1)) {
    const ours = p.dependencies.filter((d) => d.startsWith('@sluice/'));
    const expected = ours.length === 0 ? 'none of our packages' : ours.join(', ');
    assert.equal(mayImportLine(join(p.root, 'README.md')), expected, `${relative(REPO_ROOT, p.root)}/README.md`);
  }
});

test("every src/ folder's README says what it may import, as the table does", () => {
  for (const [layer, allowed] of Object.entries(ALLOWED)) {
    if (layer === '.') continue;
    const path = join(SRC, layer, 'README.md');
    assert.ok(existsSync(path), `src/${layer} has no README.md`);
    const expected = allowed.includes('*') ? 'anything' : allowed.length === 0 ? 'nothing else' : allowed.join(', ');
    assert.equal(mayImportLine(path), expected, `src/${layer}/README.md`);
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
    if (allowed.includes('*')) continue;
    for (const spec of specifiers(file)) {
      const pkg = packageOf(spec);
      const to = pkg ?? (spec.startsWith('.') ? layerOf(resolve(dirname(file), spec).replace(/\.js$/, '.ts')) : from);
      if (to !== from && !allowed.includes(to)) violations.push(`${relative(REPO_ROOT, file)} (${from}) imports ${spec} (${to})`);
    }
  }
  assert.deepEqual(violations, []);
});

test("docs/ARCHITECTURE.md's file map lists exactly the layers of the table and the packages", () => {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
  const start = doc.search(/^## File map$/m);
  assert.ok(start >= 0, 'docs/ARCHITECTURE.md has no "## File map" section');
  const rest = doc.slice(start).split('\n').slice(1);
  const end = rest.findIndex((line) => line.startsWith('## '));
  const section = end < 0 ? rest : rest.slice(0, end);
  const listed = section
    .filter((line) => line.startsWith('|'))
    .map((line) => /^\|\s*`((?:src|packages)\/.+?)\/`\s*\|/.exec(line)?.[1])
    .filter((path): path is string => path !== undefined);
  const expected = [
    ...Object.keys(ALLOWED)
      .filter((layer) => layer !== '.')
      .map((layer) => `src/${layer}`),
    ...PRODUCTS.slice(1).map((p) => relative(REPO_ROOT, p.root)),
  ];
  assert.deepEqual([...listed].sort(), [...expected].sort());
});
