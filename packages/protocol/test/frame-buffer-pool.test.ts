import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FrameBufferPool, MIN_POOLED_FRAME_BYTES, holdSharedFrame } from '../src/frame-buffer-pool.js';
import { FrameDecoder } from '../src/framing.js';

const limits = { maxPooledFrameBytes: 1024 * 1024, maxRetainedBytes: 2 * 1024 * 1024 };

test('a frame given back lends its memory to the next frame of a similar size', () => {
  const pool = new FrameBufferPool(limits);
  const first = pool.take(300_000);
  assert.equal(first.length, 300_000);
  pool.give(first);
  assert.equal(pool.retainedBytes, 512 * 1024);
  const second = pool.take(400_000);
  assert.equal(second.buffer, first.buffer);
  assert.equal(second.length, 400_000);
  assert.equal(pool.retainedBytes, 0);
});

test('frames out on loan never share memory', () => {
  const pool = new FrameBufferPool(limits);
  const a = pool.take(100_000);
  const b = pool.take(100_000);
  assert.notEqual(a.buffer, b.buffer);
});

test('a frame given back twice is lent once', () => {
  const pool = new FrameBufferPool(limits);
  const frame = pool.take(100_000);
  pool.give(frame);
  pool.give(frame);
  const a = pool.take(100_000);
  const b = pool.take(100_000);
  assert.equal(a.buffer, frame.buffer);
  assert.notEqual(b.buffer, frame.buffer);
});

test('memory the pool did not lend is never taken in', () => {
  const pool = new FrameBufferPool(limits);
  pool.give(Buffer.allocUnsafe(100_000));
  const lent = pool.take(100_000);
  pool.give(lent.subarray(10));
  assert.equal(pool.retainedBytes, 0);
});

test('small and oversized frames are left to the collector', () => {
  const pool = new FrameBufferPool(limits);
  const small = pool.take(MIN_POOLED_FRAME_BYTES - 1);
  const large = pool.take(limits.maxPooledFrameBytes + 1);
  pool.give(small);
  pool.give(large);
  assert.equal(small.length, MIN_POOLED_FRAME_BYTES - 1);
  assert.equal(large.length, limits.maxPooledFrameBytes + 1);
  assert.equal(pool.retainedBytes, 0);
});

test('free memory beyond the retention limit is dropped', () => {
  const pool = new FrameBufferPool(limits);
  const frames = [pool.take(1024 * 1024), pool.take(1024 * 1024), pool.take(1024 * 1024)];
  for (const f of frames) pool.give(f);
  assert.equal(pool.retainedBytes, 2 * 1024 * 1024);
});

test('the frame decoder assembles frames that span chunks in pooled memory', () => {
  const pool = new FrameBufferPool(limits);
  const payload = Buffer.alloc(200_000, 7);
  const prefix = Buffer.alloc(4);
  prefix.writeInt32BE(payload.length);
  const stream = Buffer.concat([prefix, payload]);
  const decoder = new FrameDecoder(1024 * 1024, (size) => pool.take(size));
  const frames: Buffer[] = [];
  for (let pos = 0; pos < stream.length; pos += 65_536) decoder.push(stream.subarray(pos, pos + 65_536), (f) => frames.push(f));
  assert.equal(frames.length, 1);
  assert.deepEqual(frames[0], payload);
  pool.give(frames[0]);
  assert.equal(pool.retainedBytes, 256 * 1024);
});

test('pooled memory is shared, and a view in a lent frame can be held by its id; other memory cannot', () => {
  const pool = new FrameBufferPool(limits);
  const frame = pool.take(100_000);
  assert.ok(frame.buffer instanceof SharedArrayBuffer);
  const hold = holdSharedFrame(frame.subarray(500, 600));
  assert.ok(hold !== null);
  assert.equal(hold.memory, frame.buffer);
  const other = holdSharedFrame(pool.take(100_000));
  assert.ok(other !== null && other.id !== hold.id, 'each memory has its own id');
  assert.equal(holdSharedFrame(Buffer.alloc(100_000)), null, 'not shared: copied instead');
  assert.equal(holdSharedFrame(pool.take(1000)), null, 'a small frame is not pooled');
  assert.equal(holdSharedFrame(new Uint8Array(new SharedArrayBuffer(100_000))), null, 'shared, but no pool lent it');
  pool.give(frame);
  hold.release();
  assert.equal(holdSharedFrame(frame), null, 'given back and free: no new hold');
});

test('a frame given back while held is lent again only once every hold is released, each counted once', () => {
  const pool = new FrameBufferPool(limits);
  const frame = pool.take(100_000);
  const first = holdSharedFrame(frame.subarray(0, 10))!;
  const second = holdSharedFrame(frame.subarray(10, 20))!;
  pool.give(frame);
  assert.equal(pool.retainedBytes, 0);
  first.release();
  first.release();
  assert.equal(pool.retainedBytes, 0, 'a second release of one hold does not stand in for another');
  assert.notEqual(pool.take(100_000).buffer, frame.buffer);
  second.release();
  assert.equal(pool.retainedBytes, 128 * 1024);
  assert.equal(pool.take(100_000).buffer, frame.buffer);
});

test('holds released before the frame is given back leave the loan as it was', () => {
  const pool = new FrameBufferPool(limits);
  const frame = pool.take(100_000);
  holdSharedFrame(frame)!.release();
  assert.equal(pool.retainedBytes, 0, 'still lent to its frame');
  pool.give(frame);
  assert.equal(pool.retainedBytes, 128 * 1024);
});
