/**
 * A scrape merges the main thread's instruments, the process metrics, the ring gauges and the
 * workers' snapshots (after the JSON trip they make through the ring): worker counters without
 * a worker label add up, per-worker series stay apart.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BrokerMetrics } from '../../../src/common/metrics/broker-metrics.js';
import { MetricsScraper, type RingOccupancy } from '../../../src/common/metrics/scrape.js';
import { WorkerMetrics, type WorkerMetricsSnapshot } from '../../../src/common/metrics/worker-metrics.js';
import { parseExposition, select, total } from './prometheus-text-helper.js';

/** What the METRICS command does to a snapshot: JSON out of the worker, JSON in on the main thread. */
function throughRing(snapshot: WorkerMetricsSnapshot): WorkerMetricsSnapshot {
  return JSON.parse(JSON.stringify(snapshot)) as WorkerMetricsSnapshot;
}

const RINGS: RingOccupancy[] = [
  { worker: 0, direction: 'commands', usedBytes: 128, capacityBytes: 1024 },
  { worker: 0, direction: 'replies', usedBytes: 0, capacityBytes: 1024 },
  { worker: 1, direction: 'commands', usedBytes: 64, capacityBytes: 2048 },
  { worker: 1, direction: 'replies', usedBytes: 8, capacityBytes: 2048 },
];

test('worker snapshots merge into one exposition with the broker and process metrics', async () => {
  const broker = new BrokerMetrics();
  broker.requestServed('Produce', 9, 0.001);
  const w0 = new WorkerMetrics(0);
  const w1 = new WorkerMetrics(1);
  w0.appended(100, 0.0002, false);
  w0.appended(50, 0.003, true);
  w1.appended(10, 0.0004, true);
  w0.maintained(0.01);
  w1.maintained(0.02);
  const snapshots = [throughRing(await w0.snapshot({ partitions: 3, segments: 7 })), throughRing(await w1.snapshot({ partitions: 2, segments: 2 }))];
  const scraper = new MetricsScraper({ broker: broker.registry, workerSnapshots: async () => snapshots, rings: () => RINGS });

  const s = parseExposition(await scraper.render());
  assert.equal(total(s, 'sluice_requests_total', { api: 'Produce' }), 1);
  assert.equal(total(s, 'sluice_worker_appends_total', { worker: '0' }), 2);
  assert.equal(total(s, 'sluice_worker_appends_total', { worker: '1' }), 1);
  assert.equal(total(s, 'sluice_worker_appended_bytes_total', { worker: '0' }), 150);
  assert.equal(total(s, 'sluice_worker_partitions', { worker: '0' }), 3);
  assert.equal(total(s, 'sluice_worker_partitions', { worker: '1' }), 2);
  assert.equal(total(s, 'sluice_worker_segments', { worker: '0' }), 7);
  // Histograms without a worker label are summed across workers, bucket by bucket.
  assert.equal(total(s, 'sluice_log_flush_seconds_count'), 2);
  assert.equal(total(s, 'sluice_log_flush_seconds_bucket', { le: '0.0005' }), 1);
  assert.equal(total(s, 'sluice_log_flush_seconds_bucket', { le: '0.005' }), 2);
  assert.equal(total(s, 'sluice_log_maintenance_seconds_count'), 2);
  assert.ok(Math.abs(total(s, 'sluice_log_maintenance_seconds_sum') - 0.03) < 1e-9);
  assert.equal(total(s, 'sluice_worker_ring_used_bytes', { worker: '0', direction: 'commands' }), 128);
  assert.equal(total(s, 'sluice_worker_ring_used_bytes', { worker: '1', direction: 'replies' }), 8);
  assert.equal(total(s, 'sluice_worker_ring_capacity_bytes', { worker: '1', direction: 'commands' }), 2048);
  assert.ok(total(s, 'process_resident_memory_bytes') > 0);
  assert.ok(total(s, 'process_cpu_seconds_total') > 0);
  assert.equal(select(s, 'nodejs_eventloop_lag_seconds').length, 1);
});

test('a worker that does not answer is left out; scrapes see fresh ring readings', async () => {
  const w0 = new WorkerMetrics(0);
  w0.appended(1, 0.0001, false);
  const snapshot = throughRing(await w0.snapshot({ partitions: 1, segments: 1 }));
  let rings: RingOccupancy[] = RINGS;
  const scraper = new MetricsScraper({ broker: new BrokerMetrics().registry, workerSnapshots: async () => [snapshot], rings: () => rings });
  let s = parseExposition(await scraper.render());
  assert.equal(total(s, 'sluice_worker_appends_total'), 1);
  assert.deepEqual(select(s, 'sluice_worker_partitions').map((x) => x.labels['worker']), ['0']);
  rings = [{ worker: 0, direction: 'commands', usedBytes: 512, capacityBytes: 1024 }];
  s = parseExposition(await scraper.render());
  assert.deepEqual(select(s, 'sluice_worker_ring_used_bytes').map((x) => [x.labels['direction'], x.value]), [['commands', 512]]);
});
