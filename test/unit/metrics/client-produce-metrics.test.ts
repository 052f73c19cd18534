/**
 * Produce batches by client id: each client's series hold exactly its own batches, in the right
 * buckets and units; the number of client ids tracked stays within the cap (least recently seen
 * out first, counted) and idle ids leave; compression is sampled at most once a second per client.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AggregatorRegistry, type PrometheusContentType } from 'prom-client';
import { ClientProduceMetrics, type ClientProduceOptions } from '../../../src/common/metrics/client-produce-metrics.js';
import { CLIENT_PRODUCE_METRICS as M } from '@sluice/protocol/metrics/client-produce-metric-names.js';
import { parseExposition, select, total, type Sample } from './prometheus-text-helper.js';

class Clock {
  now = 1_000_000;
  readonly read = (): number => this.now;
}

function metrics(options: Partial<ClientProduceOptions> = {}, clock = new Clock()): ClientProduceMetrics {
  return new ClientProduceMetrics({ maxClients: 100, idleMs: 60_000, clock: clock.read, ...options });
}

async function scrape(m: ClientProduceMetrics): Promise<Sample[]> {
  return parseExposition(await AggregatorRegistry.aggregate<PrometheusContentType>([m.snapshot()]).metrics());
}

function clientIds(samples: readonly Sample[]): string[] {
  return [...new Set(select(samples, `${M.batchRecords}_count`).map((s) => s.labels.client_id!))].sort();
}

test('each client id gets its own records, bytes, request, span and age histograms', async () => {
  const m = metrics();
  const a = m.request('producer-a', 2)!;
  a.batch(10_000, 50, 0, 5_000, 5_007, 5_012);
  a.batch(300, 1, 0, 5_010, 5_010, 5_012);
  const b = m.request('producer-b', 1)!;
  b.batch(70_000, 700, 0, 9_000, 9_100, 9_140);
  const s = await scrape(m);
  const of = (name: string, client: string, labels: Record<string, string> = {}): number =>
    total(s, name, { client_id: client, ...labels });

  assert.equal(of(`${M.batchRecords}_count`, 'producer-a'), 2);
  assert.equal(of(`${M.batchRecords}_sum`, 'producer-a'), 51);
  assert.equal(of(`${M.batchRecords}_bucket`, 'producer-a', { le: '1' }), 1);
  assert.equal(of(`${M.batchRecords}_bucket`, 'producer-a', { le: '50' }), 2);
  assert.equal(of(`${M.batchBytes}_sum`, 'producer-a'), 10_300);
  assert.equal(of(`${M.batchBytes}_bucket`, 'producer-a', { le: '512' }), 1);
  assert.equal(of(`${M.requestBatches}_sum`, 'producer-a'), 2);
  assert.equal(of(`${M.requestBatches}_count`, 'producer-a'), 1);
  // Milliseconds in the batch header, seconds in the exposition.
  assert.ok(Math.abs(of(`${M.batchSpan}_sum`, 'producer-a') - 0.007) < 1e-12);
  assert.equal(of(`${M.batchSpan}_bucket`, 'producer-a', { le: '0' }), 1);
  assert.equal(of(`${M.batchSpan}_bucket`, 'producer-a', { le: '0.01' }), 2);
  assert.ok(Math.abs(of(`${M.batchAge}_sum`, 'producer-a') - 0.014) < 1e-12);
  assert.equal(of(M.batches, 'producer-a', { compression: 'none' }), 2);

  assert.equal(of(`${M.batchRecords}_sum`, 'producer-b'), 700);
  assert.ok(Math.abs(of(`${M.batchSpan}_sum`, 'producer-b') - 0.1) < 1e-12);
  assert.ok(Math.abs(of(`${M.batchAge}_sum`, 'producer-b') - 0.14) < 1e-12);
  assert.deepEqual(clientIds(s), ['producer-a', 'producer-b']);
  assert.equal(total(s, M.trackedClients), 2);
});

test('batches without CreateTime count everywhere but in span and age; a producer clock ahead counts age 0', async () => {
  const m = metrics();
  const c = m.request('c', 1)!;
  c.batch(500, 3, 0, -1, -1, 1_000);
  c.batch(500, 3, 0, 2_000, 2_001, 1_500);
  const s = await scrape(m);
  assert.equal(total(s, `${M.batchRecords}_count`, { client_id: 'c' }), 2);
  assert.equal(total(s, `${M.batchSpan}_count`, { client_id: 'c' }), 1);
  assert.equal(total(s, `${M.batchAge}_count`, { client_id: 'c' }), 1);
  assert.equal(total(s, `${M.batchAge}_sum`, { client_id: 'c' }), 0);
});

test('a request without a client id counts under the empty id; compression codecs are counted apart', async () => {
  const m = metrics();
  const anonymous = m.request(null, 1)!;
  anonymous.batch(100, 1, 3, -1, -1, 0);
  anonymous.batch(100, 1, 4, -1, -1, 0);
  const s = await scrape(m);
  assert.equal(total(s, M.batches, { client_id: '', compression: 'lz4' }), 1);
  assert.equal(total(s, M.batches, { client_id: '', compression: 'zstd' }), 1);
});

test('at most maxClients ids are tracked: the least recently seen goes first, and evictions are counted', async () => {
  const clock = new Clock();
  const m = metrics({ maxClients: 3 }, clock);
  for (const id of ['a', 'b', 'c']) m.request(id, 1)!.batch(100, 1, 0, -1, -1, 0);
  clock.now += 2_000;
  // 'a' is seen again, so 'b' is now the least recently seen.
  m.request('a', 1);
  m.request('d', 1);
  m.request('e', 1);
  const s = await scrape(m);
  assert.deepEqual(clientIds(s), ['a', 'd', 'e']);
  assert.equal(total(s, M.evictedClients), 2);
  assert.equal(m.size, 3);
  for (let i = 0; i < 1000; i++) m.request(`churn-${i}`, 1);
  assert.equal(m.size, 3);
  assert.equal(total(await scrape(m), M.evictedClients), 1002);
});

test('an id idle for idleMs leaves at the next scrape and starts from zero if it comes back', async () => {
  const clock = new Clock();
  const m = metrics({ idleMs: 10_000 }, clock);
  m.request('old', 1)!.batch(100, 5, 0, -1, -1, 0);
  clock.now += 6_000;
  m.request('new', 1)!.batch(100, 1, 0, -1, -1, 0);
  clock.now += 5_000;
  const s = await scrape(m);
  assert.deepEqual(clientIds(s), ['new']);
  assert.equal(total(s, M.evictedClients), 0, 'idle expiry is not an eviction');
  m.request('old', 1)!.batch(100, 2, 0, -1, -1, 0);
  assert.equal(total(await scrape(m), `${M.batchRecords}_sum`, { client_id: 'old' }), 2);
});

test('maxClients 0 turns the breakdown off', async () => {
  const m = metrics({ maxClients: 0 });
  assert.equal(m.enabled, false);
  assert.equal(m.request('a', 1), null);
  assert.equal(total(await scrape(m), M.trackedClients), 0);
});

test('compressed batches are sampled once a second per client, one at a time, and give the ratio', async () => {
  const clock = new Clock();
  const measured: Array<{ codec: number; bytes: number }> = [];
  let release: () => void = () => undefined;
  const m = metrics(
    {
      uncompressedSize: async (codec, records) => {
        measured.push({ codec, bytes: records.length });
        await new Promise<void>((resolve) => (release = resolve));
        return records.length * 4;
      },
    },
    clock,
  );
  const a = m.request('a', 1)!;
  const b = m.request('b', 1)!;
  assert.equal(m.sampleDue(a), true);
  m.sampleCompression(a, 4, Buffer.alloc(1000));
  assert.equal(m.sampleDue(b), false, 'one sample at a time broker-wide');
  release();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(m.sampleDue(b), true);
  assert.equal(m.sampleDue(a), false, 'a was sampled less than a second ago');
  clock.now += 1_000;
  assert.equal(m.sampleDue(a), true);
  const s = await scrape(m);
  assert.deepEqual(measured, [{ codec: 4, bytes: 1000 }]);
  assert.equal(total(s, M.sampledBytes, { client_id: 'a', compression: 'zstd', form: 'compressed' }), 1000);
  assert.equal(total(s, M.sampledBytes, { client_id: 'a', compression: 'zstd', form: 'uncompressed' }), 4000);
});

test('a sample that fails to decompress counts nothing and frees the sampler', async () => {
  const m = metrics({ uncompressedSize: () => Promise.reject(new Error('corrupt')) });
  const a = m.request('a', 1)!;
  m.sampleCompression(a, 1, Buffer.alloc(10));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(m.sampleDue(m.request('b', 1)!), true);
  assert.equal(total(await scrape(m), M.sampledBytes), 0);
});
