/** Lock timers the test fires itself, so that no test depends on the clock. */
import type { LockTimers } from '../../src/coordinator/share/partition/share-partition.js';

export class ManualTimers implements LockTimers {
  private readonly pending = new Set<{ readonly delayMs: number; readonly expire: () => void }>();

  schedule(delayMs: number, expire: () => void): () => void {
    const entry = { delayMs, expire };
    this.pending.add(entry);
    return () => this.pending.delete(entry);
  }

  /** The delays of the locks still running. */
  get delays(): number[] {
    return [...this.pending].map((e) => e.delayMs);
  }

  /** Expires every running lock, as if their duration had passed. */
  expireAll(): void {
    const due = [...this.pending];
    this.pending.clear();
    for (const e of due) e.expire();
  }
}
