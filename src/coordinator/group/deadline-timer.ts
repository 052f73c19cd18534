/**
 * Keyed deadlines on a clock the caller drives: nothing fires by itself. Scheduling a key again
 * replaces its deadline (a heartbeat pushes its member's expiry back). Due entries come out in
 * deadline order, ties in scheduling order, so a run is reproducible.
 *
 * Lookups scan every entry: fine for the few thousand members a coordinator holds; a heap would
 * be the next step.
 */
interface Entry<A> {
  deadline: number;
  seq: number;
  action: A;
}

export class DeadlineTimer<A> {
  private readonly entries = new Map<string, Entry<A>>();
  private seq = 0;

  schedule(key: string, deadline: number, action: A): void {
    this.entries.delete(key);
    this.entries.set(key, { deadline, seq: this.seq++, action });
  }

  cancel(key: string): void {
    this.entries.delete(key);
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  clear(): void {
    this.entries.clear();
  }

  nextDeadline(): number | null {
    const first = this.earliest();
    return first === null ? null : first[1].deadline;
  }

  /** Removes and returns the earliest entry due at or before `now`. */
  takeDue(now: number): { deadline: number; action: A } | null {
    const first = this.earliest();
    if (first === null || first[1].deadline > now) return null;
    this.entries.delete(first[0]);
    return { deadline: first[1].deadline, action: first[1].action };
  }

  private earliest(): [string, Entry<A>] | null {
    let best: [string, Entry<A>] | null = null;
    for (const e of this.entries) {
      if (best === null || e[1].deadline < best[1].deadline || (e[1].deadline === best[1].deadline && e[1].seq < best[1].seq)) best = e;
    }
    return best;
  }
}
