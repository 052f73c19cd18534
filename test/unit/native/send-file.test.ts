import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32c, sendFile, sendFileNow } from '../../../src/native/index.js';

const MiB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'sluice-sendfile-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

/** A temp file whose every MiB is distinct (its index stamped in), so misordered bytes change the CRC. */
function makeFile(name: string, mebibytes: number): number {
  const fd = openSync(join(dir, name), 'w+');
  const block = Buffer.alloc(MiB);
  for (let i = 0; i < block.length; i++) block[i] = (i * 31 + 7) & 0xff;
  for (let m = 0; m < mebibytes; m++) {
    block.writeUInt32BE(m, (m * 4096) % (MiB - 4));
    writeSync(fd, block, 0, MiB, m * MiB);
  }
  return fd;
}

function crcOfRange(fd: number, from: number, to: number, seed: number): number {
  const scratch = Buffer.alloc(MiB);
  let crc = seed;
  for (let at = from; at < to; at += MiB) {
    const n = readSync(fd, scratch, 0, Math.min(MiB, to - at), at);
    crc = crc32c(scratch.subarray(0, n), crc);
  }
  return crc;
}

/** A connected pair: `server` is the accepted side we send from, `client` the reader. */
async function socketPair(): Promise<{ server: net.Socket; client: net.Socket; close: () => void }> {
  const listener = net.createServer();
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<net.Socket>((resolve) => listener.once('connection', resolve));
  const client = net.connect((listener.address() as net.AddressInfo).port, '127.0.0.1');
  const server = await accepted;
  await new Promise<void>((resolve) => (client.connecting ? client.once('connect', resolve) : resolve()));
  return {
    server,
    client,
    close: () => {
      server.destroy();
      client.destroy();
      listener.close();
    },
  };
}

/** Reads exactly `bytes`, pausing every `pauseEvery` bytes to play a slow consumer. */
function slowReader(client: net.Socket, bytes: number, pauseEvery: number): Promise<{ crc: number; pauses: number }> {
  return new Promise((resolve, reject) => {
    let received = 0;
    let crc = 0;
    let sincePause = 0;
    let pauses = 0;
    client.on('data', (data: Buffer) => {
      received += data.length;
      crc = crc32c(data, crc);
      sincePause += data.length;
      if (sincePause >= pauseEvery) {
        sincePause = 0;
        pauses++;
        client.pause();
        setTimeout(() => client.resume(), 2);
      }
      if (received > bytes) reject(new Error(`received ${received} bytes, more than the ${bytes} sent`));
      if (received === bytes) resolve({ crc, pauses });
    });
    client.on('error', reject);
  });
}

function collect(client: net.Socket): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    client.on('data', (data: Buffer) => parts.push(data));
    client.on('end', () => resolve(Buffer.concat(parts)));
    client.on('error', reject);
  });
}

test('256 MiB in 16 MiB chunks, framing writes between them, to a slow reader', async () => {
  const fd = makeFile('big.bin', 256);
  const { server, client, close } = await socketPair();
  try {
    const chunk = 16 * MiB;
    const chunks = 16;
    const frameHeader = (i: number): Buffer => Buffer.from(`chunk${String(i).padStart(3, '0')}`);
    let expectedCrc = 0;
    for (let i = 0; i < chunks; i++) {
      expectedCrc = crcOfRange(fd, i * chunk, (i + 1) * chunk, crc32c(frameHeader(i), expectedCrc));
    }
    const reading = slowReader(client, chunks * (chunk + frameHeader(0).length), 8 * MiB);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    for (let i = 0; i < chunks; i++) {
      server.write(frameHeader(i));
      await sendFile(server, fd, i * chunk, chunk);
    }
    const { crc, pauses } = await reading;
    clearInterval(timer);
    assert.equal(crc, expectedCrc);
    assert.ok(pauses >= 16, 'the reader applied back-pressure');
    assert.ok(ticks > 0, 'the event loop kept running during the transfer');
  } finally {
    close();
    closeSync(fd);
    rmSync(join(dir, 'big.bin'));
  }
});

test('a range from an unaligned position; writes made during the send follow the file bytes', async () => {
  const fd = makeFile('small.bin', 4);
  const { server, client, close } = await socketPair();
  try {
    const received = collect(client);
    server.write('HEAD');
    const sending = sendFile(server, fd, 12345, 3 * MiB + 17);
    server.write('TAIL');
    await sending;
    server.end();
    const bytes = await received;
    const expected = Buffer.alloc(3 * MiB + 17);
    readSync(fd, expected, 0, expected.length, 12345);
    assert.ok(bytes.equals(Buffer.concat([Buffer.from('HEAD'), expected, Buffer.from('TAIL')])));
  } finally {
    close();
    closeSync(fd);
  }
});

test('a peer that resets the connection makes the send fail, not hang', async () => {
  const fd = makeFile('reset.bin', 64);
  const { server, client, close } = await socketPair();
  try {
    // The reset may also surface on the socket's own read side; it must be the same reset.
    const socketErrors: NodeJS.ErrnoException[] = [];
    server.on('error', (error) => socketErrors.push(error));
    client.once('data', () => client.resetAndDestroy());
    const isReset = (error: NodeJS.ErrnoException): boolean => error.code === 'ECONNRESET' || error.code === 'EPIPE';
    await assert.rejects(sendFile(server, fd, 0, 64 * MiB), isReset);
    assert.ok(socketErrors.every(isReset));
  } finally {
    close();
    closeSync(fd);
  }
});

test('destroying the socket locally aborts a send blocked on a reader that stopped reading', async () => {
  const fd = makeFile('stall.bin', 64);
  const { server, client, close } = await socketPair();
  try {
    client.pause();
    const sending = sendFile(server, fd, 0, 64 * MiB);
    setTimeout(() => server.destroy(), 50);
    await assert.rejects(sending, (error: NodeJS.ErrnoException) => error.code === 'EPIPE' || error.code === 'ECONNRESET');
  } finally {
    close();
    closeSync(fd);
  }
});

test('a range past the end of the file, a second concurrent send and bad arguments are refused', async () => {
  const fd = makeFile('short.bin', 1);
  const { server, client, close } = await socketPair();
  try {
    client.resume();
    await assert.rejects(sendFile(server, fd, MiB - 10, 100), { code: 'ERR_SLUICE_SENDFILE_SHORT_FILE' });
    const first = sendFile(server, fd, 0, MiB);
    await assert.rejects(sendFile(server, fd, 0, 10), /already in progress/);
    await first;
    await assert.rejects(sendFile(server, fd, -1, 10), TypeError);
    await assert.rejects(sendFile(server, fd, 0, 1.5), TypeError);
    await assert.rejects(sendFile(server, -3, 0, 1), TypeError);
    await assert.rejects(sendFile(new net.Socket(), fd, 0, 1), /not writable|no file descriptor/);
    await sendFile(server, fd, 0, 0);
  } finally {
    close();
    closeSync(fd);
  }
});

test('sendFileNow sends what the socket takes at once, in order after earlier writes; sendFile sends the rest', async () => {
  const fd = makeFile('now.bin', 32);
  const { server, client, close } = await socketPair();
  try {
    const received = collect(client);
    client.pause(); // nothing is read yet: the socket buffers fill and the send comes up short
    const small = sendFileNow(server, fd, 100, 1000);
    assert.equal(small, 1000, 'a small range goes out whole, on this thread');
    const total = 32 * MiB - 1100;
    const sent = sendFileNow(server, fd, 1100, total);
    assert.ok(sent > 0 && sent < total, `a range larger than the socket buffers is sent in part (${sent} of ${total})`);
    server.write('X');
    assert.equal(sendFileNow(server, fd, 0, 10), 0, 'nothing while a write is queued in the socket');
    client.resume();
    await sendFile(server, fd, 1100 + sent, total - sent);
    server.end();
    const bytes = await received;
    const expected = Buffer.alloc(32 * MiB - 100);
    readSync(fd, expected, 0, expected.length, 100);
    // The 'X' was written after the partial send, so it lands before the rest of the range: the
    // caller (the outbound queue) never writes in between; this shows the kernel order is kept.
    assert.ok(bytes.equals(Buffer.concat([expected.subarray(0, 1000 + sent), Buffer.from('X'), expected.subarray(1000 + sent)])));
  } finally {
    close();
    closeSync(fd);
  }
});

test('sendFileNow to a socket the peer has reset throws the system error', async () => {
  const fd = makeFile('now-reset.bin', 1);
  const { server, client, close } = await socketPair();
  // Node reads the reset later as an 'error' on the socket; the send must not wait for that.
  server.on('error', (err) => assert.match(err.message, /ECONNRESET|EPIPE/));
  try {
    // On loopback the reset reaches the server's socket during this call, before any event-loop
    // turn lets Node notice it: the send itself must report it.
    client.resetAndDestroy();
    assert.throws(
      () => {
        for (let i = 0; i < 100; i++) sendFileNow(server, fd, 0, MiB);
      },
      (err: NodeJS.ErrnoException) => err.code === 'EPIPE' || err.code === 'ECONNRESET',
    );
  } finally {
    close();
    closeSync(fd);
  }
});
