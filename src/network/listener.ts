/**
 * The TCP listener of one Kafka listener (PLAINTEXT): accepts sockets, enables TCP keepalive so
 * half-open connections behind firewalls are found, and hands each socket to a Connection.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { Logger } from '../common/logger.js';
import { Connection, type ConnectionOptions } from './connection.js';
import type { Dispatcher } from './dispatcher.js';

const KEEPALIVE_INITIAL_DELAY_MS = 60_000;

/** How long a clean shutdown waits for requests in progress before closing their connections. */
const SHUTDOWN_GRACE_MS = 5_000;

export class Listener {
  private readonly server: Server;
  private readonly connections = new Set<Connection>();

  constructor(dispatcher: Dispatcher, options: ConnectionOptions, log: Logger) {
    this.server = createServer((socket: Socket) => {
      socket.setKeepAlive(true, KEEPALIVE_INITIAL_DELAY_MS);
      const connection = new Connection(socket, dispatcher, options, log);
      this.connections.add(connection);
      socket.on('close', () => this.connections.delete(connection));
    });
  }

  listen(host: string, port: number): Promise<{ host: string; port: number }> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        const address = this.server.address();
        if (address === null || typeof address === 'string') {
          reject(new Error(`unexpected listener address ${String(address)}`));
          return;
        }
        resolve({ host: address.address, port: address.port });
      });
    });
  }

  /**
   * Stops accepting and reading new requests at once, lets the requests already received finish
   * (up to a grace period; the caller should wake long-poll fetches meanwhile), then closes
   * every connection.
   */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    const drained = Promise.all([...this.connections].map((c) => c.quiesce()));
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_GRACE_MS)));
    await Promise.race([drained, grace]);
    clearTimeout(timer);
    for (const c of this.connections) c.close();
    await closed;
  }
}
