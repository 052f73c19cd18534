/**
 * Reusable memory for request frames that span socket chunks. A fresh `Buffer.allocUnsafe` per
 * large frame is an external ArrayBuffer allocation, and V8 answers young external memory with
 * early scavenges: under uncompressed produce, pooled frames halve the main thread's scavenges.
 * A frame handed back with `give` is lent again for a later frame.
 *
 * Only the caller knows when no view of a frame survives (a handler may keep `bytes` fields
 * as views on it); it gives back only those frames, and at most once: a buffer is lent to one
 * frame at a time, and a second `give` of the same frame, or a frame the pool did not lend, is
 * ignored. Owned by the main thread.
 */

/** Frames below this fit in one 64 KiB socket chunk more often than not; a pool gains little. */
export const MIN_POOLED_FRAME_BYTES = 64 * 1024;

export interface FrameBufferPoolLimits {
  /** Frames above this are allocated and left to the collector. */
  readonly maxPooledFrameBytes: number;
  /** Free memory the pool keeps at most; a buffer given back beyond it is dropped. */
  readonly maxRetainedBytes: number;
}

export const DEFAULT_FRAME_POOL_LIMITS: FrameBufferPoolLimits = {
  maxPooledFrameBytes: 8 * 1024 * 1024,
  maxRetainedBytes: 32 * 1024 * 1024,
};

export class FrameBufferPool {
  readonly #limits: FrameBufferPoolLimits;
  /** Free buffers by capacity (a power of two). */
  readonly #free = new Map<number, ArrayBuffer[]>();
  /** Buffers out on loan: only these may come back. */
  readonly #lent = new WeakSet<ArrayBuffer>();
  #retainedBytes = 0;

  constructor(limits: FrameBufferPoolLimits = DEFAULT_FRAME_POOL_LIMITS) {
    this.#limits = limits;
  }

  /** Free bytes held for later frames. */
  get retainedBytes(): number {
    return this.#retainedBytes;
  }

  /** A buffer of exactly `size` bytes, contents undefined. */
  take(size: number): Buffer {
    if (size < MIN_POOLED_FRAME_BYTES || size > this.#limits.maxPooledFrameBytes) return Buffer.allocUnsafe(size);
    const capacity = capacityFor(size);
    const reused = this.#free.get(capacity)?.pop();
    if (reused !== undefined) this.#retainedBytes -= capacity;
    const memory = reused ?? new ArrayBuffer(capacity);
    this.#lent.add(memory);
    return Buffer.from(memory, 0, size);
  }

  /** Takes back a frame from `take` once nothing refers to its bytes any more. */
  give(frame: Buffer): void {
    const memory = frame.buffer;
    if (!(memory instanceof ArrayBuffer) || frame.byteOffset !== 0 || !this.#lent.has(memory)) return;
    this.#lent.delete(memory);
    if (this.#retainedBytes + memory.byteLength > this.#limits.maxRetainedBytes) return;
    let free = this.#free.get(memory.byteLength);
    if (free === undefined) this.#free.set(memory.byteLength, (free = []));
    free.push(memory);
    this.#retainedBytes += memory.byteLength;
  }
}

/** The power of two that holds `size`, so one buffer serves every frame of similar size. */
function capacityFor(size: number): number {
  return 2 ** Math.ceil(Math.log2(size));
}
