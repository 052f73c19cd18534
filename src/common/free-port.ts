/**
 * A TCP port on 127.0.0.1 that was free a moment ago: for a process about to be started on it
 * (a ZooKeeper, a cluster's brokers) that must be told its port in advance. Another process can
 * take it in between; callers that start servers retry or fail loudly.
 */
import { createServer } from 'node:net';

export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('the socket has no TCP address'));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}
