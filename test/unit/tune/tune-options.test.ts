/** `sluice tune`'s command line: defaults, `--repeat`, and usage errors that say what is wrong. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '@sluice/cli/commands/command-support.js';
import { parseTuneOptions } from '@sluice/cli/commands/tune.js';

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

test('--client, --producer-config, --consumer-config, the knee and end-to-end options', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-tune-options-'));
  try {
    const file = join(dir, 'producer.properties');
    writeFileSync(file, '# mine\nacks=1\nenable.idempotence=false\n');
    const o = parseTuneOptions([
      ...BOOTSTRAP,
      '--client',
      'librdkafka',
      '--producer-config',
      file,
      '--throughput-goal',
      '5000',
      '--probe-seconds',
      '0.5',
      '--knee-steps',
      '2',
      '--no-end-to-end',
    ]);
    assert.equal(o.client, 'librdkafka');
    assert.deepEqual(Object.fromEntries(o.settings.producerConfig), { acks: '1', 'enable.idempotence': 'false' });
    assert.deepEqual([o.throughputGoal, o.settings.probeSeconds, o.settings.kneeSteps, o.settings.endToEnd], [5000, 0.5, 2, false]);
    const defaults = parseTuneOptions(BOOTSTRAP);
    assert.deepEqual(
      [
        defaults.client,
        defaults.throughputGoal,
        defaults.settings.probeSeconds,
        defaults.settings.kneeSteps,
        defaults.settings.endToEnd,
        defaults.settings.producerConfig.size,
        defaults.settings.consumerConfig.size,
      ],
      [null, null, 1, 3, true, 0, 0],
    );
    const consumerFile = join(dir, 'consumer.properties');
    writeFileSync(consumerFile, 'fetch.min.bytes=1024\n');
    assert.deepEqual(Object.fromEntries(parseTuneOptions([...BOOTSTRAP, '--consumer-config', consumerFile]).settings.consumerConfig), {
      'fetch.min.bytes': '1024',
    });
    assert.throws(
      () => parseTuneOptions([...BOOTSTRAP, '--consumer-config', consumerFile, '--no-end-to-end']),
      (e: unknown) => e instanceof UsageError && /--consumer-config is for the end-to-end consumer/.test(e.message),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.throws(
    () => parseTuneOptions([...BOOTSTRAP, '--client', 'kafkajs']),
    /--client must be one of java, librdkafka, sluice, not 'kafkajs'/,
  );
  assert.throws(
    () => parseTuneOptions([...BOOTSTRAP, '--producer-config', '/nonexistent/p.properties']),
    (e: unknown) => e instanceof UsageError && /--producer-config \/nonexistent/.test(e.message),
  );
  assert.throws(
    () => parseTuneOptions([...BOOTSTRAP, '--consumer-config', '/nonexistent/c.properties']),
    (e: unknown) => e instanceof UsageError && /--consumer-config \/nonexistent/.test(e.message),
  );
  assert.throws(() => parseTuneOptions([...BOOTSTRAP, '--knee-steps', '9']), /--knee-steps must be an integer in \[0, 8\]/);
  assert.throws(
    () => parseTuneOptions([...BOOTSTRAP, '--record-size', '7']),
    /--record-size must be an integer in \[8,/,
    'a record carries its 8-byte send time',
  );
});
