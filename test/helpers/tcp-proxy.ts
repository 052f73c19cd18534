/**
 * A loopback TCP forwarder that a test can cut and restore, to partition a client from its
 * server for a while (a ZooKeeper client from its ensemble, to let its session expire). While cut
 * it closes every forwarded connection and refuses new ones; `restore()` listens again on the
 * same port.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;

  const listen = (port: number): Promise<number> =>
    new Promise((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = connect({ host: HOST, port: targetPort });
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream);
        upstream.pipe(client);
      });
      s.once('error', reject);
      s.listen(port, HOST, () => {
        server = s;
        const address = s.address();
        resolve(typeof address === 'object' && address !== null ? address.port : port);
      });
    });

  const cut = (): Promise<void> =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      if (server === undefined) return resolve();
      server.close(() => resolve());
      server = undefined;
    });

  const port = await listen(0);
  return {
    port,
    cut,
    restore: async () => {
      if (server === undefined) await listen(port);
    },
    close: cut,
  };
}
