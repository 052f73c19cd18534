/**
 * ZkSession against a real ZooKeeper 3.8 server (one per file): reads and writes with their
 * typed errors, one-shot watches, multi (atomic, with a failing check, and the version-0 check
 * the npm client would get wrong), chroot creation, bounded connect, close, and session expiry
 * after a network partition longer than the session timeout.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { zooKeeperSkip } from '../../helpers/requirements.js';
import { startZooKeeper, type ZooKeeperServer } from '../../helpers/zookeeper-server.js';
import { startTcpProxy } from '../../helpers/tcp-proxy.js';
import { waitFor, when } from '../../helpers/wait-for.js';
import { ZkSession } from '../../../src/zk/zk-session.js';
import {
  ZkBadVersionError,
  ZkClosedError,
  ZkConnectTimeoutError,
  ZkError,
  ZkNodeExistsError,
  ZkNoNodeError,
  ZkNotEmptyError,
  ZkSessionExpiredError,
} from '../../../src/zk/zk-errors.js';
import { ANY_VERSION, type ZkState, type ZkWatchEvent } from '../../../src/zk/zk-types.js';
import { deferred, SESSION, within } from './zk-helpers.js';

const WATCH_MS = 5_000;

describe('ZkSession against a ZooKeeper server', { skip: zooKeeperSkip(), timeout: 120_000 }, () => {
  let zk: ZooKeeperServer;
  let a: ZkSession;
  let b: ZkSession;

  before(async () => {
    zk = await startZooKeeper();
    a = await ZkSession.connect({ connect: zk.connect, ...SESSION });
    b = await ZkSession.connect({ connect: zk.connect, ...SESSION });
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await zk?.stop();
  });

  test('create, get, set, delete, children, with versions and typed errors', async () => {
    assert.equal(a.state, 'connected');
    assert.notEqual(a.sessionId, b.sessionId);
    assert.equal(await a.create('/basics', Buffer.from('v0')), '/basics');
    await assert.rejects(a.create('/basics', null), ZkNodeExistsError);
    await assert.rejects(a.create('/no/parent', null), ZkNoNodeError);

    const node = await a.get('/basics');
    assert.equal(node?.data?.toString(), 'v0');
    assert.equal(node?.stat.version, 0);
    assert.equal(node?.stat.ephemeralOwner, 0n);
    assert.equal(typeof node?.stat.czxid, 'bigint');

    assert.equal(await a.set('/basics', Buffer.from('v1'), 0), 1);
    await assert.rejects(
      a.set('/basics', Buffer.from('stale'), 0),
      (e: unknown) => e instanceof ZkBadVersionError && e.code === -103 && e.path === '/basics',
    );
    assert.equal(await a.set('/basics', null, ANY_VERSION), 2);
    assert.equal((await b.get('/basics'))?.data, null);

    await a.create('/basics/child', null);
    assert.deepEqual(await b.getChildren('/basics'), ['child']);
    await assert.rejects(a.delete('/basics', ANY_VERSION), ZkNotEmptyError);
    await assert.rejects(a.delete('/basics/child', 5), ZkBadVersionError);
    await a.delete('/basics/child', 0);
    await a.delete('/basics', 2);
    assert.equal(await a.get('/basics'), null);
    assert.equal(await a.getChildren('/basics'), null);
    assert.equal(await a.exists('/basics'), null);
    await assert.rejects(a.delete('/basics', ANY_VERSION), ZkNoNodeError);
  });

  test('sequential and ephemeral modes; ephemerals vanish with their session', async () => {
    await a.create('/seq', null);
    const first = await a.create('/seq/n-', null, 'persistent_sequential');
    const second = await a.create('/seq/n-', null, 'persistent_sequential');
    assert.match(first, /^\/seq\/n-\d{10}$/);
    assert.ok(second > first);

    const temp = await ZkSession.connect({ connect: zk.connect, ...SESSION });
    await temp.create('/seq/mine', Buffer.from('x'), 'ephemeral');
    assert.match(await temp.create('/seq/e-', null, 'ephemeral_sequential'), /^\/seq\/e-\d{10}$/);
    assert.equal((await a.exists('/seq/mine'))?.ephemeralOwner, temp.sessionId);
    const gone = deferred<ZkWatchEvent>();
    await a.exists('/seq/mine', gone.resolve);
    await temp.close();
    assert.deepEqual(await within(gone.promise, WATCH_MS, 'deletion watch'), { type: 'deleted', path: '/seq/mine' });
    assert.deepEqual((await a.getChildren('/seq'))?.sort(), [first.slice(5), second.slice(5)].sort());
  });

  test('watches fire once, for the first change, in the session that set them', async () => {
    await a.create('/w', Buffer.from('0'));
    const data = deferred<ZkWatchEvent>();
    const children = deferred<ZkWatchEvent>();
    const creation = deferred<ZkWatchEvent>();
    let dataFired = 0;
    await a.get('/w', (e) => {
      dataFired++;
      data.resolve(e);
    });
    await a.getChildren('/w', children.resolve);
    assert.equal(await a.exists('/w/later', creation.resolve), null);

    await b.set('/w', Buffer.from('1'), ANY_VERSION);
    assert.deepEqual(await within(data.promise, WATCH_MS, 'data watch'), { type: 'data_changed', path: '/w' });
    await b.create('/w/later', null);
    assert.deepEqual(await within(creation.promise, WATCH_MS, 'exists watch'), { type: 'created', path: '/w/later' });
    assert.deepEqual(await within(children.promise, WATCH_MS, 'child watch'), { type: 'children_changed', path: '/w' });

    await b.set('/w', Buffer.from('2'), ANY_VERSION);
    // Kept: a second firing, were the watch not one-shot, would come within this time; nothing signals its absence.
    await sleep(300);
    assert.equal(dataFired, 1, 'a watch is one-shot');

    // Two watchers of one znode are both told.
    const one = deferred<ZkWatchEvent>();
    const two = deferred<ZkWatchEvent>();
    await a.get('/w', one.resolve);
    await a.get('/w', two.resolve);
    await b.delete('/w/later', ANY_VERSION);
    await b.delete('/w', ANY_VERSION);
    assert.equal((await within(one.promise, WATCH_MS, 'first watcher')).type, 'deleted');
    assert.equal((await within(two.promise, WATCH_MS, 'second watcher')).type, 'deleted');
  });

  test('multi applies everything or nothing; a failing check names its operation', async () => {
    await a.create('/m', Buffer.from('a'));
    await assert.rejects(
      a.multi([
        { type: 'create', path: '/m/new', data: null },
        { type: 'check', path: '/m', version: 7 },
        { type: 'set', path: '/m', data: Buffer.from('b'), version: ANY_VERSION },
      ]),
      (e: unknown) => e instanceof ZkBadVersionError && e.opIndex === 1 && e.path === '/m',
    );
    assert.equal(await a.exists('/m/new'), null, 'nothing of a failed multi is applied');
    assert.equal((await a.get('/m'))?.data?.toString(), 'a');

    const results = await a
      .multi([
        { type: 'check', path: '/m', version: 0 },
        { type: 'create', path: '/m/new', data: Buffer.from('n'), mode: 'persistent_sequential' },
        { type: 'set', path: '/m', data: Buffer.from('b'), version: 0 },
        { type: 'delete', path: '/m/new', version: ANY_VERSION },
      ])
      .catch((e: unknown) => e);
    // The sequential create got a suffix, so deleting '/m/new' finds nothing: all rolled back.
    assert.ok(results instanceof ZkNoNodeError && results.opIndex === 3);

    const ok = await a.multi([
      { type: 'check', path: '/m', version: 0 },
      { type: 'create', path: '/m/new', data: null },
      { type: 'set', path: '/m', data: Buffer.from('b'), version: 0 },
      { type: 'delete', path: '/m/new', version: 0 },
    ]);
    assert.deepEqual(
      ok.map((r) => r.type),
      ['check', 'create', 'set', 'delete'],
    );
    assert.equal(ok[2]?.type === 'set' ? ok[2].stat.version : -1, 1);

    // An expected version of 0 is checked, not taken for "any" (the npm client's bug, worked around).
    await assert.rejects(a.multi([{ type: 'check', path: '/m', version: 0 }]), ZkBadVersionError);
    await assert.rejects(a.multi([{ type: 'set', path: '/m', data: null, version: 0 }]), ZkBadVersionError);
    await assert.rejects(a.multi([{ type: 'delete', path: '/m', version: 0 }]), ZkBadVersionError);
  });

  test('createRecursive and ensurePath', async () => {
    assert.equal(await a.createRecursive('/r/x/y', Buffer.from('leaf')), '/r/x/y');
    assert.equal((await a.get('/r/x'))?.data, null);
    await assert.rejects(a.createRecursive('/r/x/y', null), ZkNodeExistsError);
    await a.ensurePath('/r/x/y');
    await a.ensurePath('/r/p/q');
    assert.deepEqual((await a.getChildren('/r'))?.sort(), ['p', 'x']);
    assert.equal((await a.get('/r/x/y'))?.data?.toString(), 'leaf');
  });

  test('a chroot is created on connect and paths are relative to it', async (t) => {
    const rooted = await ZkSession.connect({ connect: `${zk.connect}/sluice/cluster-1`, ...SESSION });
    t.after(() => rooted.close());
    assert.equal(await rooted.create('/inside', Buffer.from('1')), '/inside');
    const seen = deferred<ZkWatchEvent>();
    await rooted.get('/inside', seen.resolve);
    await a.set('/sluice/cluster-1/inside', Buffer.from('2'), ANY_VERSION);
    assert.deepEqual(await within(seen.promise, WATCH_MS, 'watch under chroot'), { type: 'data_changed', path: '/inside' });
    assert.deepEqual(await a.getChildren('/sluice/cluster-1'), ['inside']);
  });

  test('connect fails with a typed error after connectionTimeoutMs', async (t) => {
    const proxy = await startTcpProxy(zk.port);
    t.after(() => proxy.close());
    await proxy.cut();
    const started = Date.now();
    await assert.rejects(
      ZkSession.connect({ connect: `127.0.0.1:${proxy.port}`, sessionTimeoutMs: 2_000, connectionTimeoutMs: 800 }),
      (e: unknown) => e instanceof ZkConnectTimeoutError && /127\.0\.0\.1:\d+ within 800 ms/.test(e.message),
    );
    assert.ok(Date.now() - started < 5_000);
    await assert.rejects(ZkSession.connect({ connect: '/only-a-chroot', ...SESSION }), ZkError);
  });

  test('after close, requests fail with ZkClosedError', async () => {
    const s = await ZkSession.connect({ connect: zk.connect, ...SESSION });
    const states: ZkState[] = [];
    s.onStateChange((st) => states.push(st));
    await s.close();
    await assert.rejects(s.get('/'), ZkClosedError);
    assert.deepEqual(states, ['closed']);
    await s.close();
  });

  test('closing while disconnected stops the client for good, even if the server comes back', async (t) => {
    // The npm client would otherwise finish a reconnect attempt after close and throw from its
    // socket handler (an uncaught exception, which fails this file).
    const proxy = await startTcpProxy(zk.port);
    t.after(() => proxy.close());
    const s = await ZkSession.connect({ connect: `127.0.0.1:${proxy.port}`, ...SESSION });
    await proxy.cut();
    await waitFor('the client to notice the cut', 5_000, () => when(s.state === 'disconnected'), 20);
    const pending = s.get('/');
    await s.close();
    await assert.rejects(pending, ZkClosedError);
    await proxy.restore();

    await proxy.cut();
    await assert.rejects(
      ZkSession.connect({ connect: `127.0.0.1:${proxy.port}`, sessionTimeoutMs: 2_000, connectionTimeoutMs: 300 }),
      ZkConnectTimeoutError,
    );
    await proxy.restore();
    // Kept: room for a reconnect after close to throw, which nothing would signal; nothing may happen within it.
    await sleep(1_000);
  });

  test('a partition longer than the session timeout expires the session', { timeout: 30_000 }, async (t) => {
    const proxy = await startTcpProxy(zk.port);
    const s = await ZkSession.connect({ connect: `127.0.0.1:${proxy.port}`, sessionTimeoutMs: 1_000, connectionTimeoutMs: 5_000 });
    t.after(async () => {
      await s.close();
      await proxy.close();
    });
    assert.equal(s.sessionTimeoutMs, 1_000);
    await s.create('/expiring', null, 'ephemeral');
    const expired = deferred<void>();
    s.onSessionExpired(() => expired.resolve());
    const states: ZkState[] = [];
    s.onStateChange((st) => states.push(st));

    await proxy.cut();
    // The server expires the session once it has heard nothing for the timeout.
    await waitFor('the server to expire the session and delete its ephemeral', 10_000, async () =>
      when((await a.exists('/expiring')) === null),
    );
    const pending = s.get('/');
    await proxy.restore();

    await within(expired.promise, 10_000, 'expiry noticed on reconnect');
    assert.deepEqual(states, ['disconnected', 'expired']);
    await assert.rejects(pending, ZkSessionExpiredError);
    await assert.rejects(s.create('/after', null), ZkSessionExpiredError);
    await assert.rejects(s.waitUntilConnected(), ZkSessionExpiredError);
  });
});
