/**
 * Every test file belongs to exactly one tier, so that `npm run test:unit`, `test:integration`,
 * `test:compat` and `test:fault` together run what `npm test` runs, each file once. The tiers are
 * read from package.json's `test:*` scripts (the folders they hand to run-tests.js); a test file
 * outside them, or in two of them, would be run by `npm test` alone or twice by the tiers.
 * test/helpers holds the runner and shared helpers, never tests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from '../../../tools/codegen/main.js';

const TEST_ROOTS = [
  join(REPO_ROOT, 'test'),
  ...readdirSync(join(REPO_ROOT, 'packages'))
    .map((name) => join(REPO_ROOT, 'packages', name, 'test'))
    .filter((path) => existsSync(path)),
];
const EXPECTED_TIERS = ['test:compat', 'test:fault', 'test:integration', 'test:unit'];

function testFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return testFiles(path);
      return name.endsWith('.test.ts') ? [relative(REPO_ROOT, path)] : [];
    });
}

/** The source folders (e.g. `test/unit`) each `test:*` script passes to run-tests.js. */
function tierFolders(): Map<string, string[]> {
  const scripts = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const tiers = new Map<string, string[]>();
  for (const [name, command] of Object.entries(scripts)) {
    if (!name.startsWith('test:')) continue;
    const runner = command.split('run-tests.js')[1];
    assert.ok(runner !== undefined, `${name} does not run dist/test/helpers/run-tests.js: ${command}`);
    const folders = runner
      .trim()
      .split(/\s+/)
      .filter((arg) => /^(packages\/[^/]+\/)?dist\/test(\/|$)/.test(arg))
      .map((arg) => arg.replace(/(^|\/)dist\//, '$1').replace(/\/$/, ''));
    tiers.set(name, folders);
  }
  return tiers;
}

function tiersOf(file: string, tiers: Map<string, string[]>): string[] {
  return [...tiers].filter(([, folders]) => folders.some((f) => file.startsWith(`${f}/`))).map(([name]) => name);
}

test('package.json has the four test tiers, each naming its folders', () => {
  const tiers = tierFolders();
  assert.deepEqual([...tiers.keys()].sort(), EXPECTED_TIERS);
  for (const [name, folders] of tiers) assert.ok(folders.length > 0, `${name} names no test folder`);
});

test('every test file under test/ and packages/*/test belongs to exactly one tier', () => {
  const tiers = tierFolders();
  const files = TEST_ROOTS.flatMap(testFiles);
  assert.ok(files.length > 200, `only ${files.length} test files found: the scan lost its way`);
  const misplaced = files
    .map((file) => ({ file, in: tiersOf(file, tiers) }))
    .filter((f) => f.in.length !== 1)
    .map((f) => `${f.file}: ${f.in.length === 0 ? 'in no tier' : `in ${f.in.join(', ')}`}`);
  assert.deepEqual(
    misplaced,
    [],
    `test files outside the tier folders (unit, integration, compat/golden, fault):\n${misplaced.join('\n')}`,
  );
});

test('test/helpers holds no tests', () => {
  assert.deepEqual(testFiles(join(REPO_ROOT, 'test', 'helpers')), []);
});

test('the check catches a test file outside the tiers and one in two', () => {
  const tiers = new Map([
    ['test:unit', ['test/unit']],
    ['test:compat', ['test/compat', 'test/unit/compat']],
  ]);
  assert.deepEqual(tiersOf('test/unit/a.test.ts', tiers), ['test:unit']);
  assert.deepEqual(tiersOf('test/stray.test.ts', tiers), []);
  assert.deepEqual(tiersOf('test/units/a.test.ts', tiers), []);
  assert.deepEqual(tiersOf('test/unit/compat/a.test.ts', tiers), ['test:unit', 'test:compat']);
});
