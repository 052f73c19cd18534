/**
 * The heatmap colour scale ignores differences within the measured noise: cells within it of the
 * best are coloured as the best, a grid entirely within it is one colour, and the noise comes
 * from the runs' spread (median over cells), or is assumed, and said to be, with one run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { colourScale, estimateNoise, NOISE_FLOOR, noiseLegend, UNMEASURED_NOISE } from '../src/heatmap-scale.js';

const measured = (fraction: number) => ({ fraction, measured: true });

test('a 0.6% throughput difference within 2% noise is not coloured apart', () => {
  const scale = colourScale([10_000, 9_940], true, measured(0.02));
  assert.equal(scale.position(10_000), 1);
  assert.equal(scale.position(9_940), 1);
  assert.equal(scale.allWithinNoise, true);
  assert.match(noiseLegend(scale), /all cells within the noise \(2\.0%/);
});

test('without the noise rule the same values would span the scale; beyond the noise they still do', () => {
  const scale = colourScale([10_000, 9_940, 5_000], true, measured(0.02));
  assert.equal(scale.position(9_940), 1, 'within noise of the best');
  assert.equal(scale.position(5_000), 0, 'the worst is red');
  const mid = scale.position(7_600);
  assert.ok(mid > 0.4 && mid < 0.6, `halfway beyond the noise is mid-scale, got ${mid}`);
  assert.match(noiseLegend(scale), /differences under 2\.0% \(the runs' median spread\) share a colour/);
});

test('lower-is-better latency over a wide range compares ratios on a log scale, the noise as a ratio too', () => {
  const scale = colourScale([1, 1.04, 10, 100], false, measured(0.05));
  assert.equal(scale.log, true);
  assert.equal(scale.position(1), 1);
  assert.equal(scale.position(1.04), 1, '4% slower than the best, within 5%');
  assert.equal(scale.position(100), 0);
  const ten = scale.position(10);
  assert.ok(ten > 0.45 && ten < 0.55, `10 ms is halfway on the log scale, got ${ten}`);
  assert.ok(Number.isNaN(scale.position(Number.NaN)));
});

test('the noise is the median over repeated cells of their spread over their median, floored; one run assumes it and says so', () => {
  const cell = (median: number, min: number, max: number) => ({ median, spread: { min, max } });
  assert.deepEqual(estimateNoise([cell(100, 99, 101), cell(200, 190, 210), cell(50, 40, 60)]), measured(0.1));
  assert.deepEqual(estimateNoise([cell(100, 100, 100)]), measured(NOISE_FLOOR));
  assert.deepEqual(estimateNoise([]), { fraction: UNMEASURED_NOISE, measured: false });
  assert.match(noiseLegend(colourScale([1, 2], true, estimateNoise([]))), /assumed: one run per cell, use --repeat to measure it/);
});
