import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Doorbell, createDoorbellBuffer } from '../../../src/ipc/doorbell.js';
import { SpscRingReader, SpscRingWriter, createRingBuffer } from '../../../src/ipc/spsc-ring.js';

/** Two rings from one writer thread to one reader that sleeps on their shared doorbell. */
function lanes(): { doorbell: Doorbell; writers: SpscRingWriter[]; readers: SpscRingReader[]; hasWork: () => boolean } {
  const doorbellBuffer = createDoorbellBuffer();
  const buffers = [createRingBuffer(64), createRingBuffer(64)];
  const writers = buffers.map((b) => new SpscRingWriter(b, { doorbell: new Doorbell(doorbellBuffer) }));
  const readers = buffers.map((b) => new SpscRingReader(b));
  return { doorbell: new Doorbell(doorbellBuffer), writers, readers, hasWork: () => readers.some((r) => r.hasData()) };
}

test('a write to either ring wakes a reader asleep on the doorbell', async () => {
  const { doorbell, writers, readers, hasWork } = lanes();
  for (const lane of [1, 0, 1]) {
    let woke = false;
    const waiting = doorbell.waitForRingAsync(hasWork, Infinity).then(() => (woke = true));
    // Fixed on purpose: the reader must stay asleep, so there is no event to wait for, only time.
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(woke, false, 'asleep while both rings are empty');
    writers[lane]!.tryWriteBytes(new Uint8Array([lane]));
    await waiting;
    assert.deepEqual(readers[lane]!.read(), new Uint8Array([lane]));
    readers[lane]!.release();
  }
});

test('a message already in a ring ends the wait at once; a quiet write does not ring', async () => {
  const { doorbell, writers, readers, hasWork } = lanes();
  writers[1]!.tryWriteBytes(new Uint8Array([9]));
  assert.equal(doorbell.waitForRing(hasWork, 3_600_000), true, 'the re-check finds it without sleeping');
  assert.equal(readers[1]!.read()?.length, 1);

  let woke = false;
  const waiting = doorbell.waitForRingAsync(hasWork, Infinity).then(() => (woke = true));
  assert.equal(writers[0]!.tryWrite(0, null, [new Uint8Array(3)], false), true);
  // Fixed on purpose: the quiet write must not wake the reader, so there is no event to wait for, only time.
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(woke, false, 'no ring for the quiet write');
  doorbell.interrupt();
  await waiting;
  assert.equal(readers[0]!.read()?.length, 3, 'the quiet write is there for the next wake-up');
});

test('with nothing written the blocking wait times out and says so', () => {
  const { doorbell, hasWork } = lanes();
  assert.equal(doorbell.waitForRing(hasWork, 20), false);
});
