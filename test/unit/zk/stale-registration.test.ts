// Registering over a dead session's /brokers/ids/<id>: the broker waits, up to the session
// timeout, for the znode to go, says so once, and reports a live owner only after that.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { registerAfterStaleSession, type RegistrationAttempt } from '../../../src/zk/stale-registration.js';

/** A znode held by `owner` until the fake clock reaches `expiresAt` (never, for a live owner). */
function fakeZooKeeper(owner: bigint, expiresAt: number) {
  let clock = 0;
  const waits: number[] = [];
  const notices: [bigint, number][] = [];
  return {
    waits,
    notices,
    wait: {
      now: () => clock,
      attempt: (): Promise<RegistrationAttempt> => Promise.resolve(clock >= expiresAt ? { registered: 42n } : { heldBy: owner }),
      // The watch fires at expiry if that comes within `ms`; else the wait times out.
      untilGone: (ms: number): Promise<void> => {
        waits.push(ms);
        clock = Math.min(clock + ms, expiresAt);
        return Promise.resolve();
      },
      maxWaitMs: 6000,
      onWait: (heldBy: bigint, maxWaitMs: number) => notices.push([heldBy, maxWaitMs]),
    },
  };
}

test('a free id registers at once, without a wait or a notice', async () => {
  const zk = fakeZooKeeper(7n, 0);
  assert.deepEqual(await registerAfterStaleSession(zk.wait), { registered: 42n });
  assert.deepEqual(zk.waits, []);
  assert.deepEqual(zk.notices, []);
});

test("a dead session's registration is waited out: one notice with its session, then the broker registers", async () => {
  const zk = fakeZooKeeper(0x1234n, 4500);
  assert.deepEqual(await registerAfterStaleSession(zk.wait), { registered: 42n });
  assert.deepEqual(zk.notices, [[0x1234n, 6000]]);
  assert.deepEqual(zk.waits, [6000]);
});

test('a watch that fires for something else than the expiry waits again, for what is left, without a second notice', async () => {
  const zk = fakeZooKeeper(9n, 5000);
  let spurious = true;
  const untilGone = zk.wait.untilGone;
  const wait = {
    ...zk.wait,
    untilGone: (ms: number) => {
      if (!spurious) return untilGone(ms);
      spurious = false;
      return untilGone(Math.min(ms, 1000)); // the znode's data changed at 1 s
    },
  };
  assert.deepEqual(await registerAfterStaleSession(wait), { registered: 42n });
  assert.deepEqual(zk.waits, [1000, 5000]);
  assert.equal(zk.notices.length, 1);
});

test('a registration still held after the session timeout belongs to a live broker: its owner is the outcome', async () => {
  const zk = fakeZooKeeper(0xabcn, Number.POSITIVE_INFINITY);
  assert.deepEqual(await registerAfterStaleSession(zk.wait), { heldBy: 0xabcn });
  assert.deepEqual(zk.waits, [6000]);
  assert.equal(zk.notices.length, 1);
});

test('without a wait (maxWaitMs 0) a held id fails at once, as Kafka does', async () => {
  const zk = fakeZooKeeper(3n, 100);
  assert.deepEqual(await registerAfterStaleSession({ ...zk.wait, maxWaitMs: 0 }), { heldBy: 3n });
  assert.deepEqual(zk.waits, []);
  assert.deepEqual(zk.notices, []);
});
