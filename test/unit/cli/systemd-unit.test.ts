/**
 * config/sluice.service, the systemd unit for a package install: its broker command line matches
 * the broker's Node flags and the package's entry, it restarts a failed broker and stops it with
 * SIGTERM (a controlled shutdown), and systemd's own checker accepts it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BROKER_NODE_FLAGS } from '../../../src/cli/broker-node-flags.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const UNIT = readFileSync(join(root, 'config', 'sluice.service'), 'utf8');
const INSTALLED_ENTRY = '/usr/local/lib/node_modules/sluice/dist/src/cli/sluice.js';

function setting(name: string): string {
  const values = UNIT.split('\n').filter((line) => line.startsWith(`${name}=`));
  assert.equal(values.length, 1, `${name} is set once`);
  return values[0]!.slice(name.length + 1);
}

test('the unit runs the installed broker with its node flags and its config file', () => {
  const [node, ...args] = setting('ExecStart').split(' ');
  assert.equal(node, '/usr/bin/node');
  assert.deepEqual(args.slice(0, BROKER_NODE_FLAGS.length), [...BROKER_NODE_FLAGS]);
  assert.deepEqual(args.slice(BROKER_NODE_FLAGS.length), [
    INSTALLED_ENTRY,
    'start',
    '/etc/sluice/server.properties',
    '--override',
    'log.dirs=/var/lib/sluice',
  ]);
  assert.ok(existsSync(join(root, 'dist/src/cli/sluice.js')), 'the entry the unit names is what the package builds');
});

test('the unit restarts a failed broker, stops it with SIGTERM and raises the file limit', () => {
  assert.equal(setting('Restart'), 'on-failure');
  assert.equal(setting('KillSignal'), 'SIGTERM');
  assert.ok(Number(setting('TimeoutStopSec')) >= 60, 'a controlled shutdown has time to hand leaderships over');
  assert.ok(Number(setting('LimitNOFILE')) >= 100_000);
  assert.equal(setting('StateDirectory'), 'sluice');
});

test('systemd-analyze verify accepts the unit', (t) => {
  const probe = spawnSync('systemd-analyze', ['--version']);
  if (probe.error !== undefined) {
    t.skip('systemd-analyze is not installed (Debian package systemd)');
    return;
  }
  // verify checks that the command exists: point it at this checkout's build and this Node.
  const dir = mkdtempSync(join(tmpdir(), 'sluice-unit-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const local = UNIT.replace('/usr/bin/node ', `${process.execPath} `).replace(INSTALLED_ENTRY, join(root, 'dist/src/cli/sluice.js'));
  writeFileSync(join(dir, 'sluice.service'), local);
  const verify = spawnSync('systemd-analyze', ['verify', join(dir, 'sluice.service')], { encoding: 'utf8' });
  assert.equal(verify.status, 0, `systemd-analyze verify: ${verify.stderr}`);
  const broken = join(dir, 'broken.service');
  writeFileSync(broken, local.replace(`${process.execPath} `, '/nonexistent/node '));
  assert.notEqual(spawnSync('systemd-analyze', ['verify', broken]).status, 0, 'verify does check the command');
});
