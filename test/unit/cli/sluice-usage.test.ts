/**
 * `sluice --version`, `sluice --help` and a mistyped command, run as a user runs them: the
 * compiled executable in its own process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_COMMANDS } from '@sluice/cli/commands/index.js';
import { REPO_ROOT } from '../../../tools/codegen/main.js';

const SLUICE = join(REPO_ROOT, 'dist', 'src', 'cli', 'sluice.js');

function sluice(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [SLUICE, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test("--version prints the package's version", () => {
  const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  assert.deepEqual(sluice('--version'), { status: 0, stdout: `sluice ${version}\n`, stderr: '' });
});

test('--help lists every command on stdout and exits 0', () => {
  const { status, stdout, stderr } = sluice('--help');
  assert.equal(status, 0);
  assert.equal(stderr, '');
  assert.match(stdout, /sluice cluster up /);
  const words = new Set(stdout.split(/[\s|]+/));
  for (const command of ['start', ...CLIENT_COMMANDS.keys(), '--version']) assert.ok(words.has(command), command);
});

test('an unknown command prints the same usage on stderr and exits 2', () => {
  const help = sluice('--help').stdout;
  assert.deepEqual(sluice('strat'), { status: 2, stdout: '', stderr: help });
});
