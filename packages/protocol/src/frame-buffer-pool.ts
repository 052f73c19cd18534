/**
 * Reusable memory for request frames that span socket chunks. A fresh `Buffer.allocUnsafe` per
 * large frame is an external ArrayBuffer allocation, and V8 answers young external memory with
 * early scavenges: under uncompressed produce, pooled frames halve the main thread's scavenges.
 * A frame handed back with `give` is lent again for a later frame.
 *
 * The memory is a SharedArrayBuffer, so that other threads can read a frame's bytes where they
 * are instead of receiving a copy (a produce batch, read by the partition worker that appends
 * it). Each buffer has an id, unique in this thread, by which such a reader names it.
 *
 * Only the caller knows when no view of a frame survives (a handler may keep `bytes` fields
 * as views on it); it gives back only those frames, and at most once: a buffer is lent to one
 * frame at a time, and a second `give` of the same frame, or a frame the pool did not lend, is
 * ignored. A reader in another thread takes a hold (`holdSharedFrame`) before it is told where
 * the bytes are, and a frame given back is lent again only once every hold on it is released:
 * so the frame's owner and its readers need not know of each other. Owned by the main thread.
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

/**
 * A hold on the shared memory under a view: the memory is not lent to another frame until
 * `release`. Release it once the other thread can no longer read the bytes (it has answered);
 * if that is never known for sure, never release it: the collector then takes the memory.
 */
export interface SharedFrameHold {
  /** The memory's id: a reader that has been sent the memory once knows it by this. */
  readonly id: number;
  readonly memory: SharedArrayBuffer;
  /** Idempotent. */
  release(): void;
}

/** One pooled buffer and its loan state. */
interface PooledMemory {
  readonly id: number;
  readonly memory: SharedArrayBuffer;
  readonly pool: FrameBufferPool;
  /** Puts the buffer back on its pool's free list (or drops it, beyond the retention limit). */
  readonly reclaim: () => void;
  /** Holds not yet released. */
  holds: number;
  /** Out on loan: lent by `take` and not yet given back. */
  lent: boolean;
}

/** Every pooled buffer of this thread, whichever pool lent it. */
const pooled = new WeakMap<SharedArrayBuffer, PooledMemory>();
let nextId = 1;

export class FrameBufferPool {
  readonly #limits: FrameBufferPoolLimits;
  /** Free buffers by capacity (a power of two). */
  readonly #free = new Map<number, PooledMemory[]>();
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
    let entry = this.#free.get(capacity)?.pop();
    if (entry !== undefined) {
      this.#retainedBytes -= capacity;
    } else {
      const memory = new SharedArrayBuffer(capacity);
      const created: PooledMemory = { id: nextId++, memory, pool: this, reclaim: () => this.#reclaim(created), holds: 0, lent: false };
      pooled.set(memory, created);
      entry = created;
    }
    entry.lent = true;
    return Buffer.from(entry.memory, 0, size);
  }

  /** Takes back a frame from `take` once nothing in this thread refers to its bytes any more. */
  give(frame: Buffer): void {
    const memory = frame.buffer;
    if (!(memory instanceof SharedArrayBuffer) || frame.byteOffset !== 0) return;
    const entry = pooled.get(memory);
    if (entry === undefined || entry.pool !== this || !entry.lent) return;
    entry.lent = false;
    if (entry.holds === 0) this.#reclaim(entry);
  }

  #reclaim(entry: PooledMemory): void {
    const capacity = entry.memory.byteLength;
    if (this.#retainedBytes + capacity > this.#limits.maxRetainedBytes) return;
    let free = this.#free.get(capacity);
    if (free === undefined) this.#free.set(capacity, (free = []));
    free.push(entry);
    this.#retainedBytes += capacity;
  }
}

/**
 * A hold on the pooled memory `view` lies in, while it is lent to a frame; null for memory no
 * pool lent (the caller then copies the bytes).
 */
export function holdSharedFrame(view: Uint8Array): SharedFrameHold | null {
  const memory = view.buffer;
  if (!(memory instanceof SharedArrayBuffer)) return null;
  const entry = pooled.get(memory);
  if (entry === undefined || !entry.lent) return null;
  entry.holds++;
  let held = true;
  return {
    id: entry.id,
    memory,
    release: () => {
      if (!held) return;
      held = false;
      entry.holds--;
      if (entry.holds === 0 && !entry.lent) entry.reclaim();
    },
  };
}

/** The power of two that holds `size`, so one buffer serves every frame of similar size. */
function capacityFor(size: number): number {
  return 2 ** Math.ceil(Math.log2(size));
}
