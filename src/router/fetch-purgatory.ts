/**
 * Where long-poll fetches wait (main thread). A fetch that has not yet gathered `min_bytes`
 * parks here on the partitions it reads; an append to any of them, from whichever worker,
 * wakes it to read again, and `max_wait_ms` bounds the wait. No polling: wake-ups come from
 * `notify`, called when an append's reply reaches the main thread.
 */
export type WakeReason = 'data' | 'timeout' | 'shutdown';

interface Waiter {
  readonly keys: readonly string[];
  readonly resolve: (reason: WakeReason) => void;
  readonly timer: NodeJS.Timeout;
}

export class FetchPurgatory {
  private readonly byKey = new Map<string, Set<Waiter>>();

  /** Number of fetches waiting (for metrics and tests). */
  get waiting(): number {
    const all = new Set<Waiter>();
    for (const set of this.byKey.values()) for (const w of set) all.add(w);
    return all.size;
  }

  /** Resolves when one of `keys` gets data, when `timeoutMs` passes, or at shutdown. */
  wait(keys: readonly string[], timeoutMs: number): Promise<WakeReason> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        keys,
        resolve,
        timer: setTimeout(() => this.wake(waiter, 'timeout'), Math.max(0, timeoutMs)),
      };
      for (const key of keys) {
        let set = this.byKey.get(key);
        if (set === undefined) this.byKey.set(key, (set = new Set()));
        set.add(waiter);
      }
    });
  }

  /** New data on `key`: every fetch waiting on it reads again. */
  notify(key: string): void {
    const set = this.byKey.get(key);
    if (set === undefined) return;
    for (const waiter of [...set]) this.wake(waiter, 'data');
  }

  /** Wakes everything, e.g. on shutdown or a leadership change. */
  wakeAll(reason: WakeReason): void {
    const all = new Set<Waiter>();
    for (const set of this.byKey.values()) for (const w of set) all.add(w);
    for (const w of all) this.wake(w, reason);
  }

  private wake(waiter: Waiter, reason: WakeReason): void {
    clearTimeout(waiter.timer);
    for (const key of waiter.keys) {
      const set = this.byKey.get(key);
      if (set === undefined) continue;
      set.delete(waiter);
      if (set.size === 0) this.byKey.delete(key);
    }
    waiter.resolve(reason);
  }
}
