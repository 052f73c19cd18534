/**
 * What `sluice start` loads before it accepts connections: the static imports of the compiled
 * CLI, followed through every module (dynamic `import()` is where loading is deferred). Most of
 * a broker's start-up time and idle memory is module loading (docs/journal/performance.md), so
 * what only some brokers or some requests need stays behind a dynamic import.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST_SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

const IMPORT = /^(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]|^import\s+['"]([^'"]+)['"]/gm;

function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)]
    .map((m) => m[1] ?? m[2]!)
    .filter((s) => s.startsWith('.'))
    .map((s) => resolve(dirname(file), s));
}

/** The Node built-ins that `modules` (paths under dist/src) import statically. */
function builtinsImportedBy(modules: readonly string[]): Set<string> {
  return new Set(
    modules.flatMap((m) =>
      [...readFileSync(resolve(DIST_SRC, m), 'utf8').matchAll(IMPORT)].map((x) => x[1] ?? x[2]!).filter((s) => s.startsWith('node:')),
    ),
  );
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
  return [...seen].map((f) => relative(DIST_SRC, f));
}

test('sluice start loads no handler, no API codec, no cluster-mode module, no coordinator, no metrics endpoint and no client library until it needs them', () => {
  // The CLI imports the broker dynamically; together they are what a broker loads at start.
  const modules = [...loadedAtStart('cli/sluice.js'), ...loadedAtStart('broker/broker.js')];
  const deferred = modules.filter(
    (m) =>
      (/^handlers\/\d\d-/.test(m) && m !== 'handlers/18-api-versions.js') ||
      /^protocol\/messages\/(index|api\/(?!18-))/.test(m) ||
      /^(zk|controller\/zk|client|interbroker)\//.test(m) ||
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
  const whole = modules.filter((m) => /from\s+['"]prom-client['"]/.test(readFileSync(resolve(DIST_SRC, m), 'utf8')));
  assert.deepEqual(whole, []);
});

test('a broker without SSL or SASL listeners loads neither node:tls nor the SASL mechanisms at start', () => {
  const modules = [...loadedAtStart('cli/sluice.js'), ...loadedAtStart('broker/broker.js')];
  const deferred = modules.filter((m) =>
    /^security\/sasl\/(authenticator|mechanism|plain-server|scram-server|scram-messages)\.js$/.test(m),
  );
  assert.deepEqual(deferred, []);
  assert.equal(builtinsImportedBy(modules).has('node:tls'), false);
});

test('sluice start loads the compression codecs (node:zlib) only when it decompresses, and binds the native addon lazily', () => {
  const modules = [...loadedAtStart('cli/sluice.js'), ...loadedAtStart('broker/broker.js')];
  assert.deepEqual(
    modules.filter((m) => m === 'native/index.js' || m === 'native/compression.js'),
    [],
  );
  assert.equal(builtinsImportedBy(modules).has('node:zlib'), false);
});
