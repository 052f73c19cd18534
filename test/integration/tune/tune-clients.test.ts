/**
 * `sluice tune` driving the real clients against one Sluice broker process with /metrics: a 2×2
 * sweep at a fixed rate with Kafka's Java producer and with librdkafka (half-second cells, no
 * warm-up), checking the client's own batch metrics against the broker's batch histograms
 * (within 5%: one producer per cell, so the broker-wide counts are that producer's), the
 * end-to-end consumer, and the report's header; then one librdkafka cell without --target-rate,
 * which finds its knee and is measured at 50% and 80% of it. A client missing from the machine
 * skips its tests with what to install. Compiled drivers are cached in dist/, not the user's cache.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ClientUnavailableError, resolveClient, type ClientName } from '@sluice/tune/client-drivers.js';
import type { TuneReport } from '@sluice/tune/report.js';
import type { CellResult } from '@sluice/tune/sweep.js';
import { REPO_ROOT } from '../../../tools/codegen/main.js';
import { metricsUrl, startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { javaSkip } from '../../helpers/requirements.js';

const run = promisify(execFile);
const RATE = 2000;
const CELL_SECONDS = 0.5;
const RECORDS_PER_CELL = RATE * CELL_SECONDS;
const CACHE_HOME = join(REPO_ROOT, 'dist', '.tune-driver-cache');
const AGREEMENT = 0.05;

function clientSkip(client: ClientName): string | undefined {
  if (client === 'java') {
    const skip = javaSkip();
    if (skip !== undefined) return skip;
  }
  try {
    resolveClient(client, { kafkaClients: null, cacheDir: join(CACHE_HOME, 'sluice'), note: () => undefined });
    return undefined;
  } catch (err) {
    if (err instanceof ClientUnavailableError) return err.message;
    throw err;
  }
}

function within(actual: number, expected: number, share: number): boolean {
  return Math.abs(actual - expected) <= share * expected;
}

describe('sluice tune with the Java and librdkafka clients', () => {
  let broker: BrokerProcess;
  let dir: string;

  before(async () => {
    broker = await startBrokerProcess({ 'metrics.listener': 'http://127.0.0.1:0' });
    dir = mkdtempSync(join(tmpdir(), 'sluice-tune-clients-'));
  });
  after(async () => {
    await broker?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  async function tune(
    client: ClientName,
    extra: readonly string[],
  ): Promise<{ report: TuneReport; stdout: string; stderr: string; html: string }> {
    const out = join(dir, `${client}-${Date.now()}`);
    const args = [
      join(REPO_ROOT, 'dist/src/cli/sluice.js'),
      'tune',
      '--bootstrap-server',
      broker.bootstrap,
      '--client',
      client,
      '--warmup-seconds',
      '0',
      '--record-size',
      '256',
      '--metrics-url',
      await metricsUrl(broker),
      '--out',
      out,
      ...extra,
    ];
    const { stdout, stderr } = await run(process.execPath, args, { timeout: 600_000, env: { ...process.env, XDG_CACHE_HOME: CACHE_HOME } });
    return {
      report: JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as TuneReport,
      stdout,
      stderr,
      html: readFileSync(join(out, 'report.html'), 'utf8'),
    };
  }

  const SWEEP = ['--batch-sizes', '16k,64k', '--linger-ms', '0,20', '--cell-seconds', String(CELL_SECONDS), '--target-rate', String(RATE)];

  function assertCellsSound(cells: readonly CellResult[]): void {
    assert.equal(cells.length, 4);
    for (const c of cells) {
      const name = `batch.size=${c.batchSize} linger.ms=${c.lingerMs}`;
      assert.deepEqual([c.failedRecords, c.sentRecords, c.acknowledgedRecords], [0, RECORDS_PER_CELL, RECORDS_PER_CELL], name);
      assert.equal(c.latency.count, c.acknowledgedRecords, name);
      assert.ok(
        c.latency.p50Ms > 0 && c.latency.p50Ms <= c.latency.p99Ms && c.latency.p99Ms <= c.latency.maxMs,
        `${name}: ${JSON.stringify(c.latency)}`,
      );
      assert.equal(c.consumedRecords, c.acknowledgedRecords, `${name}: the end-to-end consumer saw every record`);
      assert.equal(c.endToEnd?.count, c.consumedRecords, name);
      assert.ok(c.broker !== null, `${name}: broker statistics`);
      assert.ok(within(c.batches, c.broker.batches, AGREEMENT), `${name}: client ${c.batches} batches, broker ${c.broker.batches}`);
      assert.ok(
        within(c.recordsPerBatch, c.broker.meanRecordsPerBatch, AGREEMENT),
        `${name}: client ${c.recordsPerBatch} records/batch, broker ${c.broker.meanRecordsPerBatch}`,
      );
    }
    // 2000 records/s for 20 ms is ~40 records of 256 bytes, well within 64 KiB: linger, not size, closes those batches.
    const lingering = cells.find((c) => c.batchSize === 64 * 1024 && c.lingerMs === 20)!;
    assert.ok(lingering.recordsPerBatch >= 10, `${lingering.recordsPerBatch} records/batch`);
  }

  test('java: Kafka’s producer, its own metrics agreeing with the broker’s batch counts', { skip: clientSkip('java') }, async () => {
    const { report, stdout, stderr, html } = await tune('java', SWEEP);
    assert.match(report.client.version, /^kafka-clients \d+\.\d+/);
    assert.equal(report.client.name, 'java');
    assertCellsSound(report.cells);
    for (const c of report.cells) {
      for (const metric of ['batch-size-avg', 'record-queue-time-avg', 'records-per-request-avg', 'bufferpool-wait-ratio']) {
        assert.ok(Number.isFinite(c.clientMetrics[metric]), `${metric} in ${JSON.stringify(c.clientMetrics)}`);
      }
      assert.ok(
        within(c.bytesPerBatch, c.broker!.meanBatchBytes, AGREEMENT),
        `bytes/batch ${c.bytesPerBatch} vs ${c.broker!.meanBatchBytes}`,
      );
    }
    assert.match(stderr, /sluice tune: client java\n/);
    assert.match(stdout, /^client: kafka-clients /m);
    assert.match(
      html,
      /Client: <strong>java<\/strong> \(kafka-clients [^)]+\); producer properties: <code>acks=-1<\/code> <code>compression\.type=none<\/code>/,
    );
    assert.match(html, /<th>e2e p99 ms<\/th>/);
  });

  test('librdkafka: its statistics JSON added up agrees with the broker’s batch counts', { skip: clientSkip('librdkafka') }, async () => {
    const { report } = await tune('librdkafka', SWEEP);
    assert.match(report.client.version, /^librdkafka \d+\.\d+/);
    assertCellsSound(report.cells);
    for (const c of report.cells) {
      assert.ok(c.clientMetrics['stats-emissions']! > 0, JSON.stringify(c.clientMetrics));
      assert.ok(c.clientMetrics['rtt-avg-us']! > 0 && Number.isFinite(c.clientMetrics['batchsize-avg']), JSON.stringify(c.clientMetrics));
    }
  });

  /**
   * A fetch waits for a megabyte the run never writes, so each answers at its max wait: records
   * reach the consumer hundreds of milliseconds after their acknowledgement, which only the
   * consumer file's settings can cause.
   */
  async function tuneWithSlowConsumer(client: ClientName, properties: string): Promise<CellResult> {
    const file = join(dir, `${client}-consumer.properties`);
    writeFileSync(file, properties);
    const { report, html } = await tune(client, [
      '--batch-sizes',
      '16k',
      '--linger-ms',
      '0',
      '--cell-seconds',
      '1',
      '--target-rate',
      String(RATE),
      '--consumer-config',
      file,
    ]);
    assert.match(html, /end-to-end consumer properties: <code>fetch\.min\.bytes=1048576<\/code>/);
    const [cell] = report.cells;
    assert.equal(cell!.consumedRecords, cell!.acknowledgedRecords, 'the consumer saw every record');
    assert.ok(cell!.endToEnd !== null && cell!.endToEnd.p50Ms >= 100, `e2e ${JSON.stringify(cell!.endToEnd)}`);
    assert.ok(cell!.latency.p50Ms < 50, `send→ack ${JSON.stringify(cell!.latency)}`);
    return cell!;
  }

  test('--consumer-config reaches librdkafka’s end-to-end consumer', { skip: clientSkip('librdkafka') }, async () => {
    await tuneWithSlowConsumer('librdkafka', 'fetch.min.bytes=1048576\nfetch.wait.max.ms=400\n');
  });

  test('--consumer-config reaches the Sluice driver’s end-to-end consumer', async () => {
    await tuneWithSlowConsumer('sluice', 'fetch.min.bytes=1048576\nfetch.max.wait.ms=400\n');
  });

  test('without --target-rate a cell finds its knee and is measured at 80% and 50% of it', { skip: clientSkip('librdkafka') }, async () => {
    const { report, stdout } = await tune('librdkafka', [
      '--batch-sizes',
      '16k',
      '--linger-ms',
      '5',
      '--cell-seconds',
      '0.3',
      '--probe-seconds',
      '0.3',
      '--knee-steps',
      '1',
    ]);
    const [cell] = report.cells;
    assert.ok(cell?.knee, 'knee figures');
    const { knee } = cell;
    assert.ok(knee.maxSustainableRate > 0);
    assert.equal(knee.probes[0]!.targetRate, null, 'the search starts flat out');
    assert.ok(knee.probes.length >= 2 && knee.probes.length <= 3, `${knee.probes.length} probes`);
    assert.ok(Math.abs(cell.targetRate - 0.8 * knee.maxSustainableRate) < 1e-6);
    assert.ok(knee.atHalf !== null && Math.abs(knee.atHalf.targetRate - 0.5 * knee.maxSustainableRate) < 1e-6);
    assert.ok(knee.atHalf.latency.count > 0 && cell.latency.count > 0);
    assert.equal(report.recommendation.peak?.recordsPerSecond, knee.maxSustainableRate, 'the recommendation weighs the knee');
    assert.match(stdout, /^One run per cell: run with --repeat/m);
  });
});
