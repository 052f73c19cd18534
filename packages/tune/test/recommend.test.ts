import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recommendationConfidence } from '../src/recommend-confidence.js';
import { recommend, type CellOutcome } from '../src/recommend.js';

const KiB = 1024;

function cell(batchSize: number, lingerMs: number, recordsPerSecond: number, p99Ms: number, failedRecords = 0): CellOutcome {
  return { batchSize, lingerMs, recordsPerSecond, p99Ms, failedRecords };
}

// Throughput grows with linger and batch size until it flattens; p99 grows with linger.
const GRID: CellOutcome[] = [
  cell(16 * KiB, 0, 40_000, 4),
  cell(16 * KiB, 5, 60_000, 9),
  cell(16 * KiB, 25, 70_000, 30),
  cell(64 * KiB, 0, 50_000, 5),
  cell(64 * KiB, 5, 92_000, 12),
  cell(64 * KiB, 25, 100_000, 35),
  cell(256 * KiB, 0, 55_000, 6),
  cell(256 * KiB, 5, 95_000, 60),
  cell(256 * KiB, 25, 98_000, 70),
];

test('picks the smallest linger, then the smallest batch size, that reaches 90% of peak within the p99 bound', () => {
  const r = recommend(GRID, { minThroughputFraction: 0.9, p99BoundMs: 50 });
  assert.equal(r.lingerMs, 5);
  assert.equal(r.batchSize, 64 * KiB, '256 KiB at linger 5 is fast enough too but over the bound; 64 KiB is smaller anyway');
  assert.deepEqual(r.peak, { batchSize: 64 * KiB, lingerMs: 25, recordsPerSecond: 100_000 });
  assert.equal(r.qualifyingCells, 2);
  assert.match(
    r.text,
    /^Use linger\.ms=5 and batch\.size=65536 \(64 KiB\): 92,000 records\/s \(92% of the peak of 100,000 records\/s at linger\.ms=25 and batch\.size=65536 \(64 KiB\)\) with p99 12\.0 ms \(bound 50\.0 ms\)/,
  );
  assert.match(r.text, /2 of 9 cells qualify/);
});

test('the bound changes the choice: a tight bound moves to a larger linger or leaves no cell', () => {
  const loose = recommend(GRID, { minThroughputFraction: 0.9, p99BoundMs: null });
  assert.deepEqual([loose.lingerMs, loose.batchSize], [5, 64 * KiB]);
  assert.match(loose.text, /no p99 bound/);
  const tight = recommend(GRID, { minThroughputFraction: 0.9, p99BoundMs: 10 });
  assert.equal(tight.batchSize, null);
  assert.equal(tight.lingerMs, null);
  assert.match(
    tight.text,
    /^No cell reaches 90% of the peak of 100,000 records\/s .* with p99 within 10\.0 ms\. The lowest p99 among the cells that reach it is 12\.0 ms, at linger\.ms=5 and batch\.size=65536/,
  );
});

test('a lower throughput share admits smaller settings; ties on linger and batch go to the faster cell', () => {
  const r = recommend(GRID, { minThroughputFraction: 0.5, p99BoundMs: 50 });
  assert.deepEqual([r.lingerMs, r.batchSize], [0, 64 * KiB], '16 KiB at linger 0 is under 50% of peak');
});

test('cells with failed records never qualify, nor set the peak; all failing says so', () => {
  const grid = [cell(16 * KiB, 0, 200_000, 1, 5), cell(16 * KiB, 5, 50_000, 3)];
  const r = recommend(grid, { minThroughputFraction: 0.9, p99BoundMs: null });
  assert.equal(r.peak!.recordsPerSecond, 50_000);
  assert.deepEqual([r.lingerMs, r.batchSize], [5, 16 * KiB]);
  const none = recommend([cell(16 * KiB, 0, 0, Number.NaN), cell(16 * KiB, 5, 10, 1, 1)], { minThroughputFraction: 0.9, p99BoundMs: null });
  assert.equal(none.peak, null);
  assert.match(none.text, /No cell completed without errors/);
});

test('--throughput-goal: the cheapest cell reaching that many records/s within the bound, instead of 90% of peak', () => {
  const r = recommend(GRID, { minThroughputFraction: 0.9, p99BoundMs: 50, throughputGoal: 55_000 });
  assert.deepEqual([r.lingerMs, r.batchSize], [0, 256 * KiB], 'linger 0 reaches 55,000 only with 256 KiB');
  assert.match(r.text, /reaching the goal of 55,000 records\/s with p99 within 50\.0 ms/);
  const unreachable = recommend(GRID, { minThroughputFraction: 0.9, p99BoundMs: 50, throughputGoal: 200_000 });
  assert.equal(unreachable.batchSize, null);
  assert.match(unreachable.text, /^No cell reaches the goal of 200,000 records\/s; the peak of 100,000 records\/s .* is the fastest\.$/);
});

test('how sure: the rounds that, each on its own, recommend the same cell, and the spread of its runs', () => {
  const rule = { minThroughputFraction: 0.9, p99BoundMs: 50 };
  // Cell order as GRID; round 3 has linger 5 / 64 KiB slow, so that round alone picks another cell.
  const rounds = GRID.map((c) => [
    c,
    { ...c, recordsPerSecond: c.recordsPerSecond * 1.01, p99Ms: c.p99Ms + 1 },
    c.batchSize === 64 * KiB && c.lingerMs === 5 ? { ...c, recordsPerSecond: 50_000 } : c,
  ]);
  const overall = recommend(GRID, rule);
  const sure = recommendationConfidence(overall, rounds, rule);
  assert.deepEqual([sure.rounds, sure.agreeingRounds], [3, 2]);
  assert.equal(
    sure.text,
    'How sure: 2 of 3 rounds, each taken alone, recommend the same cell; over its runs the recommended cell reached 50,000–92,920 records/s with p99 12.0–13.0 ms.',
  );
  const unanimous = recommendationConfidence(
    overall,
    GRID.map((c) => [c, c]),
    rule,
  );
  assert.match(
    unanimous.text,
    /^How sure: all 2 rounds, each taken alone, recommend the same cell; over its runs the recommended cell reached 92,000 records\/s with p99 12\.0 ms\.$/,
  );
  assert.match(
    recommendationConfidence(
      overall,
      GRID.map((c) => [c]),
      rule,
    ).text,
    /^One run per cell/,
  );
  const strict = { minThroughputFraction: 0.9, p99BoundMs: 1 };
  const none = recommendationConfidence(
    recommend(GRID, strict),
    GRID.map((c) => [c, { ...c, p99Ms: 0.5 }]),
    strict,
  );
  assert.equal(none.text, 'How sure: 1 of 2 rounds, each taken alone, also find no qualifying cell.');
});
