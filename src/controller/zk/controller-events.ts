/**
 * The controller's event queue (Kafka's single controller event thread): events run one at a
 * time in arrival order, so the controller's context is never seen half-changed. A write refused
 * because another controller has taken over (`ControllerMovedError`) ends the event and is handed
 * to `onControllerMoved`; any other failure is logged with the event's name, and the queue goes on.
 */
import type { Logger } from '../../common/logger.js';
import { ControllerMovedError } from '../../zk/index.js';

export class ControllerEventQueue {
  private tail: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly onControllerMoved: () => void,
    private readonly log: Logger,
  ) {}

  /** Events queued after this do nothing. */
  close(): void {
    this.closed = true;
  }

  enqueue(name: string, event: () => Promise<void>): Promise<void> {
    const run = this.tail.then(async () => {
      if (this.closed) return;
      try {
        await event();
      } catch (err) {
        if (err instanceof ControllerMovedError) {
          this.log.warn('another controller took over; resigning', { event: name });
          this.onControllerMoved();
          return;
        }
        this.log.error('controller event failed', { event: name, error: (err as Error).stack ?? String(err) });
      }
    });
    this.tail = run;
    return run;
  }

  /** Runs a broker's request as an event (in order with the others) and answers with its result. */
  ask<T>(name: string, work: () => Promise<T>): Promise<T> {
    return new Promise((resolve, reject) => {
      void this.enqueue(name, async () => {
        try {
          resolve(await work());
        } catch (err) {
          reject(err);
          throw err;
        }
      });
    });
  }
}
