/**
 * The repository reads nothing outside itself: a user's clone has no sibling folders (the
 * reference copy of Kafka's definitions beside the development checkout, say), so code, tests,
 * tools, benchmarks and npm scripts that reach for one work here and fail everywhere else.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from '../../../tools/codegen/main.js';

const SCANNED = ['src', 'tools', 'test', 'bench', '.ci'];
const CODE = /\.(ts|js|mjs|cjs|sh|java|py)$|^run$/;
/** Measured output, not code: it may name the paths of the machine it was measured on. */
const SKIPPED_FOLDERS = new Set(['results', 'node_modules']);

/**
 * What a path out of the repository looks like in this code base: the sibling `shared` folder
 * spelled as a relative path or as path segments, the Kafka definitions folder, or the root
 * joined with '..'. Built from parts so that this file does not match itself.
 */
const DOT_DOT = '\\.\\.';
const OUTSIDE: readonly RegExp[] = [
  new RegExp(`${DOT_DOT}/shared\\b`),
  new RegExp(`['"]${DOT_DOT}['"]\\s*,\\s*['"]shared['"]`),
  new RegExp(['kafka', 'protocol/'].join('-')),
  new RegExp(`(REPO_ROOT|repoRoot\\(\\)|\\broot)\\s*,\\s*['"]${DOT_DOT}`),
  new RegExp(`\\$root/${DOT_DOT}/`),
];

function codeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return SKIPPED_FOLDERS.has(name) ? [] : codeFiles(path);
    return CODE.test(name) ? [path] : [];
  });
}

test('no code, test, tool, benchmark or npm script reads a path outside the repository', () => {
  const files = [...SCANNED.flatMap((d) => codeFiles(join(REPO_ROOT, d))), join(REPO_ROOT, 'package.json')];
  assert.ok(files.length > 500, `only ${files.length} files scanned: the scan lost its way`);
  const found: string[] = [];
  for (const file of files) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (OUTSIDE.some((re) => re.test(line))) found.push(`${relative(REPO_ROOT, file)}:${i + 1}: ${line.trim()}`);
      });
  }
  assert.deepEqual(found, [], `paths outside the repository:\n${found.join('\n')}`);
});

test('the scan catches each way of leaving the repository', () => {
  const dotDot = '..';
  const samples = [
    `resolve(REPO_ROOT, '${dotDot}/shared/x')`,
    `join(root, '${dotDot}', 'shared', 'x')`,
    `const dir = 'kafka-${'protocol'}/message'`,
    `cat "$root/${dotDot}/elsewhere"`,
  ];
  for (const s of samples)
    assert.ok(
      OUTSIDE.some((re) => re.test(s)),
      `not caught: ${s}`,
    );
  assert.ok(!OUTSIDE.some((re) => re.test("join(REPO_ROOT, 'src', 'protocol')")), 'a path inside the repository is not flagged');
});
