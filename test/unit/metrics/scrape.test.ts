/**
 * A scrape merges the main thread's instruments, the process metrics, the ring gauges and the
 * workers' snapshots (after the JSON trip they make through the ring): worker counters without
 * a worker label add up, per-worker series stay apart.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '../../../src/common/logger.js';
import { BrokerMetrics } from '../../../src/common/metrics/broker-metrics.js';
import type { GroupOffset, PartitionEnd } from '../../../src/common/metrics/consumer-lag.js';
import { MetricsScraper, type RingOccupancy } from '../../../src/common/metrics/scrape.js';
import { WorkerMetrics, type WorkerMetricsSnapshot } from '../../../src/common/metrics/worker-metrics.js';
import { parseExposition, select, total } from './prometheus-text-helper.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

/** What the METRICS command does to a snapshot: JSON out of the worker, JSON in on the main thread. */
function throughRing(snapshot: WorkerMetricsSnapshot): WorkerMetricsSnapshot {
  return JSON.parse(JSON.stringify(snapshot)) as WorkerMetricsSnapshot;
}

const OPTIONS = { maxLagPartitions: 100, log: new Logger('metrics-test') };

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
  const snapshots = [
    throughRing(await w0.snapshot({ partitions: 3, segments: 7 })),
    throughRing(await w1.snapshot({ partitions: 2, segments: 2 })),
  ];
  const scraper = new MetricsScraper(
    { broker: broker.registry, workers: async () => ({ snapshots, ends: [] }), rings: () => RINGS, committedOffsets: async () => [] },
    OPTIONS,
  );

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
  const scraper = new MetricsScraper(
    {
      broker: new BrokerMetrics().registry,
      workers: async () => ({ snapshots: [snapshot], ends: [] }),
      rings: () => rings,
      committedOffsets: async () => [],
    },
    OPTIONS,
  );
  let s = parseExposition(await scraper.render());
  assert.equal(total(s, 'sluice_worker_appends_total'), 1);
  assert.deepEqual(
    select(s, 'sluice_worker_partitions').map((x) => x.labels['worker']),
    ['0'],
  );
  rings = [{ worker: 0, direction: 'commands', usedBytes: 512, capacityBytes: 1024 }];
  s = parseExposition(await scraper.render());
  assert.deepEqual(
    select(s, 'sluice_worker_ring_used_bytes').map((x) => [x.labels['direction'], x.value]),
    [['commands', 512]],
  );
});

test('consumer lag: the workers are asked for exactly the committed partitions, and each scrape replaces the series', async () => {
  let committed: GroupOffset[] = [
    { group: 'g1', topic: 't', partition: 0, offset: 10n },
    { group: 'g1', topic: 't', partition: 1, offset: 4n },
    { group: 'g2', topic: 't', partition: 0, offset: 15n },
    // Deleted topic: a committed offset, no end.
    { group: 'g2', topic: 'gone', partition: 0, offset: 3n },
  ];
  const ends: PartitionEnd[] = [
    { topic: 't', partition: 0, highWatermark: 15n },
    { topic: 't', partition: 1, highWatermark: 4n },
  ];
  const asked: TopicPartition[][] = [];
  const scraper = new MetricsScraper(
    {
      broker: new BrokerMetrics().registry,
      workers: async (partitions) => {
        asked.push([...partitions]);
        return { snapshots: [], ends };
      },
      rings: () => [],
      committedOffsets: async () => committed,
    },
    OPTIONS,
  );
  let s = parseExposition(await scraper.render());
  assert.deepEqual(asked, [
    [
      { topic: 't', partition: 0 },
      { topic: 't', partition: 1 },
      { topic: 'gone', partition: 0 },
    ],
  ]);
  const series = (name: string) => select(s, name).map((x) => [x.labels['group'], x.labels['topic'], x.labels['partition'], x.value]);
  assert.deepEqual(series('sluice_consumergroup_lag'), [
    ['g1', 't', '0', 5],
    ['g1', 't', '1', 0],
    ['g2', 't', '0', 0],
  ]);
  assert.deepEqual(series('sluice_consumergroup_committed_offset'), [
    ['g1', 't', '0', 10],
    ['g1', 't', '1', 4],
    ['g2', 't', '0', 15],
    ['g2', 'gone', '0', 3],
  ]);
  assert.deepEqual(series('sluice_consumergroup_lag_sum'), [
    ['g1', 't', undefined, 5],
    ['g2', 't', undefined, 0],
  ]);

  committed = [{ group: 'g2', topic: 't', partition: 0, offset: 12n }];
  s = parseExposition(await scraper.render());
  assert.deepEqual(series('sluice_consumergroup_lag'), [['g2', 't', '0', 3]], 'g1 and the deleted topic are gone');
  assert.deepEqual(series('sluice_consumergroup_committed_offset'), [['g2', 't', '0', 12]]);
});

test('consumer lag above metrics.consumergroup.lag.max.partitions: per-topic sums only', async () => {
  const committed: GroupOffset[] = [0, 1, 2].map((partition) => ({ group: 'wide', topic: 't', partition, offset: 1n }));
  const ends: PartitionEnd[] = [0, 1, 2].map((partition) => ({ topic: 't', partition, highWatermark: 3n }));
  const sources = {
    broker: new BrokerMetrics().registry,
    workers: async () => ({ snapshots: [], ends }),
    rings: () => [],
    committedOffsets: async () => committed,
  };
  const within = parseExposition(await new MetricsScraper(sources, { ...OPTIONS, maxLagPartitions: 3 }).render());
  assert.equal(select(within, 'sluice_consumergroup_lag').length, 3);
  const over = parseExposition(await new MetricsScraper(sources, { ...OPTIONS, maxLagPartitions: 2 }).render());
  assert.equal(select(over, 'sluice_consumergroup_lag').length, 0);
  assert.equal(select(over, 'sluice_consumergroup_committed_offset').length, 0);
  assert.deepEqual(
    select(over, 'sluice_consumergroup_lag_sum').map((x) => [x.labels['group'], x.labels['topic'], x.value]),
    [['wide', 't', 6]],
  );
});
