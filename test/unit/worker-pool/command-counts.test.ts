/**
 * The host counts every command it sends to a worker, by op (a declared op by its name, a raw one
 * by its number) and kind (request: a round trip; post: one-way), and the scrape exposes the
 * counts as `sluice_worker_commands_total{op,kind}`. Real worker threads over the test op module.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '../../../src/common/logger.js';
import { BrokerMetrics } from '../../../src/common/metrics/broker-metrics.js';
import { MetricsScraper, type WorkerCommandCount } from '../../../src/common/metrics/scrape.js';
import { PartitionWorkerHost } from '../../../src/worker-pool/partition-worker-host.js';
import { binary, defineWorkerOp, NOTHING } from '../../../src/worker-pool/worker-op.js';
import { LaneOps, Op } from './fixtures/test-ops.js';
import { parseExposition, select } from '../metrics/prometheus-text-helper.js';

const opModule = new URL('./fixtures/test-op-module.js', import.meta.url);

/** RECORD declared, to be posted by name. */
const record = defineWorkerOp(
  Op.RECORD,
  'record',
  binary<Uint8Array>(
    (b) => b,
    (b) => b,
  ),
  NOTHING,
);

const sorted = (counts: readonly WorkerCommandCount[]): WorkerCommandCount[] =>
  [...counts].sort((a, b) => `${a.op}/${a.kind}`.localeCompare(`${b.op}/${b.kind}`));

test('requests and posts are counted apart, by declared name or raw number, over all workers', async () => {
  const host = await PartitionWorkerHost.start({ opModule, workers: 2 });
  try {
    assert.deepEqual(host.commandCounts(), [], 'nothing sent yet');
    await host.call(0, LaneOps.ordered, { seq: 0, padding: 0 });
    await host.call(1, LaneOps.ordered, { seq: 0, padding: 0 });
    await host.call(0, LaneOps.priority, { seq: 0, padding: 0 });
    await host.request(0, Op.ECHO, { payloads: [Uint8Array.of(1)] });
    host.postOp(0, record, Uint8Array.of(1));
    host.postOp(1, record, Uint8Array.of(2));
    host.post(0, Op.ECHO, { payloads: [Uint8Array.of(2)] });
    assert.deepEqual(sorted(host.commandCounts()), [
      { op: String(Op.ECHO), kind: 'post', count: 1 },
      { op: String(Op.ECHO), kind: 'request', count: 1 },
      { op: 'orderedSeq', kind: 'request', count: 2 },
      { op: 'prioritySeq', kind: 'request', count: 1 },
      { op: 'record', kind: 'post', count: 2 },
    ]);
  } finally {
    await host.close();
  }
});

test('a raw op later called by its declaration is reported by name', async () => {
  const host = await PartitionWorkerHost.start({ opModule, workers: 1 });
  try {
    host.post(0, Op.RECORD, { payloads: [Uint8Array.of(1)] });
    host.postOp(0, record, Uint8Array.of(2));
    assert.deepEqual(host.commandCounts(), [{ op: 'record', kind: 'post', count: 2 }]);
  } finally {
    await host.close();
  }
});

test('commands refused before reaching a ring are not counted', async () => {
  const host = await PartitionWorkerHost.start({ opModule, workers: 1 });
  await host.close();
  await assert.rejects(host.call(0, LaneOps.ordered, { seq: 0, padding: 0 }));
  host.postOp(0, record, Uint8Array.of(1));
  assert.deepEqual(host.commandCounts(), []);
});

test('the scrape exposes the counts as sluice_worker_commands_total{op,kind}', async () => {
  let counts: WorkerCommandCount[] = [
    { op: 'append', kind: 'request', count: 3 },
    { op: 'release', kind: 'post', count: 5 },
  ];
  const scraper = new MetricsScraper(
    {
      broker: new BrokerMetrics().registry,
      workers: async () => ({ snapshots: [], ends: [] }),
      rings: () => [],
      commands: () => counts,
      committedOffsets: async () => [],
    },
    { maxLagPartitions: 100, log: new Logger('metrics-test') },
  );
  const first = parseExposition(await scraper.render());
  assert.deepEqual(
    select(first, 'sluice_worker_commands_total').map((s) => [s.labels, s.value]),
    [
      [{ op: 'append', kind: 'request' }, 3],
      [{ op: 'release', kind: 'post' }, 5],
    ],
  );
  counts = [{ op: 'append', kind: 'request', count: 4 }];
  const second = parseExposition(await scraper.render());
  assert.deepEqual(
    select(second, 'sluice_worker_commands_total').map((s) => [s.labels, s.value]),
    [[{ op: 'append', kind: 'request' }, 4]],
    'each scrape shows the counts as they are',
  );
});
