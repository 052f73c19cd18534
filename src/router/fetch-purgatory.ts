/**
 * Where long-poll fetches wait (main thread). A fetch that has not yet gathered `min_bytes`
 * parks here on the partitions it reads, and `max_wait_ms` bounds the wait. A consumer reads up
 * to the high watermark, so it wakes when the high watermark of one of them moves; a follower
 * reads up to the log end, so it wakes on any append to one of them (an append on a replicated
 * partition leaves the high watermark behind until the followers have fetched it). No polling:
 * wake-ups come from `notify` and `notifyAppend`, called when a worker's reply reaches the main
 * thread, from whichever worker.
 */
export type WakeReason = 'data' | 'timeout' | 'shutdown';

/** What a parked fetch reads up to: a consumer's the high watermark, a follower's the log end. */
export type FetchBound = 'highWatermark' | 'logEnd';

interface Waiter {
  readonly keys: readonly string[];
  readonly byKey: Map<string, Set<Waiter>>;
  readonly resolve: (reason: WakeReason) => void;
  readonly timer: NodeJS.Timeout;
}

export class FetchPurgatory {
  private readonly consumers = new Map<string, Set<Waiter>>();
  private readonly followers = new Map<string, Set<Waiter>>();

  /** Number of fetches waiting (for metrics and tests). */
  get waiting(): number {
    return this.all().size;
  }

  /** Resolves when one of `keys` gets data up to `bound`, when `timeoutMs` passes, or at shutdown. */
  wait(keys: readonly string[], timeoutMs: number, bound: FetchBound = 'highWatermark'): Promise<WakeReason> {
    const byKey = bound === 'logEnd' ? this.followers : this.consumers;
    return new Promise((resolve) => {
      const waiter: Waiter = {
        keys,
        byKey,
        resolve,
        timer: setTimeout(() => this.wake(waiter, 'timeout'), Math.max(0, timeoutMs)),
      };
      for (const key of keys) {
        let set = byKey.get(key);
        if (set === undefined) byKey.set(key, (set = new Set()));
        set.add(waiter);
      }
    });
  }

  /** The high watermark of `key` moved: every consumer fetch waiting on it reads again. */
  notify(key: string): void {
    this.wakeAt(this.consumers, key);
  }

  /** Records were appended to `key`: every follower fetch waiting on it reads again. */
  notifyAppend(key: string): void {
    this.wakeAt(this.followers, key);
  }

  /** Wakes everything, e.g. on shutdown. */
  wakeAll(reason: WakeReason): void {
    for (const w of this.all()) this.wake(w, reason);
  }

  private all(): Set<Waiter> {
    const all = new Set<Waiter>();
    for (const byKey of [this.consumers, this.followers]) for (const set of byKey.values()) for (const w of set) all.add(w);
    return all;
  }

  private wakeAt(byKey: Map<string, Set<Waiter>>, key: string): void {
    const set = byKey.get(key);
    if (set === undefined) return;
    for (const waiter of [...set]) this.wake(waiter, 'data');
  }

  private wake(waiter: Waiter, reason: WakeReason): void {
    clearTimeout(waiter.timer);
    for (const key of waiter.keys) {
      const set = waiter.byKey.get(key);
      if (set === undefined) continue;
      set.delete(waiter);
      if (set.size === 0) waiter.byKey.delete(key);
    }
    waiter.resolve(reason);
  }
}
