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
