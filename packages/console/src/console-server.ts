/**
 * The console's HTTP server (node:http): the page, the JSON API under `/api/`, and the event
 * stream `/api/events` of the cluster's status. It only reads: every method but GET and HEAD is
 * refused. Headers keep what the page shows inert: a Content-Security-Policy that runs only the
 * bundle (no inline script, no other origin), `nosniff`, and no framing.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { errorName } from '@sluice/protocol/errors.js';
import type { ClusterStatusEvent, ErrorView } from './api-types.js';
import { ApiError } from './api-errors.js';
import { answerApi } from './api-routes.js';
import type { Asset } from './assets.js';
import type { ClusterReader } from './cluster-reader.js';
import { ClusterWatch } from './cluster-watch.js';

export interface ConsoleServerOptions {
  readonly reader: ClusterReader;
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly assets: ReadonlyMap<string, Asset>;
  /** How often the event stream looks at the cluster. */
  readonly statusIntervalMs?: number;
}

export interface RunningConsole {
  /** `http://host:port/` as bound. */
  readonly url: string;
  close(): Promise<void>;
}

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
} as const;

const DEFAULT_STATUS_INTERVAL_MS = 2_000;

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/** A failure as the page shows it: Kafka's error name for a Kafka error, else the message. */
function errorView(err: unknown): ErrorView {
  if (err instanceof KafkaError) return { error: `${errorName(err.code)}: ${err.message}` };
  return { error: err instanceof Error ? err.message : String(err) };
}

/** The page's mistake (4xx), the cluster's failure or absence (502: the console is a gateway to it), or ours (500). */
function statusOf(err: unknown): number {
  if (err instanceof ApiError) return err.status;
  return err instanceof KafkaError ? 502 : 500;
}

function sendEvents(req: IncomingMessage, res: ServerResponse, watch: ClusterWatch): void {
  res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
  res.write(': sluice console\n\n');
  const stop = watch.listen((event: ClusterStatusEvent) => res.write(`event: status\ndata: ${JSON.stringify(event)}\n\n`));
  req.on('close', stop);
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * On a loopback address, only requests that name a loopback host: a web page elsewhere whose
 * domain is pointed at 127.0.0.1 (DNS rebinding) would otherwise read the API as same-origin.
 */
function hostAllowed(listenHost: string, hostHeader: string | undefined): boolean {
  if (!/^(127\.|::1$|localhost$)/.test(listenHost)) return true;
  const name = (hostHeader ?? '').replace(/:\d+$/, '').toLowerCase();
  return LOOPBACK_NAMES.has(name) || name === listenHost;
}

export async function startConsoleServer(options: ConsoleServerOptions): Promise<RunningConsole> {
  const watch = new ClusterWatch(options.reader, options.statusIntervalMs ?? DEFAULT_STATUS_INTERVAL_MS);
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://console');
    if (!hostAllowed(options.host, req.headers.host)) {
      sendJson(res, 403, { error: `the console answers only to a loopback host name, not '${req.headers.host ?? ''}'` });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendJson(res, 405, { error: 'the console is read-only' });
      return;
    }
    if (url.pathname === '/api/events') {
      sendEvents(req, res, watch);
      return;
    }
    if (url.pathname.startsWith('/api/')) {
      answerApi(options.reader, url).then(
        (body) => sendJson(res, 200, body),
        (err: unknown) => sendJson(res, statusOf(err), errorView(err)),
      );
      return;
    }
    const asset = options.assets.get(url.pathname);
    if (asset === undefined) {
      sendJson(res, 404, { error: `no such page: ${url.pathname}` });
      return;
    }
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': asset.contentType, 'cache-control': 'no-cache' });
    res.end(req.method === 'HEAD' ? undefined : asset.body);
  });
  server.listen(options.port, options.host);
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/`,
    async close() {
      watch.stop();
      const closed = once(server, 'close');
      server.close();
      // The event streams never end by themselves.
      server.closeAllConnections();
      await closed;
    },
  };
}
