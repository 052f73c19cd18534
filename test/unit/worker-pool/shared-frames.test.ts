// Produce batches that lie in pooled request frames reach the partition worker as references to
// the frame's shared memory. Checked here against real worker threads: the worker reads the
// bytes where they are, a worker started late learns every memory it meets, and a frame given
// back while a worker may still read it is lent again only once that worker has answered — or
// never, when the worker died on it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomFillSync } from 'node:crypto';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { FrameBufferPool } from '@sluice/protocol/frame-buffer-pool.js';
import { PartitionWorkerUnavailableError } from '../../../src/worker-pool/errors.js';
import { PartitionWorkerHost, type PartitionWorkerHostOptions } from '../../../src/worker-pool/partition-worker-host.js';
import { FrameOps } from './fixtures/test-ops.js';

const opModule = new URL('./fixtures/test-op-module.js', import.meta.url);
const limits = { maxPooledFrameBytes: 1024 * 1024, maxRetainedBytes: 4 * 1024 * 1024 };
const FRAME_BYTES = 100_000;

function start(options: Partial<PartitionWorkerHostOptions> = {}): Promise<PartitionWorkerHost> {
  return PartitionWorkerHost.start({ opModule, workers: 1, ...options });
}

/** A pooled frame full of random bytes. */
function filledFrame(pool: FrameBufferPool): Buffer {
  return randomFillSync(pool.take(FRAME_BYTES));
}

const sha256 = (bytes: Uint8Array): Buffer => createHash('sha256').update(bytes).digest();

test('a worker reads the bytes in the frame; a frame given back before the answer is lent again only after it', async () => {
  const host = await start();
  const pool = new FrameBufferPool(limits);
  try {
    const frame = filledFrame(pool);
    const records = frame.subarray(1000, 91_000);
    const expected = sha256(records);
    const reading = host.call(0, FrameOps.read, { bytes: records, delayMs: 100, mode: 'digest' });
    // As when the Produce is answered before its append (a timeout, a closed connection).
    pool.give(frame);
    const next = pool.take(FRAME_BYTES);
    assert.notEqual(next.buffer, frame.buffer, 'a frame a worker may still read is not lent');
    next.fill(0);
    assert.deepEqual(Buffer.from(await reading), expected, 'the worker read the bytes as they were sent');
    assert.equal(pool.take(FRAME_BYTES).buffer, frame.buffer, 'answered: the frame is lent again');
  } finally {
    await host.close();
  }
});

test('a worker started by its first request learns every frame it meets, in any order', async () => {
  const host = await start({ workers: 2, startOwnersOf: [] });
  const pool = new FrameBufferPool(limits);
  try {
    assert.deepEqual(host.startedWorkers(), []);
    const frames = [filledFrame(pool), filledFrame(pool), filledFrame(pool)];
    for (const worker of [1, 0]) {
      for (const index of [0, 2, 1, 0, 2]) {
        const bytes = frames[index]!.subarray(index * 10, FRAME_BYTES - index);
        assert.deepEqual(
          Buffer.from(await host.call(worker, FrameOps.read, { bytes, delayMs: 0, mode: 'digest' })),
          sha256(bytes),
          `worker ${worker}, frame ${index}`,
        );
      }
    }
    assert.deepEqual(host.startedWorkers(), [0, 1]);
  } finally {
    await host.close();
  }
});

test('an error answer ends the hold: the frame is lent again', async () => {
  const host = await start();
  const pool = new FrameBufferPool(limits);
  try {
    const frame = filledFrame(pool);
    const failing = host.call(0, FrameOps.read, { bytes: frame, delayMs: 20, mode: 'fail' });
    pool.give(frame);
    await assert.rejects(failing, (error: unknown) => error instanceof KafkaError && error.code === ErrorCode.CORRUPT_MESSAGE);
    assert.equal(pool.take(FRAME_BYTES).buffer, frame.buffer);
  } finally {
    await host.close();
  }
});

test('a frame a dead worker may have been reading is never lent again: the collector takes it', async () => {
  const host = await start({ onWorkerLost: () => undefined });
  const pool = new FrameBufferPool(limits);
  try {
    const frame = filledFrame(pool);
    const crashing = host.call(0, FrameOps.read, { bytes: frame, delayMs: 0, mode: 'crash' });
    await assert.rejects(crashing, PartitionWorkerUnavailableError);
    pool.give(frame);
    assert.equal(pool.retainedBytes, 0);
    assert.notEqual(pool.take(FRAME_BYTES).buffer, frame.buffer);
  } finally {
    await host.close().catch(() => undefined);
  }
});

test('a posted command may not name shared frames: nothing would release them', async () => {
  const host = await start();
  const pool = new FrameBufferPool(limits);
  try {
    const frame = filledFrame(pool);
    assert.throws(() => host.postOp(0, FrameOps.post, { bytes: frame, delayMs: 0, mode: 'digest' }), RangeError);
    pool.give(frame);
    assert.equal(pool.take(FRAME_BYTES).buffer, frame.buffer, 'the refused command holds nothing');
  } finally {
    await host.close();
  }
});
