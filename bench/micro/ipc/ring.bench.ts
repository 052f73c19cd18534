/**
 * Main thread → worker transport: one-way throughput (16 B, 64 KiB, 1 MiB messages) and
 * request/reply round trips through a real partition worker, against `postMessage` with
 * structured clone and with transfer, in the same run.
 * Run: `npx tsc -p . && node dist/bench/micro/ipc/ring.bench.js`
 */
import { randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { DEFAULT_RING_CAPACITY } from '../../../src/ipc/ring-channel.js';
import { SpscRingWriter, createRingBuffer } from '../../../src/ipc/spsc-ring.js';
import { PartitionWorkerHost } from '../../../src/worker-pool/partition-worker-host.js';
import { writeReport, type Row } from '../native/report.js';
import type { BenchWorkerData, SinkReport } from './bench-worker.js';
import { ECHO_OP } from './echo-op-module.js';

const workerUrl = new URL('./bench-worker.js', import.meta.url);
const MiB = 1024 * 1024;

function spawn(data: BenchWorkerData): Worker {
  return new Worker(workerUrl, { workerData: data });
}

function reportOf(worker: Worker): Promise<SinkReport> {
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

function sizeLabel(size: number): string {
  return size >= MiB ? `${size / MiB} MiB` : size >= 1024 ? `${size / 1024} KiB` : `${size} B`;
}

/** Messages per run, sized to take about a second at the expected rate. */
function messagesFor(size: number): number {
  return size <= 64 ? 3_000_000 : size <= 64 * 1024 ? 40_000 : 3_000;
}

async function ringOneWay(size: number): Promise<number> {
  const messages = messagesFor(size);
  const ring = createRingBuffer(DEFAULT_RING_CAPACITY);
  const writer = new SpscRingWriter(ring);
  const worker = spawn({ mode: 'ring-sink', ring, messages });
  await new Promise((resolve) => worker.once('online', resolve));
  const done = reportOf(worker);
  const payloads = [randomBytes(size)];
  const start = performance.now();
  for (let sent = 0; sent < messages;) {
    if (writer.tryWrite(0, null, payloads)) sent++;
    else await writer.waitForSpaceAsync(size);
  }
  const report = await done;
  const seconds = (performance.now() - start) / 1000;
  if (report.messages !== messages || report.bytes !== messages * size) throw new Error(`ring sink saw ${report.messages} messages`);
  await worker.terminate();
  return messages / seconds;
}

async function postOneWay(size: number, transfer: boolean): Promise<number> {
  const messages = Math.max(1, Math.floor(messagesFor(size) / (size <= 64 ? 10 : 1)));
  const worker = spawn({ mode: 'port-sink', messages });
  await new Promise((resolve) => worker.once('online', resolve));
  const done = reportOf(worker);
  const source = randomBytes(size);
  const start = performance.now();
  for (let i = 0; i < messages; i++) {
    if (transfer) {
      // The same single copy the ring makes (socket buffer → message), into a buffer given away.
      const message = new Uint8Array(size);
      message.set(source);
      worker.postMessage(message, [message.buffer]);
    } else {
      worker.postMessage(source);
    }
    // Let the port drain now and then, as a broker's event loop would between socket reads.
    if (i % 1024 === 1023) await new Promise((resolve) => setImmediate(resolve));
  }
  const report = await done;
  const seconds = (performance.now() - start) / 1000;
  if (report.messages !== messages) throw new Error(`port sink saw ${report.messages} messages`);
  await worker.terminate();
  return messages / seconds;
}

/** Round trips per second with `inFlight` concurrent callers, after a warm-up of a tenth as many. */
async function roundTripsPerSecond(total: number, inFlight: number, roundTrip: () => Promise<unknown>): Promise<number> {
  const run = async (count: number): Promise<number> => {
    let started = 0;
    const lane = async (): Promise<void> => {
      while (started < count) {
        started++;
        await roundTrip();
      }
    };
    const start = performance.now();
    await Promise.all(Array.from({ length: inFlight }, lane));
    return count / ((performance.now() - start) / 1000);
  };
  await run(Math.floor(total / 10));
  return run(total);
}

async function ringRoundTrips(inFlight: number): Promise<number> {
  const host = await PartitionWorkerHost.start({ opModule: new URL('./echo-op-module.js', import.meta.url), workers: 1 });
  const body = { payloads: [randomBytes(16)] };
  const perSecond = await roundTripsPerSecond(inFlight === 1 ? 100_000 : 400_000, inFlight, () => host.request(0, ECHO_OP, body));
  await host.close();
  return perSecond;
}

async function postRoundTrips(inFlight: number): Promise<number> {
  const worker = spawn({ mode: 'port-echo' });
  await new Promise((resolve) => worker.once('online', resolve));
  const payload = randomBytes(16);
  const waiting: (() => void)[] = [];
  worker.on('message', () => waiting.shift()?.());
  const perSecond = await roundTripsPerSecond(
    inFlight === 1 ? 50_000 : 200_000,
    inFlight,
    () =>
      new Promise<void>((resolve) => {
        waiting.push(resolve);
        worker.postMessage(payload);
      }),
  );
  worker.postMessage('stop');
  await worker.terminate();
  return perSecond;
}

const rows: Row[] = [];
function oneWayRow(size: number, transport: string, perSecond: number): void {
  rows.push({ benchmark: 'one-way', size: sizeLabel(size), transport, 'msgs/s': Math.round(perSecond), 'MiB/s': (perSecond * size) / MiB });
}
for (const size of [16, 64 * 1024, MiB]) {
  oneWayRow(size, 'SPSC ring (8 MiB)', await ringOneWay(size));
  oneWayRow(size, 'postMessage (clone)', await postOneWay(size, false));
  oneWayRow(size, 'postMessage (transfer)', await postOneWay(size, true));
}
for (const inFlight of [1, 64]) {
  const label = `round trip, ${inFlight} in flight`;
  rows.push({
    benchmark: label,
    size: '16 B',
    transport: 'ring channel + worker host',
    'msgs/s': Math.round(await ringRoundTrips(inFlight)),
    'MiB/s': '',
  });
  rows.push({
    benchmark: label,
    size: '16 B',
    transport: 'postMessage (clone)',
    'msgs/s': Math.round(await postRoundTrips(inFlight)),
    'MiB/s': '',
  });
}
writeReport('ipc-ring', 'Main thread ↔ worker transport', rows, [
  'One-way: the main thread produces, a worker consumes (ring: reads the first byte of each view, releases every 64 messages or 256 KiB; postMessage: receives the message). Timed until the worker reports the last message.',
  'Round trips: `PartitionWorkerHost.request` to a worker whose handler echoes the body from ring memory, vs `postMessage` to a worker that posts it back.',
]);
