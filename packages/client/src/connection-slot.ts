/**
 * Holds the connection to one place (a bootstrap list, a node id): concurrent callers share
 * the one being opened; a connection that failed to open or has closed since is replaced on
 * the next call.
 */
import type { KafkaConnection } from './connection.js';

export class ConnectionSlot {
  private current: Promise<KafkaConnection> | null = null;
  private opened: KafkaConnection | null = null;

  get(open: () => Promise<KafkaConnection>): Promise<KafkaConnection> {
    if (this.current !== null && (this.opened === null || !this.opened.isClosed)) return this.current;
    const attempt = open();
    this.current = attempt;
    this.opened = null;
    attempt.then(
      (connection) => {
        if (this.current === attempt) this.opened = connection;
      },
      () => {
        if (this.current === attempt) this.current = null;
      },
    );
    return attempt;
  }

  close(): void {
    const attempt = this.current;
    this.current = null;
    this.opened = null;
    attempt?.then(
      (c) => c.close(),
      () => undefined,
    );
  }
}
