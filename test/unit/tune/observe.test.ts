/**
 * `sluice tune --observe`: the summary is the difference of two scrapes of the broker's
 * per-client produce metrics, for the one client id asked about; a client id that did not
 * produce, and a broker without the metrics, are told apart and said so.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AggregatorRegistry, type PrometheusContentType } from 'prom-client';
import { ClientProduceMetrics } from '../../../src/common/metrics/client-produce-metrics.js';
import { formatObservation, observeClient } from '@sluice/tune/observe.js';
import { parsePrometheusText, type MetricsScrape } from '@sluice/tune/prometheus-text.js';
import { parseObserveOptions } from '@sluice/cli/commands/tune-observe.js';

async function scrape(m: ClientProduceMetrics): Promise<MetricsScrape> {
  return parsePrometheusText(await AggregatorRegistry.aggregate<PrometheusContentType>([m.snapshot()]).metrics());
}

/** `batches` batches of `records` records filled over `fillMs`, sent `batchesPerRequest` to a request. */
function produce(
  m: ClientProduceMetrics,
  clientId: string,
  batches: number,
  records: number,
  fillMs: number,
  batchesPerRequest = 1,
  codec = 0,
): void {
  for (let i = 0; i < batches; i += batchesPerRequest) {
    const stats = m.request(clientId, batchesPerRequest)!;
    for (let j = 0; j < batchesPerRequest; j++)
      stats.batch(records * 100 + 70, records, codec, 10_000, 10_000 + fillMs, 10_000 + fillMs + 2);
  }
}

test('the window is the difference of the scrapes: what the client did before it does not count, other clients never do', async () => {
  const m = new ClientProduceMetrics({ maxClients: 10, idleMs: 3_600_000 });
  produce(m, 'app', 50, 1, 0);
  produce(m, 'other', 10, 500, 40);
  const before = await scrape(m);
  produce(m, 'app', 40, 100, 5, 2, 3);
  produce(m, 'other', 10, 500, 40);
  const o = observeClient(before, await scrape(m), 'app', 10);
  assert.equal(o.kind, 'observed');
  if (o.kind !== 'observed') return;
  const b = o.batching;
  assert.equal(b.batches, 40);
  assert.equal(b.records, 4_000);
  assert.equal(b.requests, 20);
  assert.equal(b.batchesPerRequest, 2);
  assert.equal(b.recordsPerBatch.mean, 100);
  assert.equal(b.bytesPerBatch.mean, 10_070);
  assert.ok(Math.abs(b.fillMs.mean - 5) < 1e-9);
  assert.ok(Math.abs(b.ageMs.mean - 7) < 1e-9);
  assert.ok(b.fillMs.p50 > 2 && b.fillMs.p50 <= 5, 'within the 2..5 ms bucket');
  assert.deepEqual(b.compression, { lz4: 40 });
  assert.equal(b.compressionRatio, null, 'nothing sampled without a decompressor');
  const text = formatObservation(o, { topic: 't', records: 9_000, seconds: 10 });
  assert.match(text, /client id 'app', 10 s/);
  assert.match(text, /records per batch +mean 100\.0/);
  assert.match(text, /batches fill for ~/);
  assert.match(text, /lz4 40 batches/);
  assert.match(text, /topic 't': 9,000 records appended by all producers \(900\/s\)/);
});

test('batches filled at once but old on arrival read as bursts waiting, not filling', async () => {
  const m = new ClientProduceMetrics({ maxClients: 10, idleMs: 3_600_000 });
  const before = await scrape(m);
  const stats = m.request('bursty', 1)!;
  for (let i = 0; i < 20; i++) stats.batch(2_000, 20, 0, 10_000, 10_000, 10_030);
  assert.match(
    formatObservation(observeClient(before, await scrape(m), 'bursty', 3), null),
    /each batch is filled at once \(records come in bursts\), then waits ~\d+\.?\d* ms \(age p50\)/,
  );
});

test('one record per batch reads as linger.ms 0 or too low a rate', async () => {
  const m = new ClientProduceMetrics({ maxClients: 10, idleMs: 3_600_000 });
  const before = await scrape(m);
  produce(m, 'solo', 30, 1, 0);
  const o = observeClient(before, await scrape(m), 'solo', 3);
  assert.match(formatObservation(o, null), /about one record per batch: linger\.ms is 0/);
});

test('a client id that did not produce in the window is idle, and the ids that did are named', async () => {
  const m = new ClientProduceMetrics({ maxClients: 10, idleMs: 3_600_000 });
  produce(m, 'quiet', 5, 10, 1);
  const before = await scrape(m);
  produce(m, 'busy', 5, 10, 1);
  const o = observeClient(before, await scrape(m), 'quiet', 5);
  assert.deepEqual(o, { kind: 'idle', clientId: 'quiet', seconds: 5, otherClients: ['busy'] });
  assert.match(
    formatObservation(o, null),
    /No Produce request from client id 'quiet' reached the broker in 5 s\.\nClient ids the broker has seen producing: 'busy'\./,
  );
});

test('a broker without per-client metrics (Kafka) is said to be one, with what cannot be shown', () => {
  const kafkaLike = parsePrometheusText('# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 1\n');
  const o = observeClient(kafkaLike, kafkaLike, 'app', 5);
  assert.equal(o.kind, 'unsupported');
  const text = formatObservation(o, { topic: 't', records: 50, seconds: 5 });
  assert.match(text, /No broker-side view of the producer/);
  assert.match(text, /Not shown: records and bytes per batch/);
  assert.match(text, /topic 't': 50 records appended/);
});

test('--observe options: client id and bootstrap required, seconds positive', () => {
  assert.deepEqual(parseObserveOptions(['--observe', '--client-id', 'a', '--bootstrap-server', 'h:1']), {
    clientId: 'a',
    bootstrap: 'h:1',
    metricsUrl: null,
    seconds: 10,
    topic: null,
    json: false,
  });
  assert.throws(() => parseObserveOptions(['--observe', '--bootstrap-server', 'h:1']), /client-id/);
  assert.throws(() => parseObserveOptions(['--observe', '--client-id', 'a', '--bootstrap-server', 'h:1', '--seconds', '0']), /--seconds/);
});
