/**
 * Periodic work of a partition worker (flush, retention). Plain Node intervals, plus the time to
 * the next one so that the command loop never blocks in `Atomics.wait` past it. Worker thread.
 */
interface Tick {
  readonly intervalMs: number;
  nextDue: number;
  readonly timer: NodeJS.Timeout;
}

export class WorkerTicks {
  private readonly ticks: Tick[] = [];

  add(intervalMs: number, run: () => void): void {
    if (!(intervalMs > 0)) throw new RangeError(`tick interval must be positive, got ${intervalMs}`);
    const tick: Tick = {
      intervalMs,
      nextDue: performance.now() + intervalMs,
      timer: setInterval(() => {
        tick.nextDue = performance.now() + intervalMs;
        run();
      }, intervalMs),
    };
    this.ticks.push(tick);
  }

  /** 0 when a tick is overdue; Infinity when there are none. */
  msUntilNextTick(): number {
    let soonest = Infinity;
    for (const tick of this.ticks) soonest = Math.min(soonest, tick.nextDue);
    return Math.max(0, soonest - performance.now());
  }

  stop(): void {
    for (const tick of this.ticks) clearInterval(tick.timer);
    this.ticks.length = 0;
  }
}
