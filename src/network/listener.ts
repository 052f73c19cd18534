/**
 * The TCP listener of one Kafka listener (PLAINTEXT): accepts sockets, enables TCP keepalive so
 * half-open connections behind firewalls are found, and hands each socket to a Connection.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { Logger } from '../common/logger.js';
import { Connection, type ConnectionOptions } from './connection.js';
import type { Dispatcher } from './dispatcher.js';

const KEEPALIVE_INITIAL_DELAY_MS = 60_000;

export class Listener {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor(dispatcher: Dispatcher, options: ConnectionOptions, log: Logger) {
    this.server = createServer((socket) => {
      socket.setKeepAlive(true, KEEPALIVE_INITIAL_DELAY_MS);
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      new Connection(socket, dispatcher, options, log);
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

  /** Stops accepting, then closes every open connection. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }
}
