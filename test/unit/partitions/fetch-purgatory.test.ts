import { test } from 'node:test';
import { offsetOf } from '@sluice/protocol/common/offsets.js';
import assert from 'node:assert/strict';
import { FetchPurgatory, type Wake } from '../../../src/partitions/fetch-purgatory.js';
import type { ReadResult } from '../../../src/partitions/partition-service.js';
import { readCommand } from './worker-options-fixture.js';

const reason = (wake: Promise<Wake>): Promise<string> => wake.then((w) => w.reason);

/** A read result whose records count their releases in `released`. */
function result(released: { count: number }, byteLength = 100): ReadResult {
  return {
    errorCode: 0,
    highWatermark: offsetOf(10n),
    lastStableOffset: offsetOf(10n),
    logStartOffset: offsetOf(0n),
    records: { fd: 3, position: 0, byteLength, release: () => released.count++ },
    divergingEpoch: null,
    abortedTransactions: null,
  };
}

test('a high watermark move on any awaited partition wakes the fetch, once, and removes it everywhere', async () => {
  const p = new FetchPurgatory();
  const woke = reason(p.wait(['t-0', 't-1'], 10_000));
  assert.equal(p.waiting, 1);
  p.notify('t-1');
  assert.equal(await woke, 'data');
  assert.equal(p.waiting, 0);
  p.notify('t-0');
});

test('max wait bounds the wait; unrelated appends do not wake it', async () => {
  const p = new FetchPurgatory();
  const started = Date.now();
  const woke = reason(p.wait(['a-0'], 50));
  p.notify('b-0');
  assert.equal(await woke, 'timeout');
  assert.ok(Date.now() - started >= 45);
  assert.equal(p.waiting, 0);
});

test('wakeAll releases every waiter with the given reason', async () => {
  const p = new FetchPurgatory();
  const all = [reason(p.wait(['a-0'], 10_000)), reason(p.wait(['b-0'], 10_000))];
  p.wakeAll('shutdown');
  assert.deepEqual(await Promise.all(all), ['shutdown', 'shutdown']);
});

test("followers wake on appends, consumers on high watermark moves: a follower's data is below the log end", async () => {
  const p = new FetchPurgatory();
  let consumerWoke = false;
  const consumer = reason(p.wait(['t-0'], 10_000)).then((why) => {
    consumerWoke = true;
    return why;
  });
  const follower = reason(p.wait(['t-0'], 10_000, 'logEnd'));
  p.notifyAppend('t-0');
  assert.equal(await follower, 'data');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(consumerWoke, false, 'an append that left the high watermark behind');
  assert.equal(p.waiting, 1);
  p.notify('t-0');
  assert.equal(await consumer, 'data');
  const second = reason(p.wait(['t-0'], 10_000, 'logEnd'));
  p.notify('t-0');
  assert.equal(p.waiting, 1, 'a high watermark move alone does not wake a follower');
  p.wakeAll('shutdown');
  assert.equal(await second, 'shutdown');
});

test('a consumer parked with reads lists them per partition; the reads offered for it wake it with them, and nothing else is read for it', async () => {
  const p = new FetchPurgatory();
  assert.equal(p.hasParkedReads, false);
  const reads = new Map([
    ['t-0', readCommand('t', 0, 5n)],
    ['t-1', readCommand('t', 1, 7n)],
  ]);
  const woke = p.wait(['t-0', 't-1'], 10_000, 'highWatermark', reads);
  const plain = p.wait(['t-0'], 10_000);
  void p.wait(['t-0'], 10_000, 'logEnd', reads); // a follower's parked read, left parked: only its listing is checked
  assert.equal(p.hasParkedReads, true);
  const parked = p.parkedReads('t-0');
  assert.equal(parked.length, 1, 'neither the consumer parked without reads nor the follower');
  assert.deepEqual(parked[0]!.command, readCommand('t', 0, 5n));
  assert.deepEqual(
    p.parkedReads('t-1').map((r) => r.command.fetchOffset),
    [7],
  );
  assert.deepEqual(p.parkedReads('u-0'), []);

  const released = { count: 0 };
  const offered = result(released);
  p.offer(parked[0]!.waiter, 't-0', offered);
  p.notify('t-0');
  const wake = await woke;
  assert.equal(wake.reason, 'data');
  assert.deepEqual([...wake.reads.keys()], ['t-0']);
  assert.equal(wake.reads.get('t-0'), offered);
  assert.equal((await plain).reads.size, 0);
  assert.equal(released.count, 0, 'the woken fetch sends or releases it');
  assert.equal(p.hasParkedReads, false, 'a follower parks without reads');
  assert.equal(p.waiting, 1);
  p.wakeAll('shutdown');
});

test('a read offered to a fetch that no longer waits, or offered twice for one partition, is released', async () => {
  const p = new FetchPurgatory();
  const woke = p.wait(['t-0'], 10_000, 'highWatermark', new Map([['t-0', readCommand('t', 0, 0n)]]));
  const waiter = p.parkedReads('t-0')[0]!.waiter;
  const released = { count: 0 };
  const first = result(released);
  p.offer(waiter, 't-0', first);
  p.offer(waiter, 't-0', result(released));
  assert.equal(released.count, 1);
  p.notify('t-0');
  assert.equal((await woke).reads.get('t-0'), first);
  p.offer(waiter, 't-0', result(released));
  assert.equal(released.count, 2);
});

test('a parked fetch that times out takes the reads offered to it along', async () => {
  const p = new FetchPurgatory();
  const woke = p.wait(['t-0'], 20, 'highWatermark', new Map([['t-0', readCommand('t', 0, 0n)]]));
  const released = { count: 0 };
  p.offer(p.parkedReads('t-0')[0]!.waiter, 't-0', result(released));
  const wake = await woke;
  assert.equal(wake.reason, 'timeout');
  assert.equal(wake.reads.size, 1);
  assert.equal(released.count, 0);
});
