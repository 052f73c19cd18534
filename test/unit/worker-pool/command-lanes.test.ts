/**
 * The worker's two command lanes (`ipc/ring-channel.ts`): priority commands are served before
 * ordered commands queued ahead of them, each lane stays FIFO, both wake a sleeping worker, and
 * shutdown answers every priority command sent before it. Real worker threads, the test op
 * module's HOLD to keep a worker busy while commands pile up.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PartitionWorkerHost, type PartitionWorkerHostOptions } from '../../../src/worker-pool/partition-worker-host.js';
import { GATE_BYTES, GATE_HELD, GATE_OPEN, LaneOps, Op, type SeqReply, type TestHandlerOptions } from './fixtures/test-ops.js';
import { randomPause, seededRandom } from './fixtures/random-pace.js';

const opModule = new URL('./fixtures/test-op-module.js', import.meta.url);

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

interface Gated {
  readonly host: PartitionWorkerHost;
  /** Sends HOLD and resolves once the worker is blocked in it; `reply` settles after `open()`. */
  hold(): Promise<{ reply: Promise<Uint8Array> }>;
  open(): void;
}

async function startGated(options: Partial<PartitionWorkerHostOptions> = {}): Promise<Gated> {
  const buffer = new SharedArrayBuffer(GATE_BYTES);
  const gate = new Int32Array(buffer);
  const moduleOptions: TestHandlerOptions = { gate: buffer };
  const host = await PartitionWorkerHost.start({ opModule, workers: 1, moduleOptions, ...options });
  return {
    host,
    async hold() {
      const reply = host.request(0, Op.HOLD);
      const held = Atomics.waitAsync(gate, GATE_HELD, 0);
      if (held.async) await within(held.value, 10_000, 'HOLD');
      return { reply };
    },
    open() {
      Atomics.store(gate, GATE_OPEN, 1);
      Atomics.notify(gate, GATE_OPEN);
    },
  };
}

test('a priority command sent behind queued ordered commands is served before them', async () => {
  const { host, hold, open } = await startGated();
  try {
    const held = (await hold()).reply;
    const finished: string[] = [];
    const ordered = Array.from({ length: 200 }, (_, seq) =>
      host.call(0, LaneOps.ordered, { seq, padding: 4096 }).then((r) => (finished.push(`ordered ${seq}`), r)),
    );
    const priority = host.call(0, LaneOps.priority, { seq: 0, padding: 0 }).then((r) => (finished.push('priority'), r));
    open();
    await within(held, 10_000, 'HOLD');
    const read = await within(priority, 10_000, 'priority');
    const replies = await within(Promise.all(ordered), 10_000, 'ordered');
    assert.deepEqual(read, { inOrder: true, orderedRun: 0 }, 'the priority command ran before every queued ordered command');
    assert.equal(finished[0], 'priority', 'its answer came first');
    replies.forEach((r, seq) => assert.deepEqual(r, { inOrder: true, orderedRun: seq + 1 }));
  } finally {
    await host.close();
  }
});

test('each lane stays in order and loses nothing, through small rings that fill and back up', async () => {
  const { host } = await startGated({ ringCapacity: 8192 });
  try {
    let seed = 7;
    const random = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const next = { ordered: 0, priority: 0 };
    const sent: Promise<SeqReply>[] = [];
    for (let i = 0; i < 4000; i++) {
      const lane = random() < 0.4 ? 'priority' : 'ordered';
      sent.push(host.call(0, LaneOps[lane], { seq: next[lane]++, padding: Math.floor(random() * 2000) }));
      if (i % 500 === 499) await new Promise((resolve) => setImmediate(resolve));
    }
    const replies = await within(Promise.all(sent), 60_000, 'lanes');
    assert.equal(replies.filter((r) => !r.inOrder).length, 0, 'every command arrived in its lane in order');
    // The worker has run every ordered command: the next one of each lane is still in order.
    assert.deepEqual(await host.call(0, LaneOps.ordered, { seq: next.ordered, padding: 0 }), {
      inOrder: true,
      orderedRun: next.ordered + 1,
    });
    assert.deepEqual(await host.call(0, LaneOps.priority, { seq: next.priority, padding: 0 }), {
      inOrder: true,
      orderedRun: next.ordered + 1,
    });
  } finally {
    await host.close();
  }
});

test('low load: single commands on either lane wake an idle worker (no lost wake-up)', async () => {
  // An hour-long idle wait: a lost wake-up would stall rather than be hidden by a timeout.
  const { host } = await startGated({ maxIdleWaitMs: 3_600_000, ringCapacity: 4096 });
  try {
    const random = seededRandom(31);
    const next = { ordered: 0, priority: 0 };
    for (let i = 0; i < 400; i++) {
      const lane = random() < 0.5 ? 'priority' : 'ordered';
      const reply = await within(
        host.call(0, LaneOps[lane], { seq: next[lane]++, padding: Math.floor(random() * 3000) }),
        5000,
        `${lane} command ${i}`,
      );
      assert.ok(reply.inOrder);
      await randomPause(random);
    }
  } finally {
    await host.close();
  }
});

test('shutdown answers every priority command sent before it, even those still waiting for ring space', async () => {
  const { host, hold, open } = await startGated({ ringCapacity: 4096 });
  const held = (await hold()).reply;
  // 1 KiB each through a 4 KiB ring: most wait in the client's backlog when close() is called.
  const priority = Array.from({ length: 200 }, (_, seq) => host.call(0, LaneOps.priority, { seq, padding: 1024 }));
  const closed = host.close();
  open();
  await within(held, 10_000, 'HOLD');
  const replies = await within(Promise.all(priority), 10_000, 'priority');
  replies.forEach((r) => assert.deepEqual(r, { inOrder: true, orderedRun: 0 }));
  await within(closed, 10_000, 'close');
});
