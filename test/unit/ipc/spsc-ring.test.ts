import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { RingConfigurationError, RingMessageTooLargeError } from '../../../src/ipc/errors.js';
import { frameBytes } from '../../../src/ipc/ring-layout.js';
import { SpscRingReader, SpscRingWriter, createRingBuffer } from '../../../src/ipc/spsc-ring.js';
import { ErrorCode } from '@sluice/protocol/errors.js';

function ring(capacity: number): { writer: SpscRingWriter; reader: SpscRingReader } {
  const buffer = createRingBuffer(capacity);
  return { writer: new SpscRingWriter(buffer), reader: new SpscRingReader(buffer) };
}

/** Distinct content per message so a misplaced or stale frame is caught. */
function message(seq: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (seq * 31 + i * 7) & 0xff;
  return bytes;
}

test('messages of odd sizes come out whole and in order across many wrap-arounds', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 2, max: 40 }).map((n) => n * 8),
      fc.array(fc.tuple(fc.boolean(), fc.nat({ max: 1000 })), { minLength: 1, maxLength: 400 }),
      (capacity, steps) => {
        const { writer, reader } = ring(capacity);
        const model: Uint8Array[] = [];
        let seq = 0;
        for (const [write, size] of steps) {
          if (write) {
            const bytes = message(seq, size % (writer.maxPayloadBytes + 1));
            if (writer.tryWriteBytes(bytes)) {
              model.push(bytes);
              seq++;
            }
          } else {
            const view = reader.read();
            if (model.length === 0) assert.equal(view, null);
            else assert.deepEqual(view && Uint8Array.from(view), model.shift());
            reader.release();
          }
        }
        for (let view = reader.read(); view !== null; view = reader.read()) assert.deepEqual(Uint8Array.from(view), model.shift());
        assert.equal(model.length, 0);
      },
    ),
    { numRuns: 300 },
  );
});

test('a full ring refuses writes until the reader releases, and then accepts them', () => {
  const { writer, reader } = ring(64);
  const payload = message(1, 8); // 16-byte frames: exactly four fit
  for (let i = 0; i < 4; i++) assert.equal(writer.tryWriteBytes(payload), true);
  assert.equal(writer.tryWriteBytes(new Uint8Array(0)), false);
  assert.ok(reader.read());
  assert.equal(writer.tryWriteBytes(payload), false, 'space is reusable only after release()');
  reader.release();
  assert.equal(writer.tryWriteBytes(payload), true);
  let count = 0;
  while (reader.read() !== null) count++;
  assert.equal(count, 4);
});

test('a message exactly as large as the ring fits from any position, after its wrap marker is consumed', () => {
  const capacity = 104;
  const { writer, reader } = ring(capacity);
  const whole = message(9, writer.maxPayloadBytes);
  assert.equal(frameBytes(whole.length), capacity);
  assert.equal(writer.tryWriteBytes(whole), true, 'from position 0 it fits at once');
  assert.deepEqual(Uint8Array.from(reader.read()!), whole);
  reader.release();
  for (let shift = 0; shift < 5; shift++) {
    assert.equal(writer.tryWriteBytes(message(shift, 8 * shift + 3)), true);
    assert.ok(reader.read());
    reader.release();
    // Mid-ring: only the wrap marker can be written now; the reader skips it.
    assert.equal(writer.tryWriteBytes(whole), false);
    assert.equal(reader.read(), null);
    reader.release();
    assert.equal(writer.tryWriteBytes(whole), true);
    assert.deepEqual(Uint8Array.from(reader.read()!), whole);
    reader.release();
  }
});

test('a message larger than the ring is rejected with MESSAGE_TOO_LARGE, and the ring stays usable', () => {
  const { writer, reader } = ring(64);
  assert.throws(
    () => writer.tryWriteBytes(new Uint8Array(writer.maxPayloadBytes + 1)),
    (error: unknown) => error instanceof RingMessageTooLargeError && error.code === ErrorCode.MESSAGE_TOO_LARGE && error.maxBytes === 56,
  );
  assert.equal(writer.tryWriteBytes(message(2, 5)), true);
  assert.deepEqual(Uint8Array.from(reader.read()!), message(2, 5));
});

test('capacities that are not multiples of 8, too small or too large are refused', () => {
  for (const capacity of [0, 8, 100, 2 ** 30 + 8, 1.5]) assert.throws(() => createRingBuffer(capacity), RingConfigurationError);
});

test('a header is encoded in place and payloads follow it in one frame', () => {
  const { writer, reader } = ring(256);
  const payloads = [message(1, 3), message(2, 0), message(3, 17)];
  const written = writer.tryWrite(
    6,
    (view, offset) => {
      view.setUint32(offset, 0xdeadbeef, true);
      view.setUint16(offset + 4, 513, true);
    },
    payloads,
  );
  assert.equal(written, true);
  const length = reader.next();
  assert.equal(length, 6 + 20);
  assert.equal(reader.view.getUint32(reader.payloadOffset, true), 0xdeadbeef);
  assert.equal(reader.view.getUint16(reader.payloadOffset + 4, true), 513);
  const rest = reader.bytes.subarray(reader.payloadOffset + 6, reader.payloadOffset + length);
  assert.deepEqual(Uint8Array.from(rest), Uint8Array.from([...payloads[0]!, ...payloads[2]!]));
  assert.equal(rest.buffer instanceof SharedArrayBuffer, true, 'the view is ring memory, not a copy');
});

test('waitForSpaceAsync resolves when the reader frees space, without polling', async () => {
  const { writer, reader } = ring(32);
  assert.equal(writer.tryWriteBytes(message(1, 20)), true);
  assert.equal(writer.tryWriteBytes(message(2, 20)), false);
  let resolved = false;
  const waiting = writer.waitForSpaceAsync(20).then(() => (resolved = true));
  // Fixed on purpose: the wait must not resolve yet, so there is no event to wait for, only time.
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(resolved, false);
  assert.ok(reader.read());
  reader.release();
  await waiting;
  assert.equal(writer.tryWriteBytes(message(2, 20)), true);
});

test('waitForDataAsync resolves on a write, and at once when data is already there', async () => {
  const { writer, reader } = ring(64);
  let woke = false;
  const waiting = reader.waitForDataAsync().then(() => (woke = true));
  // Fixed on purpose: the wait must not resolve yet, so there is no event to wait for, only time.
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(woke, false);
  writer.tryWriteBytes(message(1, 1));
  await waiting;
  await reader.waitForDataAsync();
  assert.equal(reader.read()?.length, 1);
});

test('waitForDataAsync with a timeout ends on time when nothing comes', async () => {
  const { reader } = ring(64);
  const start = performance.now();
  await reader.waitForDataAsync(30);
  assert.ok(performance.now() - start >= 25);
  assert.equal(reader.read(), null);
});

test('a write without wake-up publishes the message but leaves a sleeping reader asleep until the next write that wakes', async () => {
  const { writer, reader } = ring(64);
  let woke = false;
  const waiting = reader.waitForDataAsync().then(() => (woke = true));
  assert.equal(writer.tryWrite(0, null, [message(1, 3)], false), true);
  // Fixed on purpose: the quiet write must not wake the reader, so there is no event to wait for, only time.
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(woke, false, 'no notify for the quiet write');
  writer.tryWriteBytes(message(2, 2));
  await waiting;
  assert.deepEqual([reader.read()?.length, reader.read()?.length, reader.read()], [3, 2, null]);
});
