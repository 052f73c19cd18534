import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseByteSize } from '../../../src/cli/commands/tune.js';
import { progressLine, SweepProgress } from '../../../src/tune/progress.js';
import { heatmapSvg, lineChartSvg } from '../../../src/tune/svg-charts.js';
import { formatBytes, formatDuration } from '../../../src/tune/units.js';

test('heatmap: one rect per cell coloured from red (worse) to green (better), the recommended cell outlined', () => {
  const svg = heatmapSvg({
    title: 'p99 <ms>',
    rowTitle: 'batch.size',
    columnTitle: 'linger.ms',
    rows: ['16 KiB', '64 KiB'],
    columns: ['0', '5', '25'],
    values: [[1, 2, 3], [4, 5, Number.NaN]],
    higherIsBetter: false,
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
  assert.match(svg, /stroke="black" stroke-width="3"/);
});

test('line chart: one path and legend entry per series; NaN leaves a gap', () => {
  const svg = lineChartSvg({ title: 't', xTitle: 'linger.ms', yTitle: 'records/s', xLabels: ['0', '5', '25'], series: [{ name: 'a', values: [1, 2, 3] }, { name: 'b', values: [1, Number.NaN, 3] }], format: String });
  const paths = [...svg.matchAll(/<path d="([^"]+)"/g)].map((m) => m[1]!);
  assert.equal(paths.length, 2);
  assert.equal(paths[0]!.split('L').length, 3);
  assert.equal(paths[1]!.split('M').length - 1, 2, 'the gap starts a new sub-path');
  assert.equal((svg.match(/<circle /g) ?? []).length, 5);
});

test('progress line: bar, cells done, current cell, ETA; one line per cell when not a terminal', () => {
  assert.equal(progressLine({ done: 6, total: 24, current: 'batch.size=64 KiB linger.ms=5', etaSeconds: 72 }), '[######------------------] 6/24 cells  batch.size=64 KiB linger.ms=5  ETA 1m12s');
  const lines: string[] = [];
  const progress = new SweepProgress({ isTTY: false, write: (t) => lines.push(t) > 0 }, 2, 3);
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
