/**
 * Second half of segment deletion (Kafka's `file.delete.delay.ms`): segments already renamed to
 * `.deleted` are unlinked once their delay has passed *and* no read lease is outstanding, so a
 * consumer that looked a segment up just before retention can still read it. Driven by the
 * owner's periodic `run`; a shutdown leaves pending files, which the next start-up removes.
 * Owned by the thread that owns the segments.
 */
import type { LogSegment } from './log-segment.js';

export class SegmentDeleter {
  #pending: Array<{ segment: LogSegment; dueMs: number }> = [];

  schedule(segment: LogSegment, dueMs: number): void {
    this.#pending.push({ segment, dueMs });
  }

  get pending(): number {
    return this.#pending.length;
  }

  /** Unlinks what is due and unleased; returns how many segments were removed. An I/O error leaves the entry for a later run. */
  run(nowMs: number): number {
    let removed = 0;
    this.#pending = this.#pending.filter(({ segment, dueMs }) => {
      if (dueMs > nowMs || segment.leases > 0) return true;
      try {
        segment.deleteFiles();
      } catch {
        return true;
      }
      removed++;
      return false;
    });
    return removed;
  }
}
