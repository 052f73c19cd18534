import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseByteSize } from '@sluice/cli/commands/tune.js';
import { progressLine, SweepProgress } from '@sluice/tune/progress.js';
import { recommend } from '@sluice/tune/recommend.js';
import { renderReportHtml } from '@sluice/tune/report-html.js';
import { aggregateRuns } from '@sluice/tune/run-aggregate.js';
import { colourScale } from '@sluice/tune/heatmap-scale.js';
import { heatmapSvg, lineChartSvg, xyChartSvg } from '@sluice/tune/svg-charts.js';
import { cellLoadCurve } from '@sluice/tune/load-curve.js';
import { findChromium, renderPng } from '@sluice/tune/report-png.js';
import { formatBytes, formatDuration } from '@sluice/tune/units.js';
import { knee, run } from './tune-runs-helper.js';

test('heatmap: one rect per cell coloured from red (worse) to green (better), the recommended cell outlined', () => {
  const svg = heatmapSvg({
    title: 'p99 <ms>',
    rowTitle: 'batch.size',
    columnTitle: 'linger.ms',
    rows: ['16 KiB', '64 KiB'],
    columns: ['0', '5', '25'],
    values: [
      [1, 2, 3],
      [4, 5, Number.NaN],
    ],
    scale: colourScale([1, 2, 3, 4, 5, Number.NaN], false, { fraction: 0.01, measured: true }),
    format: String,
    highlight: { row: 0, column: 1 },
  });
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.match(svg, /p99 &lt;ms&gt;/, 'text is escaped');
  const fills = [...svg.matchAll(/<rect [^>]*fill="([^"]+)" stroke="white"/g)].map((m) => m[1]);
  assert.equal(fills.length, 6);
  assert.equal(fills[0], 'hsl(120, 65%, 72%)', 'lowest latency is green');
  assert.equal(fills[4], 'hsl(0, 65%, 72%)', 'highest latency is red');
  assert.equal(fills[5], '#ddd', 'a missing cell is grey');
  assert.match(svg, /class="recommended" data-row="0" data-column="1"[^>]*stroke="black" stroke-width="3"/);
  assert.match(svg, /differences under 1\.0% \(the runs' median spread\) share a colour/);
});

test('line chart: one path and legend entry per series; NaN leaves a gap', () => {
  const svg = lineChartSvg({
    title: 't',
    xTitle: 'linger.ms',
    yTitle: 'records/s',
    xLabels: ['0', '5', '25'],
    series: [
      { name: 'a', values: [1, 2, 3] },
      { name: 'b', values: [1, Number.NaN, 3] },
    ],
    format: String,
  });
  const paths = [...svg.matchAll(/<path d="([^"]+)"/g)].map((m) => m[1]!);
  assert.equal(paths.length, 2);
  assert.equal(paths[0]!.split('L').length, 3);
  assert.equal(paths[1]!.split('M').length - 1, 2, 'the gap starts a new sub-path');
  assert.equal((svg.match(/<circle /g) ?? []).length, 5);
});

test('progress line: bar, cells done, current cell, ETA; one line per cell when not a terminal', () => {
  assert.equal(
    progressLine({ done: 6, total: 24, unit: 'cells', current: 'batch.size=64 KiB linger.ms=5', etaSeconds: 72 }),
    '[######------------------] 6/24 cells  batch.size=64 KiB linger.ms=5  ETA 1m12s',
  );
  assert.equal(
    progressLine({ done: 7, total: 48, unit: 'runs', current: 'batch.size=64 KiB linger.ms=5 run 2/2', etaSeconds: 5 }),
    '[####--------------------] 7/48 runs  batch.size=64 KiB linger.ms=5 run 2/2  ETA 5s',
  );
  const lines: string[] = [];
  const progress = new SweepProgress({ isTTY: false, write: (t) => lines.push(t) > 0 }, 2, 3, 'cells');
  progress.cellStarted('a');
  progress.cellFinished();
  progress.cellStarted('b');
  progress.cellFinished();
  progress.finish();
  assert.equal(lines.length, 2);
  assert.match(lines[0]!, /^\[-+\] 0\/2 cells {2}a {2}ETA 6s\n$/);
  assert.match(lines[1]!, /1\/2 cells {2}b/);
});

test('sizes and durations as the CLI reads and the report writes them', () => {
  assert.deepEqual(['16384', '16k', '16KiB', '1m', '1MiB', '256 kib'].map(parseByteSize), [16384, 16384, 16384, 1048576, 1048576, 262144]);
  assert.throws(() => parseByteSize('1.5m'), /not a size/);
  assert.throws(() => parseByteSize('0'), /out of range/);
  assert.deepEqual([16384, 1048576, 1536, 100].map(formatBytes), ['16 KiB', '1 MiB', '1.5 KiB', '100 B']);
  assert.deepEqual([5, 65, 3600].map(formatDuration), ['5s', '1m05s', '60m00s']);
});

test('report.html: with --repeat the table shows the min–max of throughput and p99 beside the medians', () => {
  const settings = {
    batchSizes: [16384],
    lingerMs: [0, 5],
    cellSeconds: 1,
    warmupSeconds: 0,
    recordSize: 100,
    targetRate: 3_000,
    acks: -1 as const,
    compression: 'none' as const,
    maxInFlight: 5,
    topic: 't',
    partitions: 1,
    metricsUrl: null,
    p99BoundMs: null,
    minThroughputFraction: 0.9,
    producerConfig: {},
    consumerConfig: {},
    throughputGoal: null,
    endToEnd: true,
    probeSeconds: 1,
    kneeSteps: 3,
  };
  const cells = [
    { batchSize: 16384, lingerMs: 0, ...aggregateRuns([run(1_000, 4), run(1_200, 6), run(1_100, 9)]) },
    { batchSize: 16384, lingerMs: 5, ...aggregateRuns([run(2_000, 3), run(2_500, 3.5), run(2_100, 5)]) },
  ];
  const report = (repeat: number): string =>
    renderReportHtml({
      tool: 'sluice tune',
      startedAt: 'a',
      finishedAt: 'b',
      bootstrap: 'h:1',
      topic: 't',
      client: { name: 'java', version: 'kafka-clients 4.4.0' },
      settings: { ...settings, repeat },
      cells,
      recommendation: recommend(
        cells.map((c) => ({
          batchSize: c.batchSize,
          lingerMs: c.lingerMs,
          recordsPerSecond: c.recordsPerSecond,
          p99Ms: c.latency.p99Ms,
          failedRecords: c.failedRecords,
        })),
        { minThroughputFraction: 0.9, p99BoundMs: null },
      ),
      confidence: { rounds: repeat, agreeingRounds: repeat, text: 'sure' },
      brokerMetricsNote: null,
    });
  const headers = (html: string): string[] => [...html.matchAll(/<th>([^<]*)<\/th>/g)].map((m) => m[1]!);
  const rows = (html: string): string[][] =>
    [...html.matchAll(/<tr>(<td>.*?)<\/tr>/g)].map((m) => [...m[1]!.matchAll(/<td>([^<]*)<\/td>/g)].map((d) => d[1]!));

  const repeated = report(3);
  assert.deepEqual(headers(repeated).slice(2, 9), [
    'records/s',
    'records/s min–max',
    'MB/s',
    'p50 ms',
    'p95 ms',
    'p99 ms',
    'p99 min–max ms',
  ]);
  assert.deepEqual(
    rows(repeated).map((r) => [r[2], r[3], r[7], r[8]]),
    [
      ['1,100', '1,000–1,200', '6.00', '4.00–9.00'],
      ['2,100', '2,000–2,500', '3.50', '3.00–5.00'],
    ],
  );
  assert.match(repeated, /the whole grid run 3 times over \(every figure is the median of a cell's runs\)/);

  const once = report(1);
  assert.ok(!headers(once).some((h) => h.includes('min–max')), 'a single run has no spread to show');
  assert.ok(!once.includes('times over'));
});

test('report.html: the client and its producer properties head the page; latency against throughput has a curve per cell', () => {
  const settings = {
    batchSizes: [16384, 65536],
    lingerMs: [0, 5],
    cellSeconds: 1,
    warmupSeconds: 0,
    recordSize: 100,
    targetRate: null,
    acks: -1 as const,
    compression: 'lz4' as const,
    maxInFlight: 5,
    topic: 't',
    partitions: 1,
    metricsUrl: null,
    p99BoundMs: null,
    minThroughputFraction: 0.9,
    repeat: 2,
    producerConfig: { 'enable.idempotence': 'true' },
    consumerConfig: { 'fetch.min.bytes': '1024' },
    throughputGoal: null,
    endToEnd: true,
    probeSeconds: 1,
    kneeSteps: 3,
  };
  // Without --target-rate each run is measured at 80% of its knee and at half of it: two points per run.
  const kneeRun = (rate: number, p99Ms: number) => run(rate * 0.8, p99Ms, { knee: knee(rate, p99Ms / 2) });
  const cells = settings.batchSizes.flatMap((batchSize, i) =>
    settings.lingerMs.map((lingerMs, j) => ({
      batchSize,
      lingerMs,
      ...aggregateRuns([kneeRun(1_000 * (i + j + 1), 2 + j), kneeRun(1_100 * (i + j + 1), 3 + j)]),
    })),
  );
  const recommendation = recommend(
    cells.map((c) => ({
      batchSize: c.batchSize,
      lingerMs: c.lingerMs,
      recordsPerSecond: c.recordsPerSecond,
      p99Ms: c.latency.p99Ms,
      failedRecords: c.failedRecords,
    })),
    { minThroughputFraction: 0.9, p99BoundMs: null },
  );
  const html = renderReportHtml({
    tool: 'sluice tune',
    startedAt: 'a',
    finishedAt: 'b',
    bootstrap: 'h:1',
    topic: 't',
    client: { name: 'java', version: 'kafka-clients 4.4.0' },
    settings,
    cells,
    recommendation,
    confidence: { rounds: 2, agreeingRounds: 2, text: 'sure' },
    brokerMetricsNote: null,
  });
  assert.match(html, /Client: <strong>java<\/strong> \(kafka-clients 4\.4\.0\)/);
  assert.match(html, /; end-to-end consumer properties: <code>fetch\.min\.bytes=1024<\/code>; swept:/);
  assert.match(
    html,
    /<code>acks=-1<\/code> <code>compression\.type=lz4<\/code> <code>max\.in\.flight\.requests\.per\.connection=5<\/code> <code>enable\.idempotence=true<\/code>/,
  );
  const charts = [...html.matchAll(/<svg [^>]*class="xy-chart"[\s\S]*?<\/svg>/g)].map((m) => m[0]);
  assert.equal(charts.length, 2, 'p99 and p50 against throughput');
  for (const chart of charts) {
    assert.equal((chart.match(/<path /g) ?? []).length, 4, 'a line per cell through its two runs');
    assert.equal((chart.match(/<circle /g) ?? []).length, 16, "each run's point at 80% of its knee and at half of it");
    assert.equal((chart.match(/stroke-width="3.5"/g) ?? []).length, 2, 'the recommended cell drawn thick (line and legend)');
  }
  assert.match(html, /data-height/, 'the page records its height for the PNG');
});

test('xy chart: points joined in order of x, axes from 0 to round maxima, NaN points left out', () => {
  const svg = xyChartSvg({
    title: 'p99',
    xTitle: 'records/s',
    yTitle: 'ms',
    formatX: String,
    formatY: String,
    series: [
      {
        name: 'a',
        points: [
          { x: 300, y: 9 },
          { x: 100, y: 2 },
          { x: Number.NaN, y: 1 },
        ],
        colour: 0,
        dash: 0,
      },
      { name: 'b', points: [{ x: 150, y: 4 }], colour: 1, dash: 1 },
    ],
  });
  const path = /<path d="([^"]+)"/.exec(svg)![1]!;
  const xs = [...path.matchAll(/[ML]([\d.]+),/g)].map((m) => Number(m[1]));
  assert.equal(xs.length, 2);
  assert.ok(xs[0]! < xs[1]!, 'sorted by x');
  assert.equal((svg.match(/<path /g) ?? []).length, 1, 'a lone point draws no line');
  assert.equal((svg.match(/<circle /g) ?? []).length, 3);
  assert.match(svg, />500<\/text>/, 'x axis to 500');
  assert.match(svg, />10<\/text>/, 'y axis to 10');
});

test("a cell's load curve: every run, and a knee search's half-load run where there is one, in order of throughput", () => {
  const at = (recordsPerSecond: number, p99Ms: number) => ({ recordsPerSecond, latency: { p50Ms: p99Ms / 2, p99Ms } });
  assert.deepEqual(
    cellLoadCurve({ runs: [at(200, 4), at(100, 3)] }).map((p) => p.recordsPerSecond),
    [100, 200],
  );
  assert.deepEqual(
    cellLoadCurve({
      runs: [
        { ...at(800, 9), knee: { atHalf: at(500, 2) } },
        { ...at(0, Number.NaN), knee: null },
      ],
    }).map((p) => [p.recordsPerSecond, p.latency.p99Ms]),
    [
      [500, 2],
      [800, 9],
    ],
  );
  // The runs as the sweep records them (run-aggregate's KneeRun), aggregated as a cell.
  const cell = aggregateRuns([run(800, 9, { knee: knee(1_000, 2) }), run(720, 8, { knee: knee(900, 1) })]);
  assert.deepEqual(
    cellLoadCurve(cell).map((p) => [p.recordsPerSecond, p.latency.p99Ms]),
    [
      [450, 1],
      [500, 2],
      [720, 8],
      [800, 9],
    ],
  );
});

test('without chromium there is no PNG, and the reason names the package', () => {
  assert.equal(findChromium('/nonexistent-dir'), null);
  const outcome = renderPng('/tmp/none.html', '/tmp/none.png', null);
  assert.ok('missing' in outcome);
  assert.match(outcome.missing, /apt-get install chromium/);
});
