import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatCpuList, parseCpuList, pinLauncher, planPins, threadAffinities, usableCpus } from '../../../bench/e2e/pin.js';
import { coreBusy } from '../../../bench/e2e/pinned.js';
import { parseCpuBusy } from '../../../bench/e2e/proc-stats.js';

test('CPU lists read as taskset and /proc write them', () => {
  assert.deepEqual(parseCpuList('0'), [0]);
  assert.deepEqual(parseCpuList('0-2'), [0, 1, 2]);
  assert.deepEqual(parseCpuList('4,0-1,1'), [0, 1, 4]);
  assert.throws(() => parseCpuList('a'), /not a CPU list/);
  assert.throws(() => parseCpuList('3-1'), /not a CPU list/);
  assert.equal(formatCpuList([0, 2]), '0,2');
});

test('the default plan gives the broker CPU 0 and the generator CPU 1', () => {
  assert.deepEqual(planPins([0, 1], '0', '1'), { brokerCpus: [0], generatorCpus: [1] });
  assert.deepEqual(planPins([0, 1, 2, 3], '0-1', '2-3'), { brokerCpus: [0, 1], generatorCpus: [2, 3] });
  assert.deepEqual(pinLauncher([0, 1]), ['taskset', '-c', '0,1']);
});

test('a plan on CPUs this process may not use, or sharing a CPU, is refused', () => {
  assert.throws(() => planPins([0], '0', '1'), /CPU 1 is not usable here \(usable: 0\)/);
  assert.throws(() => planPins([0, 1, 2], '0-1', '1-2'), /CPU 1 is given to both/);
});

test("this process's threads and usable CPUs come from /proc", () => {
  const usable = usableCpus();
  assert.ok(usable.length >= 1);
  const threads = threadAffinities('self');
  assert.ok(threads.some((t) => t.tid === process.pid));
  for (const t of threads) assert.ok(t.cpus.every((c) => usable.includes(c)));
});

test("per-CPU busy time excludes idle and iowait, and a core's utilisation is its busy share of the wall time", () => {
  const stat = ['cpu  300 0 100 1000 50 0 0 0 0 0', 'cpu0 200 0 50 400 25 0 0 0 0 0', 'cpu1 100 0 50 600 25 0 0 0 0 0', 'intr 12345'].join(
    '\n',
  );
  const busy = parseCpuBusy(stat);
  assert.equal(busy.get('cpu'), 4);
  assert.equal(busy.get('cpu0'), 2.5);
  assert.equal(busy.get('cpu1'), 1.5);
  assert.equal(busy.has('intr'), false);
  const during = new Map([
    [0, 1.8],
    [1, 0.5],
  ]);
  assert.equal(coreBusy(during, [0], 2), 0.9);
  assert.equal(coreBusy(during, [0, 1], 2), 0.575);
});
