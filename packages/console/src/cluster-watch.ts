/**
 * Looks at the cluster every few seconds while a page listens, and tells every listener what it
 * saw: the overview, or that the cluster did not answer and why. This is what makes a broker that
 * went away show as such in the page, and the page recover when it returns, without the page
 * polling: it listens to the server's event stream (`/api/events`).
 */
import type { ClusterStatusEvent } from './api-types.js';
import { overviewOf } from './api-handlers.js';
import type { ClusterReader } from './cluster-reader.js';

export type StatusListener = (event: ClusterStatusEvent) => void;

export class ClusterWatch {
  private readonly listeners = new Set<StatusListener>();
  private latest: ClusterStatusEvent | null = null;
  private timer: NodeJS.Timeout | null = null;
  private looking = false;

  constructor(
    private readonly reader: ClusterReader,
    private readonly intervalMs: number,
  ) {}

  /** Adds a listener, which hears the latest status at once; returns its removal. */
  listen(listener: StatusListener): () => void {
    this.listeners.add(listener);
    if (this.latest !== null) listener(this.latest);
    if (this.timer === null) {
      this.timer = setInterval(() => void this.look(), this.intervalMs);
      void this.look();
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.latest = null;
  }

  /** One look at a time: a cluster slower than the interval is not asked twice at once. */
  private async look(): Promise<void> {
    if (this.looking) return;
    this.looking = true;
    let event: ClusterStatusEvent;
    try {
      event = { reachable: true, at: Date.now(), overview: overviewOf(await this.reader.metadata()) };
    } catch (err) {
      event = { reachable: false, at: Date.now(), error: err instanceof Error ? err.message : String(err) };
    } finally {
      this.looking = false;
    }
    if (this.timer === null) return;
    this.latest = event;
    for (const listener of this.listeners) listener(event);
  }
}
