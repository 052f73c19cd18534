/** The knee search against a modelled producer: what it finds, how many probes it takes, and when it cannot verify a rate. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findKnee } from '../src/knee.js';

/** A producer that sustains `capacity` on a schedule and reaches `flatOut` unscheduled (a burst into its buffer). */
function producer(capacity: number, flatOut: number): { measure: (rate: number | null) => Promise<number>; rates: Array<number | null> } {
  const rates: Array<number | null> = [];
  return { rates, measure: async (rate) => (rates.push(rate), rate === null ? flatOut : Math.min(rate, capacity)) };
}

test('a producer that keeps up with its flat-out rate: one scheduled probe confirms it', async () => {
  const p = producer(10_000, 9_800);
  const knee = await findKnee(p.measure, { steps: 3, keepUpFraction: 0.95 });
  assert.deepEqual(p.rates, [null, 9_800]);
  assert.deepEqual(knee, {
    maxSustainableRate: 9_800,
    verified: true,
    probes: [
      { targetRate: null, achievedRate: 9_800, keptUp: true },
      { targetRate: 9_800, achievedRate: 9_800, keptUp: true },
    ],
  });
});

test('below the flat-out rate: bisection between the highest rate that kept up and the lowest that did not', async () => {
  const p = producer(6_000, 10_000);
  const knee = await findKnee(p.measure, { steps: 3, keepUpFraction: 0.95 });
  assert.deepEqual(p.rates, [null, 10_000, 5_000, 7_500, 6_250]);
  // 6,250 achieves 6,000 = 96% of it: within the keep-up fraction, so it counts as sustained.
  assert.equal(knee.maxSustainableRate, 6_250);
  assert.ok(knee.verified);
  assert.deepEqual(
    knee.probes.map((p) => p.keptUp),
    [true, false, true, false, true],
  );
});

test('the search is bounded: steps + 1 scheduled probes at most', async () => {
  for (const steps of [0, 1, 5]) {
    const p = producer(1_234, 10_000);
    await findKnee(p.measure, { steps, keepUpFraction: 0.95 });
    assert.equal(p.rates.length, 2 + steps, `steps ${steps}`);
  }
});

test('nothing keeps up: the last achieved rate, unverified; nothing sent: 0', async () => {
  const stalled = await findKnee(async (rate) => (rate === null ? 10_000 : rate / 2), { steps: 2, keepUpFraction: 0.95 });
  assert.deepEqual([stalled.maxSustainableRate, stalled.verified], [1_250, false]);
  const dead = await findKnee(async () => 0, { steps: 2, keepUpFraction: 0.95 });
  assert.deepEqual(dead, { maxSustainableRate: 0, verified: false, probes: [{ targetRate: null, achievedRate: 0, keptUp: false }] });
});
