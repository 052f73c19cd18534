import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LatencySamples } from '../src/latency-samples.js';

function samples(values: Iterable<number>): LatencySamples {
  const s = new LatencySamples();
  for (const v of values) s.add(v);
  return s;
}

test('nearest-rank percentiles over 1..100 and 1..1000', () => {
  const hundred = samples(Array.from({ length: 100 }, (_, i) => 100 - i)); // added in descending order
  assert.equal(hundred.percentile(50), 50);
  assert.equal(hundred.percentile(95), 95);
  assert.equal(hundred.percentile(99), 99);
  assert.equal(hundred.percentile(100), 100);
  assert.equal(hundred.percentile(99.9), 100, '99.9% of 100 samples needs the 100th');
  const thousand = samples(Array.from({ length: 1000 }, (_, i) => i + 1));
  assert.equal(thousand.percentile(99.9), 999);
  assert.equal(thousand.percentile(0.1), 1);
  const tenThousand = samples(Array.from({ length: 10_000 }, (_, i) => i + 1));
  assert.equal(tenThousand.percentile(99.9), 9990, 'no float drift to the next rank');
});

test('summary: mean, max, and the percentiles after more samples than the initial capacity', () => {
  const s = samples(Array.from({ length: 5000 }, (_, i) => (i % 10) + 0.5));
  const sum = s.summary();
  assert.equal(sum.count, 5000);
  assert.equal(sum.meanMs, 5);
  assert.equal(sum.maxMs, 9.5);
  assert.equal(sum.p50Ms, 4.5);
  assert.equal(sum.p99Ms, 9.5);
  s.add(1000);
  assert.equal(s.summary().maxMs, 1000, 'adding after a summary re-sorts');
});

test('one sample is every percentile; no samples give NaN; p outside (0, 100] is refused', () => {
  assert.equal(samples([7]).percentile(0.001), 7);
  assert.equal(samples([7]).percentile(99.9), 7);
  assert.ok(Number.isNaN(new LatencySamples().percentile(50)));
  assert.ok(Number.isNaN(new LatencySamples().summary().meanMs));
  assert.throws(() => samples([1]).percentile(0), RangeError);
  assert.throws(() => samples([1]).percentile(101), RangeError);
});
