/**
 * A loopback TCP forwarder standing in front of one broker as its advertised address, so that
 * peers, the controller and clients all reach the broker through it and a test can cut the
 * broker off the network while it keeps running (and keeps its ZooKeeper session):
 * - `reset`: every forwarded connection is reset (RST) and new ones are reset on accept, as when
 *   a firewall rejects the traffic;
 * - `blackhole`: nothing is forwarded any more but no connection is closed and new ones are
 *   accepted, as when packets are silently dropped: peers learn only from their timeouts;
 * - `forward` heals either; connections held by a black hole carry on where they stopped.
 * A mode can be limited to the connections one process (a partitioned peer) opened, the others
 * being forwarded: that is how the rest of the cluster loses a broker's outbound traffic.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { connectionFrom } from './socket-owner.js';

export type ProxyMode = 'forward' | 'reset' | 'blackhole';

export interface FaultProxy {
  readonly port: number;
  readonly mode: ProxyMode;
  /** Applies `mode` to every connection, or with `fromPid` only to that process's (the others forward). */
  setMode(mode: ProxyMode, fromPid?: number): void;
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
  let only: number | undefined;
  let bound = port;
  const modeFor = (link: Link): ProxyMode => {
    if (only === undefined || mode === 'forward') return mode;
    const from = link.client.remotePort;
    return from !== undefined && connectionFrom(only, from, bound) ? mode : 'forward';
  };

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
    const now = modeFor(link);
    if (now === 'reset') {
      client.resetAndDestroy();
      return;
    }
    links.add(link);
    client.on('error', () => drop(link));
    client.on('close', () => drop(link));
    if (now === 'forward') forward(link);
    else hold(link);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, () => resolve());
  });
  const address = server.address();
  if (typeof address === 'object' && address !== null) bound = address.port;

  return {
    port: bound,
    get mode() {
      return mode;
    },
    setMode(next, fromPid) {
      mode = next;
      only = fromPid;
      for (const link of [...links]) {
        const now = modeFor(link);
        if (now === 'reset') reset(link);
        else if (now === 'blackhole') hold(link);
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
