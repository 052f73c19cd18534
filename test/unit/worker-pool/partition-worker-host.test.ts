import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { RingMessageTooLargeError } from '../../../src/ipc/errors.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { PartitionWorkerUnavailableError } from '../../../src/worker-pool/errors.js';
import { PartitionWorkerHost, type PartitionWorkerHostOptions } from '../../../src/worker-pool/partition-worker-host.js';
import { workerForPartition } from '../../../src/worker-pool/partition-routing.js';
import { Op, generated, type TestHandlerOptions } from './fixtures/test-ops.js';
import { randomPause, seededRandom } from './fixtures/random-pace.js';

const opModule = new URL('./fixtures/test-op-module.js', import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'sluice-worker-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

function start(options: Partial<PartitionWorkerHostOptions> & { moduleOptions?: TestHandlerOptions } = {}): Promise<PartitionWorkerHost> {
  return PartitionWorkerHost.start({ opModule, workers: 2, ...options });
}

/** Fails the test instead of hanging when a wake-up is lost. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)),
  );
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const u32s = (...values: number[]): Uint8Array => {
  const bytes = new Uint8Array(4 * values.length);
  values.forEach((value, i) => new DataView(bytes.buffer).setUint32(4 * i, value, true));
  return bytes;
};
const sleepEcho = (ms: number, bytes: Uint8Array): Uint8Array => Uint8Array.from([...u32s(ms), ...bytes]);
const isUnavailable = (reason: string) => (error: unknown) =>
  error instanceof PartitionWorkerUnavailableError && error.code === ErrorCode.KAFKA_STORAGE_ERROR && error.reason === reason;

test('requests reach the worker that owns the partition, and replies carry in-place headers', async () => {
  const host = await start({ workers: 3 });
  try {
    assert.equal(host.size, 3);
    for (let partition = 0; partition < 6; partition++) {
      const reply = await host.requestFor('orders', partition, Op.WHO);
      assert.equal(new DataView(reply.buffer).getUint32(0, true), host.workerFor('orders', partition));
    }
    const payload = randomBytes(1000);
    assert.deepEqual(Buffer.from(await host.request(2, Op.ECHO, { payloads: [payload.subarray(0, 10), payload.subarray(10)] })), payload);
  } finally {
    await host.close();
  }
});

test('handler errors, unknown ops and oversize bodies reject with their Kafka codes; the channel stays usable', async () => {
  const host = await start({ workers: 1, ringCapacity: 4096 });
  try {
    const code = new Uint8Array(2);
    new DataView(code.buffer).setInt16(0, ErrorCode.NOT_LEADER_OR_FOLLOWER, true);
    await assert.rejects(
      host.request(0, Op.FAIL, { payloads: [code] }),
      (error: unknown) =>
        error instanceof KafkaError && error.code === ErrorCode.NOT_LEADER_OR_FOLLOWER && /failed on request/.test(error.message),
    );
    await assert.rejects(
      host.request(0, 999),
      (error: unknown) => error instanceof KafkaError && error.code === ErrorCode.UNKNOWN_SERVER_ERROR,
    );
    await assert.rejects(host.request(0, 0xffff), RangeError, 'transport ops are not for callers');
    await assert.rejects(
      host.request(0, Op.ECHO, { payloads: [new Uint8Array(4096)] }),
      (error: unknown) => error instanceof RingMessageTooLargeError && error.code === ErrorCode.MESSAGE_TOO_LARGE,
    );
    await assert.rejects(
      host.request(0, Op.GENERATE, { payloads: [u32s(1, 5000)] }),
      (error: unknown) => error instanceof KafkaError && error.code === ErrorCode.MESSAGE_TOO_LARGE,
      'a reply too large for the reply ring',
    );
    assert.deepEqual(Array.from(await host.request(0, Op.ECHO, { payloads: [Uint8Array.of(7)] })), [7]);
  } finally {
    await host.close();
  }
});

test('posted commands run in order with the requests around them, send no reply, and a failing one does not break the channel', async () => {
  const host = await start({ workers: 1 });
  try {
    const parts = [randomBytes(100), randomBytes(5000), randomBytes(1)];
    host.post(0, Op.RECORD, { payloads: [parts[0]!] });
    host.post(0, Op.FAIL, { payloads: [Uint8Array.of(0, 3)] });
    host.post(0, Op.RECORD, { payloads: [parts[1]!] });
    await host.request(0, Op.RECORD, { payloads: [parts[2]!] });
    const expected = createHash('sha256').update(parts[0]!).update(parts[1]!).update(parts[2]!).digest();
    assert.deepEqual(Buffer.from(await host.request(0, Op.DIGEST)), expected);
    assert.throws(() => host.post(0, 0xffff, { payloads: [] }), RangeError, 'transport ops are not for callers');
  } finally {
    await host.close();
  }
});

test('requestDecoded decodes the reply in ring memory; a decoder that throws rejects only its request', async () => {
  const host = await start({ workers: 1 });
  try {
    const sum = await host.requestDecoded(0, Op.ECHO, { payloads: [Uint8Array.of(1, 2, 3, 4)] }, (body) => body.reduce((a, b) => a + b, 0));
    assert.equal(sum, 10);
    await assert.rejects(
      host.requestDecoded(0, Op.ECHO, { payloads: [Uint8Array.of(9)] }, () => {
        throw new TypeError('bad reply');
      }),
      TypeError,
    );
    assert.deepEqual(Array.from(await host.request(0, Op.ECHO, { payloads: [Uint8Array.of(7)] })), [7]);
  } finally {
    await host.close();
  }
});

test('replies complete out of order and each reaches its own request', async () => {
  const host = await start({ workers: 1 });
  try {
    const order: string[] = [];
    const slow = host
      .request(0, Op.SLEEP_ECHO, { payloads: [sleepEcho(150, Uint8Array.of(1))] })
      .then((reply) => (order.push('slow'), reply));
    const middle = host
      .request(0, Op.SLEEP_ECHO, { payloads: [sleepEcho(50, Uint8Array.of(2))] })
      .then((reply) => (order.push('middle'), reply));
    const quick = host.request(0, Op.ECHO, { payloads: [Uint8Array.of(3)] }).then((reply) => (order.push('quick'), reply));
    assert.deepEqual(
      (await within(Promise.all([slow, middle, quick]), 5000, 'out-of-order replies')).map((reply) => Array.from(reply)),
      [[1], [2], [3]],
    );
    assert.deepEqual(order, ['quick', 'middle', 'slow']);
  } finally {
    await host.close();
  }
});

test('stress: millions of bytes of random-size messages both ways through small rings, in order and intact', async () => {
  // 64 KiB + 24 bytes per direction: frames up to the whole ring, constant wrap-around and backpressure.
  const host = await start({ workers: 1, ringCapacity: 65_560 });
  try {
    let seed = 12345;
    const random = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const size = (): number => {
      const kind = random();
      return kind < 0.5 ? Math.floor(random() * 64) : kind < 0.9 ? Math.floor(random() * 8192) : 40_000 + Math.floor(random() * 25_000);
    };
    const sent = createHash('sha256');
    let bytesToWorker = 0;
    let bytesFromWorker = 0;
    const resolvedOrder: number[] = [];
    const window = new Set<Promise<void>>();
    for (let i = 0; i < 1500; i++) {
      const choice = random();
      let done: Promise<void>;
      if (choice < 0.4) {
        const body = randomBytes(size());
        sent.update(body);
        bytesToWorker += body.length;
        done = host.request(0, Op.RECORD, { payloads: [body] }).then(() => void resolvedOrder.push(i));
      } else if (choice < 0.7) {
        const body = randomBytes(size());
        bytesToWorker += body.length;
        bytesFromWorker += body.length;
        done = host.request(0, Op.ECHO, { payloads: [body] }).then((reply) => {
          assert.ok(Buffer.from(reply).equals(body), `echo ${i} differs`);
          resolvedOrder.push(i);
        });
      } else {
        const length = size();
        bytesFromWorker += length;
        done = host.request(0, Op.GENERATE, { payloads: [u32s(i + 1, length)] }).then((reply) => {
          assert.ok(Buffer.from(reply).equals(generated(i + 1, length)), `generated ${i} differs`);
          resolvedOrder.push(i);
        });
      }
      window.add(done);
      void done.finally(() => window.delete(done));
      if (window.size >= 48) await within(Promise.race(window), 5000, `message ${i}`);
    }
    await within(Promise.all(window), 5000, 'last messages');
    const digest = await host.request(0, Op.DIGEST);
    assert.ok(Buffer.from(digest).equals(sent.digest()), 'the worker saw the RECORD bodies in send order');
    assert.deepEqual(
      resolvedOrder,
      [...resolvedOrder].sort((a, b) => a - b),
      'synchronous replies come back in request order',
    );
    assert.ok(bytesToWorker > 5_000_000 && bytesFromWorker > 5_000_000, `${bytesToWorker} bytes sent, ${bytesFromWorker} received`);
  } finally {
    await host.close();
  }
});

test('low load: single messages with pauses never stall (no lost wake-up on either side)', async () => {
  // An hour-long idle wait: a lost wake-up would stall rather than be hidden by a timeout.
  const host = await start({ workers: 1, maxIdleWaitMs: 3_600_000, ringCapacity: 4096 });
  try {
    const random = seededRandom(99);
    for (let i = 0; i < 400; i++) {
      const body = randomBytes(Math.floor(random() * 3000));
      const reply = await within(host.request(0, Op.ECHO, { payloads: [body] }), 2000, `message ${i}`);
      assert.ok(Buffer.from(reply).equals(body));
      await randomPause(random);
    }
  } finally {
    await host.close();
  }
});

test('periodic ticks run while the worker is idle in Atomics.wait', async () => {
  const host = await start({ workers: 1, maxIdleWaitMs: 3_600_000, moduleOptions: { tickMs: 10 } });
  try {
    // Fixed on purpose: the worker must sit idle (a request would wake it), and count its ticks over a known time.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ticks = new DataView((await host.request(0, Op.WHO)).buffer).getUint32(4, true);
    assert.ok(ticks >= 10, `only ${ticks} ticks in 300 ms`);
  } finally {
    await host.close();
  }
});

test('1 MiB batches go through the default rings and are appended to a file straight from ring memory', async () => {
  const file = join(dir, 'append.log');
  const host = await start({ workers: 1, moduleOptions: { appendFile: file } });
  try {
    const batches = [randomBytes(1024 * 1024), randomBytes(1024 * 1024 - 3), randomBytes(17)];
    let expectedSize = 0;
    for (const batch of batches) {
      expectedSize += batch.length;
      const reply = await host.request(0, Op.APPEND, { payloads: [batch] });
      assert.equal(new DataView(reply.buffer).getUint32(0, true), expectedSize);
    }
    await host.close();
    assert.ok(readFileSync(file).equals(Buffer.concat(batches)));
  } finally {
    await host.close();
  }
});

test('a worker that dies rejects its pending and later requests with KAFKA_STORAGE_ERROR; the others carry on', async () => {
  const lost: PartitionWorkerUnavailableError[] = [];
  const host = await start({ workers: 3, onWorkerLost: (error) => lost.push(error) });
  try {
    const parked = host.request(0, Op.SLEEP_ECHO, { payloads: [sleepEcho(10_000, Uint8Array.of(1))] });
    const crash = host.request(0, Op.CRASH);
    await within(assert.rejects(parked, isUnavailable('crashed')), 5000, 'parked request on a crashed worker');
    assert.deepEqual(Array.from(await crash), [], 'its reply was written before the crash, so it is delivered');
    await assert.rejects(host.request(0, Op.ECHO), isUnavailable('crashed'));
    assert.equal(host.isAvailable(0), false);

    const exiting = host.request(1, Op.EXIT, { payloads: [Uint8Array.of(3)] });
    await within(assert.rejects(exiting, isUnavailable('exited')), 5000, 'request to a worker that exits');
    const partitionOnWorker1 = [0, 1, 2].find((partition) => host.workerFor('t', partition) === 1)!;
    await assert.rejects(host.requestFor('t', partitionOnWorker1, Op.ECHO), isUnavailable('exited'));

    assert.deepEqual(Array.from(await host.request(2, Op.ECHO, { payloads: [Uint8Array.of(5)] })), [5]);
    assert.deepEqual(
      lost.map((error) => [error.workerIndex, error.reason]),
      [
        [0, 'crashed'],
        [1, 'exited'],
      ],
    );
  } finally {
    await within(host.close(), 5000, 'close with dead workers');
  }
});

test('clean shutdown finishes in-flight work, runs close hooks, then refuses requests', async () => {
  const marker = join(dir, 'closed.txt');
  const host = await start({ workers: 2, moduleOptions: { closeMarkerFile: marker, tickMs: 5 } });
  const inFlight = host.request(1, Op.SLEEP_ECHO, { payloads: [sleepEcho(100, Uint8Array.of(9, 9))] });
  await within(host.close(), 5000, 'close');
  assert.deepEqual(Array.from(await inFlight), [9, 9]);
  assert.deepEqual(readFileSync(marker, 'utf8').split('\n').filter(Boolean).sort(), ['closed 0', 'closed 1']);
  await assert.rejects(host.request(0, Op.ECHO), isUnavailable('closed'));
});

test('after close() no thread is left: a process that used the host exits by itself', async () => {
  const script = new URL('./fixtures/shutdown-scenario.js', import.meta.url);
  const output = await new Promise<string>((resolve, reject) => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- ExecFileException is an Error, typed as an Omit<>
    execFile(process.execPath, [script.pathname], { timeout: 15_000 }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
  });
  assert.equal(output.trim(), 'done 1,2,3');
});

test('an op module without registerOps fails start() loudly', async () => {
  await assert.rejects(
    PartitionWorkerHost.start({ opModule: new URL('./fixtures/test-ops.js', import.meta.url), workers: 1 }),
    (error: unknown) =>
      error instanceof PartitionWorkerUnavailableError && error.reason === 'start-failed' && /registerOps/.test(error.message),
  );
});

test('with startOwnersOf, only the owners of those partitions start; another worker starts on its first request, which it then serves', async () => {
  const owner = workerForPartition('on-disk', 0, 3);
  const host = await start({ workers: 3, startOwnersOf: [{ topic: 'on-disk', partition: 0 }] });
  try {
    assert.deepEqual(host.startedWorkers(), [owner]);
    const idle = [0, 1, 2].find((w) => w !== owner)!;
    assert.equal(host.isStarted(idle), false);
    // A posted command waits in the ring without starting the worker; the first request starts it.
    host.post(idle, Op.RECORD, { payloads: [Uint8Array.of(1)] });
    assert.equal(host.isStarted(idle), false);
    const [who, digest] = await within(
      Promise.all([host.request(idle, Op.WHO), host.request(idle, Op.DIGEST)]),
      10_000,
      'the lazily started worker',
    );
    assert.equal(new DataView(who.buffer).getUint32(0, true), idle);
    assert.deepEqual(Buffer.from(digest), createHash('sha256').update(Uint8Array.of(1)).digest(), 'the posted command ran first');
    assert.deepEqual(host.startedWorkers(), [owner, idle].sort());
  } finally {
    await host.close();
  }
});

test('close() with workers never started stops the started ones; later requests to any worker reject as closed', async () => {
  const host = await start({ workers: 2, startOwnersOf: [] });
  assert.deepEqual(host.startedWorkers(), []);
  await host.request(1, Op.ECHO);
  await within(host.close(), 10_000, 'close');
  await assert.rejects(host.request(0, Op.ECHO), isUnavailable('closed'));
  await assert.rejects(host.request(1, Op.ECHO), isUnavailable('closed'));
  assert.equal(host.isStarted(0), false, 'a request after close starts nothing');
});

test('a worker that fails to start on its first request is lost: the request rejects as start-failed and onWorkerLost hears it', async () => {
  const lost: PartitionWorkerUnavailableError[] = [];
  const host = await PartitionWorkerHost.start({
    opModule: new URL('./fixtures/test-ops.js', import.meta.url),
    workers: 2,
    startOwnersOf: [],
    onWorkerLost: (e) => lost.push(e),
  });
  try {
    await assert.rejects(within(host.request(0, Op.ECHO), 10_000, 'the failed start'), isUnavailable('start-failed'));
    assert.equal(host.isAvailable(0), false);
    assert.equal(host.isAvailable(1), true);
    assert.deepEqual(
      lost.map((e) => e.reason),
      ['start-failed'],
    );
  } finally {
    await host.close();
  }
});
