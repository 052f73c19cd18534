/**
 * WARN lines about what clients send (bad frames, failed TLS handshakes, refused connections),
 * at most `perSecond` a second: a client flooding garbage must not flood the log. What is held
 * back is counted and reported in one line when the second ends.
 */
import type { Logger } from './logger.js';

const WINDOW_MS = 1000;

export class RateLimitedLog {
  private windowStart = 0;
  private written = 0;
  private suppressed = 0;
  private reportTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly log: Logger,
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {}

  warn(message: string, context?: Record<string, unknown>): void {
    const now = this.now();
    if (now - this.windowStart >= WINDOW_MS) {
      this.report();
      this.windowStart = now;
      this.written = 0;
    }
    if (this.written < this.perSecond) {
      this.written++;
      this.log.warn(message, context);
      return;
    }
    this.suppressed++;
    if (this.reportTimer === null) {
      this.reportTimer = setTimeout(() => this.report(), this.windowStart + WINDOW_MS - now);
      this.reportTimer.unref();
    }
  }

  /** Writes the count held back so far, if any. */
  report(): void {
    if (this.reportTimer !== null) clearTimeout(this.reportTimer);
    this.reportTimer = null;
    if (this.suppressed === 0) return;
    this.log.warn('similar warnings suppressed', { count: this.suppressed });
    this.suppressed = 0;
  }
}
