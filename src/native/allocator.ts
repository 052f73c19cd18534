/**
 * How the process's C allocator returns memory, for a broker process (`sluice start` sets it).
 *
 * Node reads each socket chunk into a newly allocated 64 KiB buffer, freed when the collector
 * takes the chunk. By default glibc hands a freed heap top beyond 128 KiB back to the kernel, so
 * under produce load the next reads fault the same pages in again, zero-filled: about one page
 * fault per 4 KiB received, ~20% of a broker's CPU per GB produced (docs/journal/performance.md).
 * Keeping freed heap for reuse ends that; the memory kept is bounded by the heap's peak, and
 * RSS then stays at it rather than following each collection down.
 */
import { native } from './binding.js';

/** Freed heap the allocator keeps for reuse in a broker process. */
export const BROKER_KEPT_FREE_HEAP_BYTES = 64 * 1024 * 1024;

/** Returns false where the C library has no such setting (not glibc). */
export function keepFreedHeap(bytes: number = BROKER_KEPT_FREE_HEAP_BYTES): boolean {
  return native().keepFreedHeap(bytes);
}
