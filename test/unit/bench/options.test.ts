import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseOptions } from '../../../bench/e2e/options.js';

test('the growth workload runs by default: 20 GB, 3 GB with --quick, any whole number ≥ 3 with --growth-gb', () => {
  assert.ok(parseOptions([]).workloads.has('growth'));
  assert.equal(parseOptions([]).growthGB, 20);
  assert.equal(parseOptions(['--quick']).growthGB, 3);
  const only = parseOptions(['--workloads', 'growth', '--growth-gb', '5']);
  assert.deepEqual([...only.workloads], ['growth']);
  assert.equal(only.growthGB, 5);
});

test('--growth-gb refuses fractions and fewer than 3 GB', () => {
  assert.throws(() => parseOptions(['--growth-gb', '2.5']), /whole number ≥ 3/);
  assert.throws(() => parseOptions(['--growth-gb', '2']), /whole number ≥ 3/);
});

test('--pin defaults: broker on CPU 0, generator on CPU 1, every codec, ~50 MB/s latency; the profile (an unpinned run) is off', () => {
  const o = parseOptions(['--pin']);
  assert.equal(o.pin, true);
  assert.equal(o.pinBrokerCpus, '0');
  assert.equal(o.pinGeneratorCpus, '1');
  assert.deepEqual(o.pinCompressions, ['lz4', 'gzip', 'snappy', 'zstd']);
  assert.equal(Math.round((o.pinLatencyRatePerSecond * 1024) / 1e6), 50);
  assert.equal(o.profile, false);
  assert.equal(parseOptions([]).pin, false);
});

test('--pin settings are taken as given, and an unknown codec is refused', () => {
  const o = parseOptions([
    '--pin',
    '--pin-broker-cpus',
    '2-3',
    '--pin-generator-cpus',
    '0',
    '--pin-compressions',
    'zstd',
    '--client-props',
    'fetch.wait.max.ms=100,linger.ms=0',
    '--pin-latency-rate',
    '1000',
  ]);
  assert.equal(o.pinBrokerCpus, '2-3');
  assert.equal(o.pinGeneratorCpus, '0');
  assert.deepEqual(o.pinCompressions, ['zstd']);
  assert.deepEqual(o.clientProps, ['fetch.wait.max.ms=100', 'linger.ms=0']);
  assert.equal(o.pinLatencyRatePerSecond, 1000);
  assert.throws(() => parseOptions(['--pin', '--pin-compressions', 'lz4,brotli']), /unknown compression brotli/);
  assert.throws(() => parseOptions(['--pin', '--pin-compressions', 'none']), /unknown compression none/);
});

test('the soak runs only when asked for: 30 minutes, 3 with --quick, or --soak-minutes', () => {
  assert.equal(parseOptions([]).workloads.has('soak'), false);
  const soak = parseOptions(['--workloads', 'soak']);
  assert.deepEqual([...soak.workloads], ['soak']);
  assert.equal(soak.soakMinutes, 30);
  assert.equal(parseOptions(['--quick', '--workloads', 'soak']).soakMinutes, 3);
  assert.equal(parseOptions(['--workloads', 'soak', '--soak-minutes', '45', '--soak-rate', '5000']).soakMinutes, 45);
  assert.equal(parseOptions(['--workloads', 'soak', '--soak-rate', '5000']).soakRatePerSecond, 5000);
});
