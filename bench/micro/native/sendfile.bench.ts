/**
 * sendfile(2) vs read+write, 256 MiB from the page cache to a loopback socket whose reader is a
 * separate process (so the CPU time measured is the sender's alone). Run:
 * `npx tsc -p . && node dist/bench/micro/native/sendfile.bench.js`
 * A whole-transfer measurement rather than tinybench: one iteration moves 256 MiB.
 */
import { fork } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sendFile } from '../../../src/native/index.js';
import { writeReport, type Row } from './report.js';

const MiB = 1024 * 1024;
const TOTAL = 256 * MiB;
const CHUNK = 1 * MiB; // what a Fetch response would carry per partition, roughly
const ROUNDS = 3;

const readerSource = `
  const net = require('node:net');
  const socket = net.connect(Number(process.argv[1]), '127.0.0.1');
  let received = 0;
  socket.on('data', (d) => { received += d.length; if (received >= ${TOTAL}) { socket.end(); } });
`;

async function withReader(send: (socket: net.Socket) => Promise<void>): Promise<{ seconds: number; cpu: number }> {
  const listener = net.createServer();
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<net.Socket>((resolve) => listener.once('connection', resolve));
  const child = fork('-e', [readerSource, String((listener.address() as net.AddressInfo).port)], { execArgv: [] });
  const socket = await accepted;
  const closed = new Promise<void>((resolve) => socket.once('end', resolve));
  socket.resume();
  const cpuBefore = process.cpuUsage();
  const start = process.hrtime.bigint();
  await send(socket);
  await closed;
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  socket.destroy();
  listener.close();
  child.kill();
  return { seconds, cpu: (cpu.user + cpu.system) / 1e6 };
}

const dir = mkdtempSync(join(tmpdir(), 'sluice-sendfile-bench-'));
const fd = openSync(join(dir, 'segment.log'), 'w+');
try {
  const block = Buffer.alloc(MiB, 0x5a);
  for (let at = 0; at < TOTAL; at += MiB) writeSync(fd, block, 0, MiB, at);

  const viaSendfile = async (socket: net.Socket): Promise<void> => {
    for (let at = 0; at < TOTAL; at += CHUNK) await sendFile(socket, fd, at, CHUNK);
  };
  const viaReadWrite = async (socket: net.Socket): Promise<void> => {
    for (let at = 0; at < TOTAL; at += CHUNK) {
      const buffer = Buffer.allocUnsafe(CHUNK);
      readSync(fd, buffer, 0, CHUNK, at);
      if (!socket.write(buffer)) await new Promise((resolve) => socket.once('drain', resolve));
    }
  };

  const rows: Row[] = [];
  for (const [name, send] of [
    ['sendfile (sluice addon)', viaSendfile],
    ['read + socket.write', viaReadWrite],
  ] as const) {
    let best = { seconds: Infinity, cpu: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const run = await withReader(send);
      if (run.seconds < best.seconds) best = run;
    }
    rows.push({ method: name, 'MB/s': TOTAL / 1e6 / best.seconds, 'sender CPU s per GiB': (best.cpu * 1024 * MiB) / TOTAL });
  }
  writeReport('native-sendfile', 'sendfile vs read+write: 256 MiB to a loopback socket in 1 MiB chunks', rows, [
    `Best of ${ROUNDS} runs. The reader is another process; CPU is the sender process's user+system time (thread pool included).`,
  ]);
} finally {
  closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
}
