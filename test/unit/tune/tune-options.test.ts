/** `sluice tune`'s command line: defaults, `--repeat`, and usage errors that say what is wrong. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError } from '../../../src/cli/commands/command-support.js';
import { parseTuneOptions } from '../../../src/cli/commands/tune.js';

const BOOTSTRAP = ['--bootstrap-server', '127.0.0.1:9092'];

test('defaults: one run per cell, the default grid', () => {
  const { settings, p99BoundMs, out } = parseTuneOptions(BOOTSTRAP);
  assert.equal(settings.repeat, 1);
  assert.deepEqual(settings.batchSizes, [16384, 65536, 262144, 1048576]);
  assert.deepEqual(settings.lingerMs, [0, 1, 5, 10, 25, 50]);
  assert.equal(p99BoundMs, null);
  assert.equal(out, null);
});

test('--repeat takes a positive integer, in both option forms', () => {
  assert.equal(parseTuneOptions([...BOOTSTRAP, '--repeat', '3']).settings.repeat, 3);
  assert.equal(parseTuneOptions([...BOOTSTRAP, '--repeat=5']).settings.repeat, 5);
  assert.equal(parseTuneOptions([...BOOTSTRAP, '--repeat', '100']).settings.repeat, 100);
});

test('--repeat refuses anything but a positive integer, naming the option and the value', () => {
  for (const bad of ['0', '-1', '1.5', 'three', '', '101', '2x']) {
    assert.throws(
      () => parseTuneOptions([...BOOTSTRAP, `--repeat=${bad}`]),
      (e: unknown) => e instanceof UsageError && e.message === `--repeat must be an integer in [1, 100], not '${bad}'`,
      bad,
    );
  }
  assert.throws(() => parseTuneOptions([...BOOTSTRAP, '--repeat']), UsageError, 'a missing value');
});
