import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FetchPurgatory } from '../../../src/router/fetch-purgatory.js';

test('a high watermark move on any awaited partition wakes the fetch, once, and removes it everywhere', async () => {
  const p = new FetchPurgatory();
  const woke = p.wait(['t-0', 't-1'], 10_000);
  assert.equal(p.waiting, 1);
  p.notify('t-1');
  assert.equal(await woke, 'data');
  assert.equal(p.waiting, 0);
  p.notify('t-0');
});

test('max wait bounds the wait; unrelated appends do not wake it', async () => {
  const p = new FetchPurgatory();
  const started = Date.now();
  const woke = p.wait(['a-0'], 50);
  p.notify('b-0');
  assert.equal(await woke, 'timeout');
  assert.ok(Date.now() - started >= 45);
  assert.equal(p.waiting, 0);
});

test('wakeAll releases every waiter with the given reason', async () => {
  const p = new FetchPurgatory();
  const all = [p.wait(['a-0'], 10_000), p.wait(['b-0'], 10_000)];
  p.wakeAll('shutdown');
  assert.deepEqual(await Promise.all(all), ['shutdown', 'shutdown']);
});

test("followers wake on appends, consumers on high watermark moves: a follower's data is below the log end", async () => {
  const p = new FetchPurgatory();
  let consumerWoke = false;
  const consumer = p.wait(['t-0'], 10_000).then((reason) => {
    consumerWoke = true;
    return reason;
  });
  const follower = p.wait(['t-0'], 10_000, 'logEnd');
  p.notifyAppend('t-0');
  assert.equal(await follower, 'data');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(consumerWoke, false, 'an append that left the high watermark behind');
  assert.equal(p.waiting, 1);
  p.notify('t-0');
  assert.equal(await consumer, 'data');
  const second = p.wait(['t-0'], 10_000, 'logEnd');
  p.notify('t-0');
  assert.equal(p.waiting, 1, 'a high watermark move alone does not wake a follower');
  p.wakeAll('shutdown');
  assert.equal(await second, 'shutdown');
});
