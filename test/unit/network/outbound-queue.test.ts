import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { connect as connectTls, createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrokerMetrics } from '../../../src/common/metrics/broker-metrics.js';
import { OutboundQueue } from '../../../src/network/outbound-queue.js';
import type { FileRegion } from '@sluice/protocol/primitives/writer.js';
import { parseExposition, total } from '../metrics/prometheus-text-helper.js';
import { testTlsFiles } from '../../helpers/tls-files.js';
import { waitFor, when } from '../../helpers/wait-for.js';

async function socketPair(): Promise<{ client: Socket; server: Socket; close: () => void }> {
  const srv = createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const address = srv.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  const accepted = once(srv, 'connection') as Promise<[Socket]>;
  const client = connect(address.port, '127.0.0.1');
  await once(client, 'connect');
  const [server] = await accepted;
  return { client, server, close: () => (client.destroy(), server.destroy(), srv.close()) };
}

test('buffers and file ranges reach the peer in order, each range is released once, and the bytes are counted by path', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-outbound-'));
  const path = join(dir, 'segment.log');
  const file = Buffer.alloc(300_000);
  for (let i = 0; i < file.length; i++) file[i] = i % 251;
  writeFileSync(path, file);
  const fd = openSync(path, 'r');
  const { client, server, close } = await socketPair();
  try {
    const released: number[] = [];
    const region = (position: number, byteLength: number, id: number): FileRegion => ({
      fd,
      position,
      byteLength,
      release: () => released.push(id),
    });
    const received: Buffer[] = [];
    client.on('data', (d: Buffer) => received.push(d));
    let idleCalls = 0;
    const metrics = new BrokerMetrics();
    const queue = new OutboundQueue(
      server,
      true,
      metrics,
      (err) => assert.fail(String(err)),
      () => idleCalls++,
    );
    queue.enqueue([Buffer.from('A'), region(10, 200_000, 1), Buffer.from('B')]);
    queue.enqueue([region(0, 5, 2)]);
    queue.enqueue([Buffer.from('C')]);
    const expected = Buffer.concat([Buffer.from('A'), file.subarray(10, 200_010), Buffer.from('B'), file.subarray(0, 5), Buffer.from('C')]);
    while (Buffer.concat(received).length < expected.length) await once(client, 'data');
    assert.deepEqual(Buffer.concat(received), expected);
    assert.deepEqual(released, [1, 2]);
    assert.ok(queue.idle && idleCalls > 0, 'the queue reports when everything is handed to the socket');
    const sent = parseExposition(await metrics.registry.metrics());
    assert.equal(total(sent, 'sluice_network_bytes_sent_total', { path: 'zero_copy' }), 200_005);
    assert.equal(total(sent, 'sluice_network_bytes_sent_total', { path: 'buffered' }), 3);
  } finally {
    close();
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('after a failure every queued and later file range is released without being sent', async () => {
  const { server, close } = await socketPair();
  try {
    const released: string[] = [];
    const failures: unknown[] = [];
    const queue = new OutboundQueue(
      server,
      true,
      new BrokerMetrics(),
      (err) => failures.push(err),
      () => undefined,
    );
    queue.fail(new Error('connection reset'));
    assert.equal(failures.length, 1);
    queue.enqueue([Buffer.from('x'), { fd: 0, position: 0, byteLength: 1, release: () => released.push('late') }]);
    assert.deepEqual(released, ['late']);
  } finally {
    close();
  }
});

async function tlsPair(): Promise<{ client: TLSSocket; server: TLSSocket; close: () => void }> {
  const f = testTlsFiles();
  const srv = createTlsServer({ key: readFileSync(f.brokerPem), cert: readFileSync(f.brokerPem) });
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const address = srv.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  const accepted = once(srv, 'secureConnection') as Promise<[TLSSocket]>;
  const client = connectTls({ port: address.port, host: '127.0.0.1', ca: readFileSync(f.caCert), servername: 'localhost' });
  await once(client, 'secureConnect');
  const [server] = await accepted;
  return { client, server, close: () => (client.destroy(), server.destroy(), srv.close()) };
}

function segmentFile(bytes: number): { path: string; file: Buffer; fd: number; cleanUp: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-outbound-tls-'));
  const path = join(dir, 'segment.log');
  const file = Buffer.alloc(bytes);
  for (let i = 0; i < file.length; i++) file[i] = (i * 7) % 253;
  writeFileSync(path, file);
  const fd = openSync(path, 'r');
  return { path, file, fd, cleanUp: () => (closeSync(fd), rmSync(dir, { recursive: true, force: true })) };
}

test('on a TLS socket file ranges are read and written through it in order, with backpressure, each released once', async () => {
  const seg = segmentFile(24_000_000);
  const { client, server, close } = await tlsPair();
  try {
    const released: number[] = [];
    const region = (position: number, byteLength: number, id: number): FileRegion => ({
      fd: seg.fd,
      position,
      byteLength,
      release: () => released.push(id),
    });
    const metrics = new BrokerMetrics();
    const queue = new OutboundQueue(
      server,
      false,
      metrics,
      (err) => assert.fail(String(err)),
      () => undefined,
    );
    // The client reads nothing at first: more than the kernel's buffers hold, the range waits for 'drain' rather than buffering it all.
    client.pause();
    queue.enqueue([Buffer.from('A'), region(100, 23_000_000, 1), Buffer.from('B')]);
    queue.enqueue([region(0, 10, 2), Buffer.from('C')]);
    // Fixed on purpose: the queue must not buffer the range however long the client stalls, so there is only time to wait.
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(server.writableLength < 1_000_000, `buffered ${server.writableLength} bytes: the copy waits for the socket`);
    assert.deepEqual(released, [], 'nothing is released before it is sent');
    const expected = Buffer.concat([
      Buffer.from('A'),
      seg.file.subarray(100, 23_000_100),
      Buffer.from('B'),
      seg.file.subarray(0, 10),
      Buffer.from('C'),
    ]);
    const received: Buffer[] = [];
    let length = 0;
    client.on('data', (d: Buffer) => (received.push(d), (length += d.length)));
    client.resume();
    while (length < expected.length) await once(client, 'data');
    assert.ok(Buffer.concat(received).equals(expected));
    assert.deepEqual(released, [1, 2]);
    assert.ok(queue.idle);
    const sent = parseExposition(await metrics.registry.metrics());
    assert.equal(total(sent, 'sluice_network_bytes_sent_total', { path: 'zero_copy' }), 0);
    assert.equal(total(sent, 'sluice_network_bytes_sent_total', { path: 'buffered' }), 23_000_013);
  } finally {
    close();
    seg.cleanUp();
  }
});

test('on a TLS socket that closes mid-copy, the range being copied and every queued one are released exactly once', async () => {
  const seg = segmentFile(4_000_000);
  const { client, server, close } = await tlsPair();
  try {
    const released: number[] = [];
    const region = (id: number): FileRegion => ({ fd: seg.fd, position: 0, byteLength: 4_000_000, release: () => released.push(id) });
    client.pause();
    const queue = new OutboundQueue(
      server,
      false,
      new BrokerMetrics(),
      () => undefined,
      () => undefined,
    );
    // As Connection does: the socket's close fails the queue.
    server.on('close', () => queue.fail());
    server.on('error', () => undefined);
    queue.enqueue([region(1)]);
    queue.enqueue([region(2)]);
    await waitFor('the copy of the first range to start', 5000, () => when(server.writableLength > 0 || server.bytesWritten > 0), 5);
    client.destroy();
    await waitFor('both ranges released', 5000, () => when(released.length >= 2), 10);
    // Fixed on purpose: a second release of either range would come within these 50 ms.
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual([...released].sort(), [1, 2]);
  } finally {
    close();
    seg.cleanUp();
  }
});
