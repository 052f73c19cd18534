/**
 * A ZooKeeper server that keeps its TCP connections open but stops answering (its JVM
 * SIGSTOPped: the kernel still accepts and acknowledges, nothing replies). The npm client alone
 * would wait forever; ZkSession's read timeout (the Java client's: two thirds of the session
 * timeout without a byte from the server) drops the connection, so a pending request fails with
 * a typed connection loss in bounded time. After SIGCONT within the session timeout the same
 * session resumes; after a longer pause the server, running again, expires it and the client
 * hears so. Only the server decides: a ZooKeeper restarted after more than a session timeout
 * keeps its sessions, and they resume.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
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

  test('a pending read fails with a connection loss in bounded time; after SIGCONT the same session resumes', async (t) => {
    const session = await ZkSession.connect({ connect: zk.connect, ...SESSION });
    t.after(async () => {
      if (stopped) resume();
      await session.close();
    });
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
  });

  test('silent for longer than the session timeout: once running again the server either expires the session or resumes it, and the client never hangs', async (t) => {
    const session = await ZkSession.connect({ connect: zk.connect, ...SESSION });
    t.after(async () => {
      if (stopped) resume();
      await session.close();
    });
    const id = session.sessionId;
    await session.create('/hung-expiring', null, 'ephemeral');
    pause();
    const pending = session.retrying(() => session.get('/hung'));
    // Kept: the server stays silent past the session timeout, and the client must not decide within it.
    await sleep(SESSION.sessionTimeoutMs * 1.5);
    assert.equal(session.state, 'disconnected', 'the client does not decide for the server');
    resume();
    await within(
      pending.then(
        () => undefined,
        (err: unknown) => (err instanceof ZkSessionExpiredError ? undefined : Promise.reject(err)),
      ),
      FAIL_BOUND_MS,
      'the pending read after SIGCONT',
    );
    // The server's expiry thread races the reconnect: it may expire the session before the
    // handshake, or after it (ZooKeeper's expiry queue hands the thread the session's bucket
    // before the reconnect moves it, so a session can resume, serve a read, and then expire).
    // One session timeout later the server's decision is final; the client must follow it.
    await sleep(SESSION.sessionTimeoutMs);
    const settled = await within(
      session
        .retrying(() => session.exists('/hung-expiring'))
        .then(
          (owner) => ({ outcome: 'kept' as const, owner }),
          (err: unknown) => (err instanceof ZkSessionExpiredError ? { outcome: 'expired' as const } : Promise.reject(err)),
        ),
      FAIL_BOUND_MS,
      'a read once the server has decided',
    );
    const fresh = await ZkSession.connect({ connect: zk.connect, ...SESSION });
    try {
      const owner = await fresh.exists('/hung-expiring');
      if (settled.outcome === 'expired') {
        assert.equal(session.state, 'expired');
        assert.equal(owner, null, 'its ephemeral znode went with it');
      } else {
        assert.equal(session.state, 'connected');
        assert.equal(settled.owner?.ephemeralOwner, id, 'the same session, its ephemeral znode kept');
        assert.equal(owner?.ephemeralOwner, id, 'another session sees it too');
      }
    } finally {
      await fresh.close();
    }
  });

  test('a ZooKeeper restarted after more than a session timeout keeps the session: it resumes with its ephemeral znode', async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sluice-zk-restart-'));
    let server = await startZooKeeper({ dataDir });
    const session = await ZkSession.connect({ connect: server.connect, ...SESSION });
    t.after(async () => {
      await session.close();
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });
    await session.create('/restart-owner', null, 'ephemeral');
    const id = session.sessionId;
    let expired = false;
    session.onSessionExpired(() => (expired = true));
    await server.stop();
    // Kept: ZooKeeper stays down for longer than a session timeout; the time is the point.
    await sleep(SESSION.sessionTimeoutMs * 1.5);
    server = await startZooKeeper({ dataDir, port: server.port });
    const owner = await within(
      session.retrying(() => session.exists('/restart-owner')),
      FAIL_BOUND_MS,
      'a read after the restart',
    );
    assert.equal(expired, false);
    assert.equal(session.sessionId, id, 'the same session');
    assert.equal(owner?.ephemeralOwner, id, 'its ephemeral znode is still there');
  });
});
