/**
 * `sluice tune --client sluice` end to end against the Sluice broker process with its /metrics
 * endpoint: a 2×2 sweep at a fixed rate, every cell run twice (`--repeat 2`, half-second runs, so the
 * sweep takes as long as single one-second cells did), then results.json and report.html are checked,
 * and the page and its PNG in headless Chromium (Debian's chromium package; skipped without it).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KafkaAdminClient } from '@sluice/client/admin-client.js';
import { parseBootstrapServers } from '@sluice/client/broker-address.js';
import { KafkaCluster } from '@sluice/client/cluster.js';
import type { TuneReport } from '@sluice/tune/report.js';
import { REPO_ROOT } from '../../../tools/codegen/main.js';
import { PNG_WIDTH } from '@sluice/tune/report-png.js';
import { metricsUrl, startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { chromiumSkip, decodePng, renderInChromium } from '../../helpers/chromium.js';

const run = promisify(execFile);
const RATE = 2000;
const REPEAT = 2;

describe('sluice tune against the Sluice broker', () => {
  let broker: BrokerProcess;
  let out: string;
  let report: TuneReport;
  let stdout: string;
  let stderr: string;

  before(async () => {
    broker = await startBrokerProcess({ 'metrics.listener': 'http://127.0.0.1:0' });
    out = mkdtempSync(join(tmpdir(), 'sluice-tune-'));
    const args = [
      join(REPO_ROOT, 'dist/src/cli/sluice.js'),
      'tune',
      '--bootstrap-server',
      broker.bootstrap,
      '--client',
      'sluice',
      '--batch-sizes',
      '16k,64k',
      '--linger-ms',
      '0,20',
      '--cell-seconds',
      '0.5',
      '--warmup-seconds',
      '0.2',
      '--repeat',
      String(REPEAT),
      '--target-rate',
      String(RATE),
      '--record-size',
      '512',
      '--p99-bound-ms',
      '2000',
      '--metrics-url',
      await metricsUrl(broker),
      '--out',
      join(out, 'report'),
    ];
    ({ stdout, stderr } = await run(process.execPath, args, { timeout: 60_000 }));
    report = JSON.parse(readFileSync(join(out, 'report', 'results.json'), 'utf8')) as TuneReport;
  });
  after(async () => {
    await broker?.stop();
    if (out !== undefined) rmSync(out, { recursive: true, force: true });
  });

  test('every cell has sane numbers: throughput at most the target, ordered percentiles, whole batches', () => {
    assert.equal(report.cells.length, 4);
    for (const c of report.cells) {
      const name = `batch.size=${c.batchSize} linger.ms=${c.lingerMs}`;
      assert.equal(c.failedRecords, 0, name);
      assert.ok(c.recordsPerSecond > 0 && c.recordsPerSecond <= RATE * 1.05, `${name}: ${c.recordsPerSecond} records/s`);
      assert.ok(c.mbPerSecond > 0, name);
      assert.equal(c.latency.count, c.acknowledgedRecords, name);
      const l = c.latency;
      assert.ok(
        l.p50Ms > 0 && l.p50Ms <= l.p95Ms && l.p95Ms <= l.p99Ms && l.p99Ms <= l.p999Ms && l.p999Ms <= l.maxMs,
        `${name}: ${JSON.stringify(l)}`,
      );
      assert.ok(c.recordsPerBatch >= 1 && c.bytesPerBatch > 512, name);
      assert.ok(c.bytesPerBatch <= c.batchSize + 600, `${name}: a batch holds at most batch.size (or one record): ${c.bytesPerBatch}`);
    }
  });

  test('every cell ran --repeat times and reports the median of its runs within their spread', () => {
    assert.equal(report.settings.repeat, REPEAT);
    for (const c of report.cells) {
      const name = `batch.size=${c.batchSize} linger.ms=${c.lingerMs}`;
      assert.equal(c.runs.length, REPEAT, name);
      const rates = c.runs.map((r) => r.recordsPerSecond);
      assert.deepEqual(c.spread.recordsPerSecond, { min: Math.min(...rates), max: Math.max(...rates) }, name);
      assert.equal(c.recordsPerSecond, (rates[0]! + rates[1]!) / 2, `${name}: the median of two runs is their mean`);
      const p99s = c.runs.map((r) => r.latency.p99Ms);
      assert.ok(
        c.spread.p99Ms.min === Math.min(...p99s) && c.latency.p99Ms >= c.spread.p99Ms.min && c.latency.p99Ms <= c.spread.p99Ms.max,
        name,
      );
      assert.equal(
        c.failedRecords,
        c.runs.reduce((sum, r) => sum + r.failedRecords, 0),
        name,
      );
    }
  });

  test('at a fixed rate a larger linger.ms gives batches at least as large, and at 20 ms clearly larger', () => {
    for (const size of [16 * 1024, 64 * 1024]) {
      const [short, long] = [0, 20].map((l) => report.cells.find((c) => c.batchSize === size && c.lingerMs === l)!);
      assert.ok(
        long!.recordsPerBatch >= short!.recordsPerBatch,
        `batch.size=${size}: ${short!.recordsPerBatch} → ${long!.recordsPerBatch} records/batch`,
      );
    }
    // 2000 records/s for 20 ms is ~40 records; 64 KiB holds ~120 of 512 bytes, so linger (not size) closes them.
    const lingering = report.cells.find((c) => c.batchSize === 64 * 1024 && c.lingerMs === 20)!;
    assert.ok(lingering.recordsPerBatch >= 10, `${lingering.recordsPerBatch} records/batch`);
  });

  test('the broker’s own histograms agree with the producer’s accounting', () => {
    assert.equal(report.brokerMetricsNote, null);
    for (const c of report.cells) {
      assert.ok(c.broker !== null, `broker stats for batch.size=${c.batchSize} linger.ms=${c.lingerMs}`);
      assert.equal(c.broker.batches, c.batches);
      assert.ok(Math.abs(c.broker.meanRecordsPerBatch - c.recordsPerBatch) < 1e-6);
      assert.ok(Math.abs(c.broker.meanBatchBytes - c.bytesPerBatch) < 1e-6);
    }
  });

  test('report.html holds the heatmaps, the curves and the recommendation; stdout states it', () => {
    const html = readFileSync(join(out, 'report', 'report.html'), 'utf8');
    assert.equal((html.match(/<svg [^>]*class="heatmap"/g) ?? []).length, 2);
    assert.equal((html.match(/<svg [^>]*class="line-chart"/g) ?? []).length, 3);
    assert.match(html, /Throughput \(records\/s\)/);
    assert.match(html, /p99 latency vs linger\.ms/);
    assert.match(html, /<th>records\/s min–max<\/th>/);
    assert.ok(report.recommendation.text.length > 0);
    assert.ok(html.includes(report.recommendation.text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')));
    assert.ok(report.recommendation.batchSize !== null, report.recommendation.text);
    assert.match(stdout, /^Use linger\.ms=\d+ and batch\.size=\d+/);
    assert.ok(stdout.includes(`\n${report.confidence.text}\n`), 'stdout says how sure the recommendation is');
    assert.match(stdout, /^client: sluice /m);
    assert.match(stdout, /report: .*report\.html/);
    assert.ok(existsSync(join(out, 'report', 'report.html')));
  });

  test('report.png is the page as Chromium renders it, at its full size', { skip: chromiumSkip() }, () => {
    assert.match(stdout, /png: .*report\.png/);
    const png = decodePng(readFileSync(join(out, 'report', 'report.png')));
    const { dom } = renderInChromium(join(out, 'report', 'report.html'));
    const size = (name: string): number => Number(new RegExp(`data-${name}="(\\d+)"`).exec(dom)?.[1]);
    assert.equal(png.width, Math.max(PNG_WIDTH, size('width')));
    assert.equal(png.height, size('height'));
  });

  test('in headless Chromium the page renders without console messages and outlines the recommended cell', { skip: chromiumSkip() }, () => {
    const page = renderInChromium(join(out, 'report', 'report.html'));
    assert.deepEqual(page.console, [], 'no console errors, warnings or logs');
    assert.equal((page.dom.match(/<svg [^>]*class="heatmap"/g) ?? []).length, 2);
    assert.equal((page.dom.match(/<svg [^>]*class="xy-chart"/g) ?? []).length, 2);
    const { batchSize, lingerMs } = report.recommendation;
    const outlines = [...page.dom.matchAll(/class="recommended" data-row="(\d+)" data-column="(\d+)"/g)].map((m) => [
      Number(m[1]),
      Number(m[2]),
    ]);
    assert.deepEqual(
      outlines,
      [0, 1].map(() => [report.settings.batchSizes.indexOf(batchSize!), report.settings.lingerMs.indexOf(lingerMs!)]),
      'one outline per heatmap, on the recommended cell',
    );
    // The outline is the only long black line on the page: its top and bottom edges, 3 px thick, in each
    // heatmap (the two may sit side by side, so runs are counted, not rows).
    const png = decodePng(readFileSync(join(out, 'report', 'report.png')));
    let blackRuns = 0;
    for (let y = 0; y < png.height; y++) {
      let run = 0;
      for (let x = 0; x < png.width; x++) {
        run = png.rgb(x, y).every((c) => c < 40) ? run + 1 : 0;
        if (run === 85) blackRuns++;
      }
    }
    assert.ok(blackRuns >= 2 * 2 * 2, `the outlines' edges are drawn: ${blackRuns} long black runs`);
  });

  test('progress went to stderr, one line per run off a terminal, round after round', () => {
    const lines = stderr.split('\n').filter((l) => l.includes(' runs '));
    assert.equal(lines.length, 4 * REPEAT);
    assert.match(lines[0]!, /^\[-+\] 0\/8 runs {2}batch\.size=16 KiB linger\.ms=0 run 1\/2 {2}ETA \d+s$/);
    assert.match(lines[3]!, /3\/8 runs {2}batch\.size=64 KiB linger\.ms=20 run 1\/2/);
    assert.match(lines[4]!, /4\/8 runs {2}batch\.size=16 KiB linger\.ms=0 run 2\/2/);
  });

  test('the topic the sweep created is deleted afterwards', async () => {
    assert.match(report.topic, /^sluice-tune-\d+$/);
    const cluster = new KafkaCluster({ bootstrap: parseBootstrapServers(broker.bootstrap) });
    try {
      assert.ok(!(await new KafkaAdminClient(cluster).listTopics()).includes(report.topic));
    } finally {
      cluster.close();
    }
  });
});
