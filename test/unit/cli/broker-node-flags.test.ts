import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BROKER_NODE_FLAGS } from '../../../src/cli/broker-node-flags.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

test('npm start and the sluice launcher run the broker with the broker node flags', () => {
  const start = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['start']!;
  assert.equal(start, `node ${BROKER_NODE_FLAGS.join(' ')} dist/src/cli/sluice.js start`);
  const shebang = readFileSync(join(root, 'dist/src/cli/sluice.js'), 'utf8').split('\n')[0];
  assert.equal(shebang, `#!/usr/bin/env -S node ${BROKER_NODE_FLAGS.join(' ')}`);
});

test('this Node accepts every broker node flag on its command line', () => {
  const out = execFileSync(process.execPath, [...BROKER_NODE_FLAGS, '-e', 'process.stdout.write(JSON.stringify(process.execArgv))'], {
    encoding: 'utf8',
  });
  assert.deepEqual((JSON.parse(out) as string[]).slice(0, BROKER_NODE_FLAGS.length), BROKER_NODE_FLAGS);
});
