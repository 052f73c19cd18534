/**
 * A framed single-producer single-consumer ring over a SharedArrayBuffer (layout and field
 * ownership: `ring-layout.ts`). One thread holds the `SpscRingWriter`, one other thread the
 * `SpscRingReader`; neither is safe to share between two threads on the same side.
 *
 * Memory ordering. Every `Atomics` operation in JavaScript is sequentially consistent, so an
 * `Atomics.store` is (at least) a release and an `Atomics.load` (at least) an acquire:
 * - producer: write frame bytes (plain) → `Atomics.store(TAIL)`; a consumer whose
 *   `Atomics.load(TAIL)` returns the new tail therefore sees the frame bytes;
 * - consumer: read frame bytes (plain) → `Atomics.store(HEAD)`; a producer whose
 *   `Atomics.load(HEAD)` returns the new head may overwrite those bytes, the reads being done.
 *
 * Wake-ups (no lost wake-up, no notify on the fast path):
 * - consumer: store CONSUMER_SLEEPING = 1 → load TAIL again → wait on TAIL expecting that value;
 *   producer: store TAIL → load CONSUMER_SLEEPING → notify TAIL if 1. Sequential consistency
 *   orders the two store→load pairs: either the producer sees the flag and notifies, or the
 *   consumer's re-check sees the new tail; a notify that comes before the wait starts is caught
 *   because `wait` compares TAIL with the expected value atomically with going to sleep.
 * - producer waiting for space: the mirror image on PRODUCER_WAITING and HEAD.
 * The main thread waits only with `Atomics.waitAsync` (`*Async` methods); the blocking methods
 * are for worker threads.
 */
import type { Doorbell } from './doorbell.js';
import { RingConfigurationError, RingMessageTooLargeError } from './errors.js';
import {
  CONSUMER_SLEEPING_INDEX,
  FRAME_ALIGNMENT,
  HEAD_INDEX,
  HEADER_BYTES,
  LENGTH_PREFIX_BYTES,
  MAX_CAPACITY,
  MIN_CAPACITY,
  PRODUCER_WAITING_INDEX,
  TAIL_INDEX,
  WRAP_MARKER,
  frameBytes,
  maxPayloadBytes,
  ringBufferBytes,
} from './ring-layout.js';
import { waitWhileEqual } from './wait-async.js';

/** Encodes a small header in place, at `offset` in `target` (a view over the ring's data). */
export type HeaderWriter = (target: DataView, offset: number) => void;

/** Allocates the shared memory for a ring with `capacity` data bytes (a multiple of 8). */
export function createRingBuffer(capacity: number): SharedArrayBuffer {
  checkCapacity(capacity);
  return new SharedArrayBuffer(ringBufferBytes(capacity));
}

function checkCapacity(capacity: number): void {
  if (!Number.isInteger(capacity) || capacity < MIN_CAPACITY || capacity > MAX_CAPACITY || capacity % FRAME_ALIGNMENT !== 0) {
    throw new RingConfigurationError(
      `ring capacity must be a multiple of ${FRAME_ALIGNMENT} in [${MIN_CAPACITY}, ${MAX_CAPACITY}], got ${capacity}`,
    );
  }
}

function capacityOf(buffer: SharedArrayBuffer): number {
  const capacity = buffer.byteLength - HEADER_BYTES;
  checkCapacity(capacity);
  return capacity;
}

/** Where the next frame goes, given the free space. */
const enum Placement {
  NoSpace,
  AtTail,
  AfterWrap,
  /** The wrap marker fits but the frame does not yet: writing the marker is progress. */
  WrapMarkerOnly,
}

/** Positions run over two laps so that full and empty differ (see `ring-layout.ts`). */
class RingGeometry {
  readonly capacity: number;
  private readonly laps: number;

  constructor(capacity: number) {
    this.capacity = capacity;
    this.laps = 2 * capacity;
  }

  advance(position: number, bytes: number): number {
    const next = position + bytes;
    return next >= this.laps ? next - this.laps : next;
  }

  used(head: number, tail: number): number {
    const used = tail - head;
    return used < 0 ? used + this.laps : used;
  }

  offsetOf(position: number): number {
    return position >= this.capacity ? position - this.capacity : position;
  }
}

/** The producing end. Exactly one thread writes. */
export class SpscRingWriter {
  readonly capacity: number;
  /** The largest payload `tryWrite` ever accepts; larger ones throw `RingMessageTooLargeError`. */
  readonly maxPayloadBytes: number;
  private readonly cells: Int32Array;
  private readonly bytes: Uint8Array;
  private readonly view: DataView;
  private readonly geometry: RingGeometry;
  /** Only this side stores TAIL, so its own copy is always current. */
  private tail: number;
  /** Last HEAD seen; reloaded only when the cached value shows too little space. */
  private head: number;
  private readonly coalesceWakeups: boolean;
  private readonly doorbell: Doorbell | null;
  private wakeupQueued = false;

  /**
   * `coalesceWakeups`: for a writer on a thread that returns to its event loop (the main thread),
   * wake a sleeping consumer once per turn of that loop instead of once per message — every
   * futex wake costs a system call and a context switch, and a turn often writes many commands.
   * A writer that may block before its loop turns (a worker) must wake at once.
   * `doorbell`: the consumer reads several rings and sleeps on this doorbell instead of on this
   * ring's TAIL (`doorbell.ts`); its reader then waits only through the doorbell.
   */
  constructor(buffer: SharedArrayBuffer, options: { coalesceWakeups?: boolean; doorbell?: Doorbell } = {}) {
    this.coalesceWakeups = options.coalesceWakeups === true;
    this.doorbell = options.doorbell ?? null;
    this.capacity = capacityOf(buffer);
    this.maxPayloadBytes = maxPayloadBytes(this.capacity);
    this.cells = new Int32Array(buffer, 0, HEADER_BYTES / 4);
    this.bytes = new Uint8Array(buffer, HEADER_BYTES, this.capacity);
    this.view = new DataView(buffer, HEADER_BYTES, this.capacity);
    this.geometry = new RingGeometry(this.capacity);
    // Acquire: a writer created on a ring already in use continues after the last frame.
    this.tail = Atomics.load(this.cells, TAIL_INDEX);
    this.head = Atomics.load(this.cells, HEAD_INDEX);
  }

  /**
   * Writes one message — `headerBytes` bytes encoded in place by `writeHeader`, then each payload
   * copied once — and publishes it. Returns false when the ring has no room yet (nothing written
   * except possibly a wrap marker); throws `RingMessageTooLargeError` when it never will.
   * `wake: false` publishes without waking a sleeping consumer: for messages that may wait until
   * the consumer wakes for another reason (its next message or its own timeout).
   */
  tryWrite(headerBytes: number, writeHeader: HeaderWriter | null, payloads: readonly Uint8Array[], wake = true): boolean {
    let length = headerBytes;
    for (let i = 0; i < payloads.length; i++) length += payloads[i]!.byteLength;
    const frame = this.frameFor(length);
    let placement = this.place(frame, this.head);
    if (placement !== Placement.AtTail && placement !== Placement.AfterWrap) {
      // Acquire: the consumer read the frames before HEAD before storing it; we may reuse them.
      this.head = Atomics.load(this.cells, HEAD_INDEX);
      placement = this.place(frame, this.head);
    }
    if (placement === Placement.NoSpace) return false;
    if (placement !== Placement.AtTail) {
      const offset = this.geometry.offsetOf(this.tail);
      this.view.setUint32(offset, WRAP_MARKER, true);
      this.tail = this.geometry.advance(this.tail, this.capacity - offset);
      if (placement === Placement.WrapMarkerOnly) {
        this.publish(wake);
        return false;
      }
    }
    const offset = this.geometry.offsetOf(this.tail);
    this.view.setUint32(offset, length, true);
    let cursor = offset + LENGTH_PREFIX_BYTES;
    if (writeHeader !== null) writeHeader(this.view, cursor);
    cursor += headerBytes;
    for (let i = 0; i < payloads.length; i++) {
      const payload = payloads[i]!;
      this.bytes.set(payload, cursor);
      cursor += payload.byteLength;
    }
    this.tail = this.geometry.advance(this.tail, frame);
    this.publish(wake);
    return true;
  }

  /** `tryWrite` of one byte array with no separate header. */
  tryWriteBytes(payload: Uint8Array): boolean {
    return this.tryWrite(0, null, [payload]);
  }

  /**
   * Main thread: resolves once a message of `payloadLength` bytes can make progress (be written,
   * or have its wrap marker written), or after `timeoutMs`. Never blocks the event loop.
   */
  async waitForSpaceAsync(payloadLength: number, timeoutMs = Infinity): Promise<void> {
    const frame = this.frameFor(payloadLength);
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      // Sequentially consistent store, then the HEAD re-check below: a consumer that stores HEAD
      // after our load sees PRODUCER_WAITING = 1 and notifies.
      Atomics.store(this.cells, PRODUCER_WAITING_INDEX, 1);
      // Acquire, as in tryWrite.
      const head = Atomics.load(this.cells, HEAD_INDEX);
      this.head = head;
      const remaining = deadline - performance.now();
      if (this.place(frame, head) !== Placement.NoSpace || remaining <= 0) break;
      await waitWhileEqual(this.cells, HEAD_INDEX, head, remaining);
    }
    // Plain bookkeeping for the consumer's notify decision; no data depends on its ordering.
    Atomics.store(this.cells, PRODUCER_WAITING_INDEX, 0);
  }

  /** Worker threads: like `waitForSpaceAsync` but blocking. Returns whether progress is possible. */
  waitForSpace(payloadLength: number, timeoutMs: number): boolean {
    const frame = this.frameFor(payloadLength);
    const deadline = performance.now() + timeoutMs;
    let progress = false;
    for (;;) {
      // Same store → re-check protocol as waitForSpaceAsync.
      Atomics.store(this.cells, PRODUCER_WAITING_INDEX, 1);
      // Acquire, as in tryWrite.
      const head = Atomics.load(this.cells, HEAD_INDEX);
      this.head = head;
      progress = this.place(frame, head) !== Placement.NoSpace;
      const remaining = deadline - performance.now();
      if (progress || remaining <= 0) break;
      // Compares HEAD with `head` atomically with going to sleep: an earlier notify is not lost.
      Atomics.wait(this.cells, HEAD_INDEX, head, remaining);
    }
    // Bookkeeping only, as in waitForSpaceAsync.
    Atomics.store(this.cells, PRODUCER_WAITING_INDEX, 0);
    return progress;
  }

  /** Ends a pending `waitForSpaceAsync` early (e.g. when the consumer is gone); producer's thread. */
  interrupt(): void {
    // Wakes our own waitAsync; HEAD is untouched, so the consumer's protocol is unaffected.
    Atomics.notify(this.cells, HEAD_INDEX);
  }

  private frameFor(payloadLength: number): number {
    const frame = frameBytes(payloadLength);
    if (frame > this.capacity) throw new RingMessageTooLargeError(payloadLength, this.maxPayloadBytes);
    return frame;
  }

  private place(frame: number, head: number): Placement {
    const free = this.capacity - this.geometry.used(head, this.tail);
    const contiguous = this.capacity - this.geometry.offsetOf(this.tail);
    if (frame <= contiguous) return frame <= free ? Placement.AtTail : Placement.NoSpace;
    if (contiguous > free) return Placement.NoSpace;
    return frame <= free - contiguous ? Placement.AfterWrap : Placement.WrapMarkerOnly;
  }

  private publish(wake: boolean): void {
    // Release: every frame byte written above is visible to a consumer that loads this TAIL.
    Atomics.store(this.cells, TAIL_INDEX, this.tail);
    if (!wake) return;
    if (!this.coalesceWakeups) {
      this.wakeConsumer();
      return;
    }
    if (this.wakeupQueued) return;
    this.wakeupQueued = true;
    // Still after the TAIL store, so the wake-up protocol holds; only later in the same turn.
    queueMicrotask(() => {
      this.wakeupQueued = false;
      this.wakeConsumer();
    });
  }

  private wakeConsumer(): void {
    if (this.doorbell !== null) {
      this.doorbell.ring();
      return;
    }
    // Sequentially consistent after the TAIL store (see the wake-up protocol in the file comment).
    if (Atomics.load(this.cells, CONSUMER_SLEEPING_INDEX) === 1) {
      // Wakes the one consumer, whether in Atomics.wait or Atomics.waitAsync.
      Atomics.notify(this.cells, TAIL_INDEX, 1);
    }
  }
}

/** The consuming end. Exactly one thread reads. */
export class SpscRingReader {
  readonly capacity: number;
  /** The whole data region; a message read by `next()` is `bytes[payloadOffset, +length)`. */
  readonly bytes: Uint8Array;
  /** The same region as a DataView, for decoding headers in place. */
  readonly view: DataView;
  /** Offset in `bytes`/`view` of the payload of the message `next()` last returned. */
  payloadOffset = 0;
  private readonly cells: Int32Array;
  private readonly geometry: RingGeometry;
  /** Position after the last message handed out. */
  private readPosition: number;
  /** HEAD as last stored: everything before it may already be overwritten. */
  private releasedPosition: number;
  /** Last TAIL seen; reloaded only when reading catches up with it. */
  private tail: number;

  constructor(buffer: SharedArrayBuffer) {
    this.capacity = capacityOf(buffer);
    this.cells = new Int32Array(buffer, 0, HEADER_BYTES / 4);
    this.bytes = new Uint8Array(buffer, HEADER_BYTES, this.capacity);
    this.view = new DataView(buffer, HEADER_BYTES, this.capacity);
    this.geometry = new RingGeometry(this.capacity);
    // Acquire: a reader created on a ring already in use continues from the released point.
    this.readPosition = Atomics.load(this.cells, HEAD_INDEX);
    this.releasedPosition = this.readPosition;
    this.tail = Atomics.load(this.cells, TAIL_INDEX);
  }

  /**
   * Takes the next message: returns its payload length and sets `payloadOffset`, or returns -1
   * when the ring is empty. The payload stays valid (not overwritten) until `release()`.
   */
  next(): number {
    for (;;) {
      if (this.readPosition === this.tail) {
        // Acquire: frame bytes before this TAIL were written before the producer stored it.
        this.tail = Atomics.load(this.cells, TAIL_INDEX);
        if (this.readPosition === this.tail) return -1;
      }
      const offset = this.geometry.offsetOf(this.readPosition);
      const length = this.view.getUint32(offset, true);
      if (length === WRAP_MARKER) {
        this.readPosition = this.geometry.advance(this.readPosition, this.capacity - offset);
        continue;
      }
      this.payloadOffset = offset + LENGTH_PREFIX_BYTES;
      this.readPosition = this.geometry.advance(this.readPosition, frameBytes(length));
      return length;
    }
  }

  /**
   * Whether a message (or a wrap marker) is waiting, loading TAIL afresh when the cached one shows
   * none: the re-check of a consumer that sleeps on a doorbell (`doorbell.ts`).
   */
  hasData(): boolean {
    if (this.readPosition !== this.tail) return true;
    // Acquire, as in next(); sequentially consistent after the doorbell's SLEEPING store.
    this.tail = Atomics.load(this.cells, TAIL_INDEX);
    return this.readPosition !== this.tail;
  }

  /** `next()` as a view over ring memory (no copy), valid until `release()`; null when empty. */
  read(): Uint8Array | null {
    const length = this.next();
    return length < 0 ? null : this.bytes.subarray(this.payloadOffset, this.payloadOffset + length);
  }

  /** Hands every message taken so far back to the producer; their views become invalid. */
  release(): void {
    if (this.readPosition === this.releasedPosition) return;
    this.releasedPosition = this.readPosition;
    // Release: our reads of the freed frames are done before the producer can see this HEAD.
    Atomics.store(this.cells, HEAD_INDEX, this.readPosition);
    // Sequentially consistent after the HEAD store (mirror of the consumer wake-up protocol).
    if (Atomics.load(this.cells, PRODUCER_WAITING_INDEX) === 1) {
      // Wakes the one producer waiting for space.
      Atomics.notify(this.cells, HEAD_INDEX, 1);
    }
  }

  /**
   * Worker threads: releases what was read, then sleeps until a message arrives or `timeoutMs`
   * passes. Returns true if a message is (probably) available.
   */
  waitForData(timeoutMs: number): boolean {
    this.release();
    const tail = this.announceSleep();
    if (tail !== this.readPosition) return this.wake(true);
    // Compares TAIL with `tail` atomically with going to sleep: a publish in between is seen.
    const outcome = Atomics.wait(this.cells, TAIL_INDEX, tail, timeoutMs);
    return this.wake(outcome !== 'timed-out');
  }

  /**
   * Main thread: releases what was read, then resolves when a message arrives, after `timeoutMs`,
   * or on `interrupt()`. Never blocks the event loop.
   */
  async waitForDataAsync(timeoutMs = Infinity): Promise<void> {
    this.release();
    const tail = this.announceSleep();
    if (tail === this.readPosition) await waitWhileEqual(this.cells, TAIL_INDEX, tail, timeoutMs);
    this.wake(true);
  }

  /** Ends a pending `waitForDataAsync` early (e.g. on shutdown); safe from the consumer's thread. */
  interrupt(): void {
    // Wakes our own waitAsync; TAIL is untouched, so the producer's protocol is unaffected.
    Atomics.notify(this.cells, TAIL_INDEX);
  }

  private announceSleep(): number {
    // Sequentially consistent store, then the TAIL re-check: a producer storing TAIL after our
    // load sees CONSUMER_SLEEPING = 1 and notifies.
    Atomics.store(this.cells, CONSUMER_SLEEPING_INDEX, 1);
    // Acquire, as in next().
    this.tail = Atomics.load(this.cells, TAIL_INDEX);
    return this.tail;
  }

  private wake(result: boolean): boolean {
    // Only saves the producer a notify; the protocol is safe whatever it reads here.
    Atomics.store(this.cells, CONSUMER_SLEEPING_INDEX, 0);
    return result;
  }
}
