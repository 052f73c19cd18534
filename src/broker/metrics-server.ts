/**
 * The HTTP listener of `metrics.listener` (off unless set): `GET /metrics` answers with the
 * Prometheus text exposition of a `MetricsScraper`; every other path is 404. Main thread. Each
 * scrape pulls the workers' metrics through their rings, so it costs one small command per
 * worker and nothing between scrapes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from '../common/logger.js';
import type { MetricsScraper } from '../common/metrics/scrape.js';

export class MetricsServer {
  private constructor(
    private readonly server: Server,
    readonly host: string,
    readonly port: number,
  ) {}

  /** Binds `host:port` (0 picks a free port) and serves until `close()`. */
  static async start(host: string, port: number, scraper: MetricsScraper, log: Logger): Promise<MetricsServer> {
    const server = createServer((req, res) => {
      serve(req, res, scraper).catch((err: unknown) => {
        log.warn('metrics scrape failed', { error: err instanceof Error ? err.message : String(err) });
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('scrape failed\n');
      });
    });
    const bound = await new Promise<{ host: string; port: number }>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        const address = server.address();
        if (address === null || typeof address === 'string') reject(new Error(`unexpected metrics listener address ${String(address)}`));
        else resolve({ host: address.address, port: address.port });
      });
    });
    return new MetricsServer(server, bound.host, bound.port);
  }

  get url(): string {
    return `http://${this.host.includes(':') ? `[${this.host}]` : this.host}:${this.port}/metrics`;
  }

  /** Stops listening and drops kept-alive scraper connections. */
  close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    return closed;
  }
}

async function serve(req: IncomingMessage, res: ServerResponse, scraper: MetricsScraper): Promise<void> {
  const path = (req.url ?? '/').split('?', 1)[0];
  if (path !== '/metrics') {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('not found: metrics are at /metrics\n');
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
    res.end('method not allowed\n');
    return;
  }
  const body = await scraper.render();
  res.writeHead(200, { 'content-type': scraper.contentType });
  res.end(req.method === 'HEAD' ? undefined : body);
}
