/**
 * A loopback TCP forwarder standing in front of one broker as its advertised address, so that
 * peers, the controller and clients all reach the broker through it and a test can cut the
 * broker off the network while it keeps running (and keeps its ZooKeeper session):
 * - `reset`: every forwarded connection is reset (RST) and new ones are reset on accept, as when
 *   a firewall rejects the traffic;
 * - `blackhole`: nothing is forwarded any more but no connection is closed and new ones are
 *   accepted, as when packets are silently dropped: peers learn only from their timeouts;
 * - `forward` heals either; connections held by a black hole carry on where they stopped.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export type ProxyMode = 'forward' | 'reset' | 'blackhole';

export interface FaultProxy {
  readonly port: number;
  readonly mode: ProxyMode;
  setMode(mode: ProxyMode): void;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';

interface Link {
  readonly client: Socket;
  upstream: Socket | null;
  /** Whether bytes flow both ways now (piping twice would send each byte twice). */
  flowing: boolean;
}

export async function startFaultProxy(targetPort: number, port = 0): Promise<FaultProxy> {
  const links = new Set<Link>();
  let mode: ProxyMode = 'forward';

  const drop = (link: Link): void => {
    links.delete(link);
    link.client.destroy();
    link.upstream?.destroy();
  };
  const forward = (link: Link): void => {
    if (link.flowing) return;
    link.flowing = true;
    if (link.upstream === null) {
      const upstream = connect({ host: HOST, port: targetPort });
      upstream.on('error', () => drop(link));
      upstream.on('close', () => drop(link));
      link.upstream = upstream;
    }
    link.client.pipe(link.upstream);
    link.upstream.pipe(link.client);
  };
  const hold = (link: Link): void => {
    link.flowing = false;
    link.client.unpipe();
    link.upstream?.unpipe();
    link.client.pause();
    link.upstream?.pause();
  };
  const reset = (link: Link): void => {
    links.delete(link);
    link.client.resetAndDestroy();
    link.upstream?.resetAndDestroy();
  };

  const server: Server = createServer((client) => {
    const link: Link = { client, upstream: null, flowing: false };
    if (mode === 'reset') {
      client.resetAndDestroy();
      return;
    }
    links.add(link);
    client.on('error', () => drop(link));
    client.on('close', () => drop(link));
    if (mode === 'forward') forward(link);
    else hold(link);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;

  return {
    port: bound,
    get mode() {
      return mode;
    },
    setMode(next) {
      mode = next;
      for (const link of [...links]) {
        if (next === 'reset') reset(link);
        else if (next === 'blackhole') hold(link);
        else forward(link);
      }
    },
    close: () =>
      new Promise((resolve) => {
        for (const link of [...links]) drop(link);
        server.close(() => resolve());
      }),
  };
}
