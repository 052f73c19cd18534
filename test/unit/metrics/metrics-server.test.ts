/** The HTTP side of /metrics: exposition with Prometheus' content type, 404 elsewhere, 405 for other methods, 500 when a scrape fails. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MetricsServer } from '../../../src/broker/metrics-server.js';
import { Logger } from '../../../src/common/logger.js';
import { BrokerMetrics } from '../../../src/common/metrics/broker-metrics.js';
import { MetricsScraper } from '../../../src/common/metrics/scrape.js';
import { total, parseExposition } from './prometheus-text-helper.js';

const log = new Logger('metrics-test');
const NO_WORKERS = { snapshots: [], ends: [] };
const OPTIONS = { maxLagPartitions: 100, log };

test('GET /metrics answers the exposition; other paths and methods are refused', async () => {
  const broker = new BrokerMetrics();
  broker.requestServed('Metadata', 12, 0.001);
  const server = await MetricsServer.start(
    '127.0.0.1',
    0,
    new MetricsScraper(
      { broker: broker.registry, workers: async () => NO_WORKERS, rings: () => [], committedOffsets: async () => [] },
      OPTIONS,
    ),
    log,
  );
  try {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const ok = await fetch(server.url);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    assert.equal(total(parseExposition(await ok.text()), 'sluice_requests_total', { api: 'Metadata', version: '12' }), 1);
    const head = await fetch(server.url, { method: 'HEAD' });
    assert.equal(head.status, 200);
    const missing = await fetch(server.url.replace('/metrics', '/other'));
    assert.equal(missing.status, 404);
    await missing.text();
    const post = await fetch(server.url, { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    await post.text();
  } finally {
    await server.close();
  }
});

test('a failing scrape answers 500 and the server keeps serving', async () => {
  let fail = true;
  const scraper = new MetricsScraper(
    {
      broker: new BrokerMetrics().registry,
      workers: async () => {
        if (fail) throw new Error('worker gone');
        return NO_WORKERS;
      },
      rings: () => [],
      committedOffsets: async () => [],
    },
    OPTIONS,
  );
  const server = await MetricsServer.start('127.0.0.1', 0, scraper, new Logger('metrics-test'));
  try {
    const failed = await fetch(server.url);
    assert.equal(failed.status, 500);
    await failed.text();
    fail = false;
    const ok = await fetch(server.url);
    assert.equal(ok.status, 200);
    await ok.text();
  } finally {
    await server.close();
  }
});
