/**
 * One wake-up for a consumer that reads several rings from the same producer (a worker's
 * command lanes): each ring's writer rings the doorbell after it publishes, and the consumer
 * sleeps on the doorbell alone, whichever ring the next message comes on. Layout:
 * `ring-layout.ts`. The producer side is the rings' writer thread, the sleeping side their
 * reader thread.
 *
 * No lost wake-up (every JS `Atomics` operation is sequentially consistent):
 * - consumer: load SEQUENCE → store SLEEPING = 1 → re-check every ring's TAIL → wait on
 *   SEQUENCE expecting the value loaded first;
 * - producer: store TAIL (publish) → load SLEEPING → if 1, add 1 to SEQUENCE and notify it.
 * Of the two store→load pairs one sees the other's store: either the consumer's re-check finds
 * the message, or the producer bumps SEQUENCE after the consumer loaded it, and the wait, which
 * compares SEQUENCE atomically with going to sleep, returns at once or is woken by the notify.
 */
import { DOORBELL_BYTES, DOORBELL_SEQUENCE_INDEX, DOORBELL_SLEEPING_INDEX } from './ring-layout.js';
import { waitWhileEqual } from './wait-async.js';

export function createDoorbellBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(DOORBELL_BYTES);
}

export class Doorbell {
  private readonly cells: Int32Array;

  constructor(buffer: SharedArrayBuffer) {
    this.cells = new Int32Array(buffer, 0, DOORBELL_BYTES / 4);
  }

  /** Producer: call after publishing a message (after its TAIL store). */
  ring(): void {
    // Sequentially consistent after the caller's TAIL store (see the protocol above).
    if (Atomics.load(this.cells, DOORBELL_SLEEPING_INDEX) === 1) {
      // A new value, so that a wait that has not started yet does not start.
      Atomics.add(this.cells, DOORBELL_SEQUENCE_INDEX, 1);
      // Wakes the one consumer, whether in Atomics.wait or Atomics.waitAsync.
      Atomics.notify(this.cells, DOORBELL_SEQUENCE_INDEX, 1);
    }
  }

  /**
   * Worker threads: sleeps until the doorbell rings or `timeoutMs` passes, unless `hasWork()`
   * (which must load the rings' TAILs) finds a message first. Returns false on timeout.
   */
  waitForRing(hasWork: () => boolean, timeoutMs: number): boolean {
    const sequence = this.announceSleep();
    if (hasWork()) return this.wake(true);
    // Compares SEQUENCE with `sequence` atomically with going to sleep: a ring in between is seen.
    return this.wake(Atomics.wait(this.cells, DOORBELL_SEQUENCE_INDEX, sequence, timeoutMs) !== 'timed-out');
  }

  /** `waitForRing` without blocking the event loop; also ends early on `interrupt()`. */
  async waitForRingAsync(hasWork: () => boolean, timeoutMs: number): Promise<void> {
    const sequence = this.announceSleep();
    if (!hasWork()) await waitWhileEqual(this.cells, DOORBELL_SEQUENCE_INDEX, sequence, timeoutMs);
    this.wake(true);
  }

  /** Consumer's thread: ends its own pending `waitForRingAsync` early. */
  interrupt(): void {
    // Wakes our own waitAsync; SEQUENCE is untouched, so the producer's protocol is unaffected.
    Atomics.notify(this.cells, DOORBELL_SEQUENCE_INDEX);
  }

  private announceSleep(): number {
    // Loaded before SLEEPING is stored: any ring after this load changes SEQUENCE from it.
    const sequence = Atomics.load(this.cells, DOORBELL_SEQUENCE_INDEX);
    // Sequentially consistent store, then the caller's TAIL re-checks (see the protocol above).
    Atomics.store(this.cells, DOORBELL_SLEEPING_INDEX, 1);
    return sequence;
  }

  private wake(result: boolean): boolean {
    // Only saves the producer a notify; the protocol is safe whatever it reads here.
    Atomics.store(this.cells, DOORBELL_SLEEPING_INDEX, 0);
    return result;
  }
}
