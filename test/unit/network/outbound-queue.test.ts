import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrokerMetrics } from '../../../src/common/metrics/broker-metrics.js';
import { OutboundQueue } from '../../../src/network/outbound-queue.js';
import type { FileRegion } from '../../../src/protocol/primitives/writer.js';
import { parseExposition, total } from '../metrics/prometheus-text-helper.js';

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
    const queue = new OutboundQueue(server, true, metrics, (err) => assert.fail(String(err)), () => idleCalls++);
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
    const queue = new OutboundQueue(server, true, new BrokerMetrics(), (err) => failures.push(err), () => undefined);
    queue.fail(new Error('connection reset'));
    assert.equal(failures.length, 1);
    queue.enqueue([Buffer.from('x'), { fd: 0, position: 0, byteLength: 1, release: () => released.push('late') }]);
    assert.deepEqual(released, ['late']);
  } finally {
    close();
  }
});
