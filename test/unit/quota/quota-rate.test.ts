import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QuotaRate, recordAndThrottleMs } from '../../../src/quota/quota-rate.js';

const WINDOW = { samples: 11, sampleMs: 1000 };

test('a first burst is averaged over samples - 1 windows', () => {
  const rate = new QuotaRate(WINDOW);
  rate.record(10_000, 0);
  assert.equal(rate.windowMs(0), 10_000);
  assert.equal(rate.measure(0), 1000);
  // Half a second later the elapsed time is still below ten windows.
  assert.equal(rate.windowMs(500), 10_500);
});

test('the rate is the sum of the samples over the time they span', () => {
  const rate = new QuotaRate(WINDOW);
  for (let t = 0; t < 20_000; t += 100) rate.record(100, t);
  // 1000 bytes/s steady: the kept samples cover about 11-12 s of data at 1000/s.
  const measured = rate.measure(19_900);
  assert.ok(Math.abs(measured - 1000) < 60, `measured ${measured}`);
});

test('samples without events for the whole window are emptied', () => {
  const rate = new QuotaRate(WINDOW);
  rate.record(50_000, 0);
  assert.ok(rate.measure(5_000) > 0);
  assert.equal(rate.measure(11_000), 0);
});

test("a negative record takes back an earlier one (a throttled fetch's bytes)", () => {
  const rate = new QuotaRate(WINDOW);
  rate.record(4000, 0);
  rate.record(6000, 10);
  rate.record(-6000, 20);
  assert.equal(rate.measure(20), 4000 / 10.02);
});

test("throttle time is Kafka's (observed - quota) / quota x window", () => {
  const rate = new QuotaRate(WINDOW);
  // 20,000 bytes at t=0: 2000 B/s over the minimum 10 s window against a 1000 B/s quota.
  assert.equal(recordAndThrottleMs(rate, 20_000, 1000, 0), 10_000);
  const within = new QuotaRate(WINDOW);
  assert.equal(recordAndThrottleMs(within, 10_000, 1000, 0), 0);
  assert.equal(recordAndThrottleMs(within, 1, 1000, 0), Math.round(((10_001 / 10 - 1000) / 1000) * 10_000));
});

test('after waiting the throttle time with nothing recorded, the rate is back at the quota', () => {
  const rate = new QuotaRate(WINDOW);
  for (let t = 0; t <= 10_000; t += 1000) recordAndThrottleMs(rate, 1500, 1000, t);
  const throttle = recordAndThrottleMs(rate, 3000, 1000, 10_500);
  assert.ok(throttle > 0);
  const after = rate.measure(10_500 + throttle);
  assert.ok(after <= 1000 * 1.1, `rate ${after} after the throttle`);
});
