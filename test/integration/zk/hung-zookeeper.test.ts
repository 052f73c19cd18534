/**
 * A ZooKeeper server that keeps its TCP connections open but stops answering (its JVM
 * SIGSTOPped: the kernel still accepts and acknowledges, nothing replies). The npm client alone
 * would wait forever; ZkSession's read timeout (the Java client's: two thirds of the session
 * timeout without a byte from the server) drops the connection, so a pending request fails with
 * a typed connection loss in bounded time. After SIGCONT within the session timeout the same
 * session resumes; a server silent for longer than the session timeout has expired it, so the
 * client calls it expired itself instead of waiting to be told.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { zooKeeperSkip } from '../../helpers/requirements.js';
import { startZooKeeper, type ZooKeeperServer } from '../../helpers/zookeeper-server.js';
import { ZkSession } from '../../../src/zk/zk-session.js';
import { ZkConnectionLossError, ZkSessionExpiredError } from '../../../src/zk/zk-errors.js';
import { SESSION, within } from './zk-helpers.js';

/** Well past the read timeout (4 s for a 6 s session) and the check interval: a hang shows as a failure here. */
const FAIL_BOUND_MS = 15_000;

describe('ZkSession with a ZooKeeper that stops answering', { skip: zooKeeperSkip(), timeout: 120_000 }, () => {
  let zk: ZooKeeperServer;
  let stopped = false;
  const pause = (): void => {
    process.kill(zk.pid, 'SIGSTOP');
    stopped = true;
  };
  const resume = (): void => {
    process.kill(zk.pid, 'SIGCONT');
    stopped = false;
  };

  before(async () => {
    zk = await startZooKeeper();
  });
  after(async () => {
    if (stopped) resume();
    await zk?.stop();
  });

  test('a pending read fails with a connection loss in bounded time; after SIGCONT the same session resumes', async () => {
    const session = await ZkSession.connect({ connect: zk.connect, ...SESSION });
    try {
      await session.create('/hung', Buffer.from('v'));
      await session.create('/hung-owner', null, 'ephemeral');
      const id = session.sessionId;
      pause();
      const pending = session.get('/hung');
      await within(
        assert.rejects(pending, (err: unknown) => err instanceof ZkConnectionLossError),
        FAIL_BOUND_MS,
        'the read pending on a silent server',
      );
      assert.notEqual(session.state, 'connected');
      resume();
      const read = await within(
        session.retrying(() => session.get('/hung')),
        FAIL_BOUND_MS,
        'the read after SIGCONT',
      );
      assert.equal(read?.data?.toString(), 'v');
      assert.equal(session.state, 'connected');
      assert.equal(session.sessionId, id, 'the session resumed, not replaced');
      assert.equal((await session.exists('/hung-owner'))?.ephemeralOwner, id, 'its ephemeral znode is still there');
    } finally {
      if (stopped) resume();
      await session.close();
    }
  });

  test('silent for longer than the session timeout: the session is expired without waiting for the server', async () => {
    const session = await ZkSession.connect({ connect: zk.connect, ...SESSION });
    try {
      await session.create('/hung-expiring', null, 'ephemeral');
      const expired = new Promise<void>((resolve) => session.onSessionExpired(resolve));
      pause();
      const pending = session.retrying(() => session.get('/hung'));
      await within(expired, FAIL_BOUND_MS + SESSION.sessionTimeoutMs, 'the local expiry');
      await assert.rejects(pending, (err: unknown) => err instanceof ZkSessionExpiredError);
      await assert.rejects(session.get('/hung'), (err: unknown) => err instanceof ZkSessionExpiredError);
      resume();
      // The server, running again, expires the session too: its ephemeral znode goes.
      const fresh = await ZkSession.connect({ connect: zk.connect, ...SESSION });
      try {
        let deleted!: () => void;
        const gone = new Promise<void>((resolve) => (deleted = resolve));
        if ((await fresh.exists('/hung-expiring', () => deleted())) !== null) await within(gone, FAIL_BOUND_MS, 'the expired session’s ephemeral znode going');
        assert.equal(await fresh.exists('/hung-expiring'), null);
      } finally {
        await fresh.close();
      }
    } finally {
      if (stopped) resume();
      await session.close();
    }
  });
});
