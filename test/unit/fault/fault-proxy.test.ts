// The fault proxy (tools/fault/fault-proxy.ts) over real loopback sockets: it forwards, resets
// every connection and each new one, or holds them all without forwarding and resumes them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFaultProxy } from '../../../tools/fault/fault-proxy.js';

/** An upstream that echoes and counts what it received. */
async function echoServer(): Promise<{ server: Server; port: number; received: () => number }> {
  let received = 0;
  const server = createServer((s) =>
    s
      .on('data', (d: Buffer) => {
        received += d.length;
        s.write(d);
      })
      .on('error', () => undefined),
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  return { server, port: typeof address === 'object' && address !== null ? address.port : 0, received: () => received };
}

async function open(port: number): Promise<Socket> {
  const s = connect({ host: '127.0.0.1', port });
  await once(s, 'connect');
  return s;
}

async function echoed(s: Socket, text: string): Promise<string> {
  s.write(text);
  let got = '';
  while (got.length < text.length) got += ((await once(s, 'data')) as [Buffer])[0].toString();
  return got;
}

const ended = (s: Socket): Promise<string> =>
  new Promise((resolve) => {
    s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    s.once('close', () => resolve('closed'));
  });

test('forwards both ways, and a reset cuts every connection and refuses new ones until healed', async () => {
  const upstream = await echoServer();
  const proxy = await startFaultProxy(upstream.port);
  try {
    const s = await open(proxy.port);
    assert.equal(await echoed(s, 'hello'), 'hello');
    const cut = ended(s);
    proxy.setMode('reset');
    assert.equal(await cut, 'ECONNRESET');
    const refused = connect({ host: '127.0.0.1', port: proxy.port });
    assert.equal(await ended(refused), 'ECONNRESET');
    proxy.setMode('forward');
    const again = await open(proxy.port);
    assert.equal(await echoed(again, 'back'), 'back');
    again.destroy();
  } finally {
    await proxy.close();
    upstream.server.close();
  }
});

test('a black hole forwards nothing and closes nothing; healed, held bytes arrive once', async () => {
  const upstream = await echoServer();
  const proxy = await startFaultProxy(upstream.port);
  try {
    const held = await open(proxy.port);
    assert.equal(await echoed(held, 'a'), 'a');
    proxy.setMode('blackhole');
    proxy.setMode('blackhole');
    held.write('bc');
    const fresh = await open(proxy.port);
    fresh.write('de');
    // Fixed on purpose: nothing may arrive upstream, so there is no event to wait for, only time.
    await sleep(200);
    assert.equal(upstream.received(), 1, 'nothing forwarded while black-holed');
    assert.equal(held.destroyed || fresh.destroyed, false, 'no connection closed');
    proxy.setMode('forward');
    proxy.setMode('forward');
    let heldBack = '';
    while (heldBack.length < 2) heldBack += ((await once(held, 'data')) as [Buffer])[0].toString();
    let freshBack = '';
    while (freshBack.length < 2) freshBack += ((await once(fresh, 'data')) as [Buffer])[0].toString();
    assert.deepEqual([heldBack, freshBack, upstream.received()], ['bc', 'de', 5]);
    held.destroy();
    fresh.destroy();
  } finally {
    await proxy.close();
    upstream.server.close();
  }
});

test("limited to one process, a mode cuts only that process's connections", async () => {
  const upstream = await echoServer();
  const proxy = await startFaultProxy(upstream.port);
  try {
    const mine = await open(proxy.port);
    const cut = ended(mine);
    // This test's own process opened the connection: cut from another pid, it still flows.
    proxy.setMode('reset', process.pid + 1_000_000);
    assert.equal(await echoed(mine, 'still'), 'still');
    proxy.setMode('reset', process.pid);
    assert.equal(await cut, 'ECONNRESET');
    assert.equal(await ended(connect({ host: '127.0.0.1', port: proxy.port })), 'ECONNRESET');
    proxy.setMode('forward');
    const again = await open(proxy.port);
    assert.equal(await echoed(again, 'back'), 'back');
    again.destroy();
  } finally {
    await proxy.close();
    upstream.server.close();
  }
});
