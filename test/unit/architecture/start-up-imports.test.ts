/**
 * What `sluice start` loads before it accepts connections: the static imports of the compiled
 * CLI, followed through every module (dynamic `import()` is where loading is deferred). Most of
 * a broker's start-up time and idle memory is module loading (docs/journal/performance.md), so
 * what only some brokers or some requests need stays behind a dynamic import.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST_SRC = fileURLToPath(new URL('../../../src/', import.meta.url));
const PACKAGES = fileURLToPath(new URL('../../../../packages/', import.meta.url));

/** A compiled module's file: a relative specifier, or `@sluice/<package>/<path>` into the package's dist/src. */
function moduleFile(from: string, spec: string): string | null {
  if (spec.startsWith('.')) return resolve(dirname(from), spec);
  const m = /^@sluice\/([^/]+)\/(.+)$/.exec(spec);
  return m === null ? null : join(PACKAGES, m[1]!, 'dist', 'src', m[2]!);
}

/** `@sluice/<package>/<path>` for a package's module, else its path under dist/src. */
function moduleName(file: string): string {
  const m = /\/packages\/([^/]+)\/dist\/src\/(.+)$/.exec(file);
  return m === null ? relative(DIST_SRC, file) : `@sluice/${m[1]}/${m[2]}`;
}

const IMPORT = /^(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]|^import\s+['"]([^'"]+)['"]/gm;

function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => moduleFile(file, m[1] ?? m[2]!)).filter((f): f is string => f !== null);
}

/** The Node built-ins that `modules` (as `loadedAtStart` names them) import statically. */
function builtinsImportedBy(modules: readonly string[]): Set<string> {
  return new Set(
    modules.flatMap((m) =>
      [...readFileSync(fileOf(m), 'utf8').matchAll(IMPORT)].map((x) => x[1] ?? x[2]!).filter((s) => s.startsWith('node:')),
    ),
  );
}

function fileOf(module: string): string {
  return moduleFile(join(DIST_SRC, 'x.js'), module.startsWith('@') ? module : `./${module}`)!;
}

function loadedAtStart(entry: string): string[] {
  const seen = new Set([resolve(DIST_SRC, entry)]);
  const queue = [...seen];
  while (queue.length > 0)
    for (const next of staticImports(queue.shift()!))
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
  return [...seen].map(moduleName);
}

test('sluice start loads no handler, no API codec, no cluster-mode module, no coordinator, no metrics endpoint and no client library until it needs them', () => {
  // The CLI imports the broker dynamically; together they are what a broker loads at start.
  const modules = [...loadedAtStart('cli/sluice.js'), ...loadedAtStart('broker/broker.js')];
  const deferred = modules.filter(
    (m) =>
      (/^handlers\/\d\d-/.test(m) && m !== 'handlers/18-api-versions.js') ||
      /^@sluice\/protocol\/messages\/(index|api\/(?!18-))/.test(m) ||
      /^(zk|controller\/zk|interbroker|@sluice\/client|@sluice\/tune)\//.test(m) ||
      // The command table is the CLI's only module a broker loads: each command is a dynamic import.
      (m.startsWith('@sluice/cli/') && m !== '@sluice/cli/commands/index.js') ||
      m === 'broker/cluster-member.js' ||
      m === 'storage/log/log-manager.js' ||
      /^coordinator\/(runtime|group\/group-coordinator-service|transaction\/transaction-coordinator-service|share\/share-coordinator-service)/.test(
        m,
      ) ||
      m === 'common/metrics/scrape.js' ||
      m === 'broker/metrics-server.js',
  );
  assert.deepEqual(deferred, []);
});

test("nothing loaded at start imports prom-client's index (its Pushgateway and default metrics): instruments use prom-client-core", () => {
  const modules = [
    ...loadedAtStart('cli/sluice.js'),
    ...loadedAtStart('broker/broker.js'),
    ...loadedAtStart('partitions/partition-ops.js'),
  ];
  const whole = modules.filter((m) => /from\s+['"]prom-client['"]/.test(readFileSync(fileOf(m), 'utf8')));
  assert.deepEqual(whole, []);
});

test('a broker without SSL or SASL listeners loads neither node:tls nor the SASL mechanisms at start', () => {
  const modules = [...loadedAtStart('cli/sluice.js'), ...loadedAtStart('broker/broker.js')];
  const deferred = modules.filter((m) =>
    /^(security\/sasl\/(authenticator|mechanism|plain-server|scram-server)|@sluice\/protocol\/sasl\/scram-messages)\.js$/.test(m),
  );
  assert.deepEqual(deferred, []);
  assert.equal(builtinsImportedBy(modules).has('node:tls'), false);
});

test('sluice start loads node:zlib only when it compresses or decompresses, and binds the native addon lazily', () => {
  const modules = [...loadedAtStart('cli/sluice.js'), ...loadedAtStart('broker/broker.js')];
  assert.equal(builtinsImportedBy(modules).has('node:zlib'), false);
  // The addon's wrappers load at start, to install the protocol's accelerators; the addon itself
  // is bound by binding.ts's first call, which no module makes while it loads.
  assert.ok(modules.includes('native/index.js'));
  assert.ok(modules.includes('@sluice/protocol/accelerators.js'));
});

test('the walk follows imports into the packages', () => {
  const modules = loadedAtStart('cli/sluice.js');
  assert.ok(modules.includes('@sluice/cli/commands/index.js'), modules.join(', '));
});

test("every thread of a broker loads the addon's wrappers, which install the protocol's accelerators", () => {
  // A thread without them would run the TypeScript CRC32C and scan: slower, not wrong, so nothing else would notice.
  for (const entry of ['broker/broker.js', 'partitions/partition-ops.js', 'storage/cleaner/clean-worker.js']) {
    assert.ok(loadedAtStart(entry).includes('native/index.js'), entry);
  }
});
