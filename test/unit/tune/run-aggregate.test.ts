/** `--repeat`: a cell's runs reported as their medians, failures added up, the spread kept. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aggregateRuns, median, spread } from '@sluice/tune/run-aggregate.js';
import { brokerStats as broker, run } from './tune-runs-helper.js';

test('median: the middle value, the mean of the two middle ones, NaN left out', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([7]), 7);
  assert.equal(median([5, Number.NaN, 1, 3]), 3);
  assert.ok(Number.isNaN(median([])));
  assert.ok(Number.isNaN(median([Number.NaN])));
  assert.deepEqual(spread([5, Number.NaN, 1, 3]), { min: 1, max: 5 });
});

test('a cell of three runs reports each statistic as its median: one slow run does not drag it', () => {
  const runs = [run(10_000, 8), run(4_000, 40), run(9_000, 10)];
  const cell = aggregateRuns(runs);
  assert.equal(cell.recordsPerSecond, 9_000);
  assert.equal(cell.mbPerSecond, 9_000 / 1024);
  assert.equal(cell.acknowledgedRecords, 9_000);
  assert.equal(cell.batches, 900);
  assert.deepEqual(cell.latency, { count: 9_000, meanMs: 5, p50Ms: 2.5, p95Ms: 5, p99Ms: 10, p999Ms: 20, maxMs: 30 });
  assert.deepEqual(cell.spread, {
    recordsPerSecond: { min: 4_000, max: 10_000 },
    p99Ms: { min: 8, max: 40 },
    maxSustainableRate: { min: Number.NaN, max: Number.NaN },
  });
  assert.deepEqual(cell.runs, runs, 'every run is kept, in order');
});

test('each percentile is its own median, not the percentiles of one median run', () => {
  const a = run(1_000, 10, { latency: { count: 1, meanMs: 1, p50Ms: 1, p95Ms: 9, p99Ms: 10, p999Ms: 50, maxMs: 60 } });
  const b = run(1_000, 20, { latency: { count: 1, meanMs: 2, p50Ms: 3, p95Ms: 8, p99Ms: 20, p999Ms: 30, maxMs: 90 } });
  const c = run(1_000, 30, { latency: { count: 1, meanMs: 3, p50Ms: 2, p95Ms: 7, p99Ms: 30, p999Ms: 40, maxMs: 70 } });
  assert.deepEqual(aggregateRuns([a, b, c]).latency, { count: 1, meanMs: 2, p50Ms: 2, p95Ms: 8, p99Ms: 20, p999Ms: 40, maxMs: 70 });
});

test('failed records add up and the first error is kept: one bad run marks the cell', () => {
  const cell = aggregateRuns([
    run(1_000, 5),
    run(1_000, 5, { failedRecords: 3, firstError: 'NOT_LEADER_OR_FOLLOWER' }),
    run(1_000, 5, { failedRecords: 1, firstError: 'later' }),
  ]);
  assert.equal(cell.failedRecords, 4);
  assert.equal(cell.firstError, 'NOT_LEADER_OR_FOLLOWER');
});

test('broker statistics: medians when every run has them, null when a run lacks them', () => {
  const withBroker = aggregateRuns([run(1_000, 5, { broker: broker(100) }), run(1_000, 5, { broker: broker(300) })]);
  assert.deepEqual(withBroker.broker, broker(200));
  assert.equal(aggregateRuns([run(1_000, 5, { broker: broker(100) }), run(1_000, 5)]).broker, null);
});

test('one run is reported as it is', () => {
  const only = run(1_234, 7);
  const cell = aggregateRuns([only]);
  const { spread: s, runs, ...figures } = cell;
  assert.deepEqual(figures, only);
  assert.deepEqual(s, {
    recordsPerSecond: { min: 1_234, max: 1_234 },
    p99Ms: { min: 7, max: 7 },
    maxSustainableRate: { min: Number.NaN, max: Number.NaN },
  });
  assert.deepEqual(runs, [only]);
  assert.throws(() => aggregateRuns([]), RangeError);
});
