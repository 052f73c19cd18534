/**
 * Where long-poll fetches wait (main thread). A fetch that has not yet gathered `min_bytes`
 * parks here on the partitions it reads, and `max_wait_ms` bounds the wait. A consumer reads up
 * to the high watermark, so it wakes when the high watermark of one of them moves; a follower
 * reads up to the log end, so it wakes on any append to one of them (an append on a replicated
 * partition leaves the high watermark behind until the followers have fetched it). No polling:
 * wake-ups come from `notify` and `notifyAppend`, called when a worker's reply reaches the main
 * thread, from whichever worker.
 *
 * A consumer fetch that found nothing parks with its read commands (`wait`'s `reads`). An
 * append to one of its partitions carries them to the worker (`parkedReads`), which reads right
 * after appending; the results come back with the append's reply (`offer`) and wake the fetch
 * with them, so that it answers without a read round trip of its own.
 */
import type { ReadResult } from './partition-service.js';
import type { ReadCommand } from './partition-protocol.js';

export type WakeReason = 'data' | 'timeout' | 'shutdown';

/** What a parked fetch reads up to: a consumer's the high watermark, a follower's the log end. */
export type FetchBound = 'highWatermark' | 'logEnd';

/** Why a fetch woke, and what was read for it on the way (by partition key); release what is not sent. */
export interface Wake {
  readonly reason: WakeReason;
  readonly reads: ReadonlyMap<string, ReadResult>;
}

/** A parked consumer fetch's read of one partition, to be done with the next append to it. */
export interface ParkedRead {
  readonly waiter: number;
  readonly command: ReadCommand;
}

/** The purgatory as the appending side sees it: what to read with an append, and where the results go. */
export interface ParkedReads {
  /** Some fetch is parked with reads: only then is `parkedReads` worth asking per append. */
  readonly hasParkedReads: boolean;
  parkedReads(key: string): readonly ParkedRead[];
  /** A read done for `waiter`: kept for it if it still waits, released otherwise. Wake it with `notify`. */
  offer(waiter: number, key: string, result: ReadResult): void;
}

interface Waiter {
  readonly id: number;
  readonly keys: readonly string[];
  readonly byKey: Map<string, Set<Waiter>>;
  readonly reads: ReadonlyMap<string, ReadCommand> | undefined;
  readonly offered: Map<string, ReadResult>;
  readonly resolve: (wake: Wake) => void;
  readonly timer: NodeJS.Timeout;
}

export class FetchPurgatory implements ParkedReads {
  private readonly consumers = new Map<string, Set<Waiter>>();
  private readonly followers = new Map<string, Set<Waiter>>();
  private readonly byId = new Map<number, Waiter>();
  private nextId = 1;
  private withReads = 0;

  /** Number of fetches waiting (for metrics and tests). */
  get waiting(): number {
    return this.byId.size;
  }

  get hasParkedReads(): boolean {
    return this.withReads > 0;
  }

  /**
   * Resolves when one of `keys` gets data up to `bound`, when `timeoutMs` passes, or at shutdown.
   * `reads` (consumers): the partition reads to do with the next append to each of them.
   */
  wait(
    keys: readonly string[],
    timeoutMs: number,
    bound: FetchBound = 'highWatermark',
    reads?: ReadonlyMap<string, ReadCommand>,
  ): Promise<Wake> {
    const byKey = bound === 'logEnd' ? this.followers : this.consumers;
    return new Promise((resolve) => {
      const waiter: Waiter = {
        id: this.nextId++,
        keys,
        byKey,
        reads: bound === 'highWatermark' ? reads : undefined,
        offered: new Map(),
        resolve,
        timer: setTimeout(() => this.wake(waiter, 'timeout'), Math.max(0, timeoutMs)),
      };
      this.byId.set(waiter.id, waiter);
      if (waiter.reads !== undefined) this.withReads++;
      for (const key of keys) {
        let set = byKey.get(key);
        if (set === undefined) byKey.set(key, (set = new Set()));
        set.add(waiter);
      }
    });
  }

  parkedReads(key: string): readonly ParkedRead[] {
    const set = this.consumers.get(key);
    if (set === undefined) return [];
    const out: ParkedRead[] = [];
    for (const waiter of set) {
      const command = waiter.reads?.get(key);
      if (command !== undefined) out.push({ waiter: waiter.id, command });
    }
    return out;
  }

  offer(waiter: number, key: string, result: ReadResult): void {
    const parked = this.byId.get(waiter);
    if (parked === undefined || parked.offered.has(key)) result.records?.release();
    else parked.offered.set(key, result);
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
    for (const w of [...this.byId.values()]) this.wake(w, reason);
  }

  private wakeAt(byKey: Map<string, Set<Waiter>>, key: string): void {
    const set = byKey.get(key);
    if (set === undefined) return;
    for (const waiter of [...set]) this.wake(waiter, 'data');
  }

  private wake(waiter: Waiter, reason: WakeReason): void {
    clearTimeout(waiter.timer);
    this.byId.delete(waiter.id);
    if (waiter.reads !== undefined) this.withReads--;
    for (const key of waiter.keys) {
      const set = waiter.byKey.get(key);
      if (set === undefined) continue;
      set.delete(waiter);
      if (set.size === 0) waiter.byKey.delete(key);
    }
    waiter.resolve({ reason, reads: waiter.offered });
  }
}
