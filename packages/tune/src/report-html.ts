/** `report.html`: the sweep on one self-contained page, charts as inline SVG. */
import { colourScale, estimateNoise, type NoiseEstimate } from './heatmap-scale.js';
import { cellLoadCurve } from './load-curve.js';
import type { TuneReport } from './report.js';
import type { Spread } from './run-aggregate.js';
import { optionProperties, type CellResult } from './sweep.js';
import { escapeXml, heatmapSvg, lineChartSvg, xyChartSvg } from './svg-charts.js';
import { formatBytes, formatCount, formatMsValue } from './units.js';

export function renderReportHtml(report: TuneReport): string {
  const { settings, cells, recommendation } = report;
  const rows = settings.batchSizes.map(formatBytes);
  const columns = settings.lingerMs.map(String);
  const cell = (b: number, l: number): CellResult | undefined => cells.find((c) => c.batchSize === b && c.lingerMs === l);
  const grid = (pick: (c: CellResult) => number): number[][] =>
    settings.batchSizes.map((b) =>
      settings.lingerMs.map((l) => {
        const c = cell(b, l);
        return c === undefined ? Number.NaN : pick(c);
      }),
    );
  const highlight =
    recommendation.batchSize === null
      ? null
      : { row: settings.batchSizes.indexOf(recommendation.batchSize), column: settings.lingerMs.indexOf(recommendation.lingerMs!) };
  const heatmap = (
    title: string,
    pick: (c: CellResult) => number,
    higherIsBetter: boolean,
    noise: NoiseEstimate,
    format: (v: number) => string,
  ): string => {
    const values = grid(pick);
    return heatmapSvg({
      title,
      rowTitle: 'batch.size',
      columnTitle: 'linger.ms',
      rows,
      columns,
      values,
      scale: colourScale(values.flat(), higherIsBetter, noise),
      format,
      highlight,
    });
  };
  // The throughput maps and curves show each cell's knee when the sweep searched for it.
  const capacity = (c: CellResult): number => c.knee?.maxSustainableRate ?? c.recordsPerSecond;
  const capacitySpread = (c: CellResult): Spread => (c.knee === null ? c.spread.recordsPerSecond : c.spread.maxSustainableRate);
  // Only cells run more than once measure the noise.
  const repeatedCells = cells.filter((c) => c.runs.length > 1);
  const throughputNoise = estimateNoise(repeatedCells.map((c) => ({ median: capacity(c), spread: capacitySpread(c) })));
  const p99Noise = estimateNoise(repeatedCells.map((c) => ({ median: c.latency.p99Ms, spread: c.spread.p99Ms })));
  const loadCurves = (title: string, pick: (latency: { readonly p50Ms: number; readonly p99Ms: number }) => number): string =>
    xyChartSvg({
      title,
      xTitle: 'acknowledged records/s',
      yTitle: 'ms',
      formatX: formatCount,
      formatY: formatMsValue,
      series: cells.map((c) => ({
        name: `${formatBytes(c.batchSize)}, linger ${c.lingerMs}`,
        points: cellLoadCurve(c).map((p) => ({ x: p.recordsPerSecond, y: pick(p.latency) })),
        colour: settings.lingerMs.indexOf(c.lingerMs),
        dash: settings.batchSizes.indexOf(c.batchSize),
        emphasised: c.batchSize === recommendation.batchSize && c.lingerMs === recommendation.lingerMs,
      })),
    });
  const curves = (title: string, yTitle: string, pick: (c: CellResult) => number, format: (v: number) => string): string =>
    lineChartSvg({
      title,
      xTitle: 'linger.ms',
      yTitle,
      xLabels: columns,
      series: grid(pick).map((values, i) => ({ name: `batch.size ${rows[i]}`, values })),
      format,
    });
  const load =
    settings.targetRate === null
      ? 'each cell at 80% (and 50%) of its maximum sustainable rate'
      : `${formatCount(settings.targetRate)} records/s`;
  const hasBroker = cells.some((c) => c.broker !== null);
  const repeated = settings.repeat > 1;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>sluice tune — ${escapeXml(report.bootstrap)}</title>
<style>
body { font-family: sans-serif; margin: 2em; max-width: 1200px; color: #222; }
.client { font-size: 1.05em; } .client code { background: #f4f4f4; padding: 0 3px; }
.recommendation { font-size: 1.15em; background: #eef6ee; border-left: 4px solid #2a2; padding: 0.8em 1em; }
.charts { display: flex; flex-wrap: wrap; gap: 1.5em; }
table { border-collapse: collapse; font-size: 0.9em; } td, th { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
th { background: #f4f4f4; } .note { color: #555; }
</style></head><body>
<h1>Producer batching sweep</h1>
${clientHeader(report)}
<p>${escapeXml(report.bootstrap)}, topic <code>${escapeXml(report.topic)}</code>; ${settings.batchSizes.length} × ${settings.lingerMs.length} cells of ${settings.cellSeconds} s,
${repeated ? `the whole grid run ${settings.repeat} times over (every figure is the median of a cell's runs), ` : ''}${load}, ${settings.recordSize}-byte records, acks=${settings.acks}, compression=${escapeXml(settings.compression)}, max.in.flight=${settings.maxInFlight}.
Started ${escapeXml(report.startedAt)}, finished ${escapeXml(report.finishedAt)}.</p>
<h2>Recommendation</h2>
<p class="recommendation">${escapeXml(recommendation.text)}</p>
<p class="confidence">${escapeXml(report.confidence.text)}</p>
<h2>Heatmaps</h2>
<div class="charts">
${heatmap('Throughput (records/s)', capacity, true, throughputNoise, formatCount)}
${heatmap('p99 latency (ms)', (c) => c.latency.p99Ms, false, p99Noise, formatMsValue)}
</div>
<h2>Curves</h2>
<div class="charts">
${curves('Throughput vs linger.ms', 'records/s', capacity, formatCount)}
${curves('p99 latency vs linger.ms', 'ms', (c) => c.latency.p99Ms, formatMsValue)}
${curves('Records per batch vs linger.ms', 'records/batch', (c) => c.recordsPerBatch, formatCount)}
</div>
<h2>Latency against throughput, per cell</h2>
<div class="charts">
${loadCurves('p99 latency vs throughput', (l) => l.p99Ms)}
${loadCurves('p50 latency vs throughput', (l) => l.p50Ms)}
</div>
<p class="note">One point per run of a cell at each load it was measured at; the recommended cell is drawn thick.</p>
<h2>All cells</h2>
${cellTable(cells, hasBroker, repeated, settings.targetRate === null)}
<p class="note">Latency is per record, from its intended send time (its slot in the fixed-rate schedule, so a stalled producer's backlog counts) to the acknowledgement (send→ack) and to its arrival at a consumer in the driver (e2e), measured in the client's own process.
${settings.targetRate === null ? 'Without --target-rate the throughput heatmap and curve show each cell&#39;s maximum sustainable rate (short probes: flat out, then bisection on a fixed schedule); the other figures are measured at 80% of it. ' : ''}Throughput counts acknowledged records over the time from the first send to the last acknowledgement; MB/s is payload MiB/s.
${repeated ? `The min–max columns are the lowest and highest of a cell's ${settings.repeat} runs; failed records are added up over them.` : ''}
Batches, records/batch and bytes/batch are the client&#39;s own metrics (Java: batch-size-avg and the topic&#39;s byte-total; librdkafka: the statistics&#39; batchcnt and batchsize; Sluice: its accounting of acknowledged batches).
${hasBroker ? `Broker columns are the difference of the broker&#39;s /metrics histograms before and after the cell${repeated ? ' (each run; the median over runs shown)' : ''} (broker-wide; p50 interpolated within 4x-wide buckets).` : `No broker-side statistics: ${escapeXml(report.brokerMetricsNote ?? 'none')}.`}</p>
<script>document.body.setAttribute('data-height', String(document.documentElement.scrollHeight)); document.body.setAttribute('data-width', String(document.documentElement.scrollWidth));</script>
</body></html>
`;
}

/** Properties as the report shows them, `key=value` each. */
function propertyList(properties: Readonly<Record<string, string>>): string {
  return Object.entries(properties)
    .map(([k, v]) => `<code>${escapeXml(k)}=${escapeXml(v)}</code>`)
    .join(' ');
}

/**
 * The client driven and the producer properties every cell shared: the options, the user's file
 * over them (each cell adds its batch.size and linger.ms); the end-to-end consumer's own, if any.
 */
function clientHeader(report: TuneReport): string {
  const { settings } = report;
  const producer = propertyList({ ...Object.fromEntries(optionProperties(settings)), ...settings.producerConfig });
  const consumer =
    Object.keys(settings.consumerConfig).length === 0 ? '' : `; end-to-end consumer properties: ${propertyList(settings.consumerConfig)}`;
  return `<p class="client">Client: <strong>${escapeXml(report.client.name)}</strong> (${escapeXml(report.client.version)}); producer properties: ${producer}${consumer}; swept: <code>batch.size</code> × <code>linger.ms</code>.</p>`;
}

function cellTable(cells: readonly CellResult[], hasBroker: boolean, repeated: boolean, knee: boolean): string {
  const head = [
    'batch.size',
    'linger.ms',
    ...(knee ? ['max sustainable records/s', 'p99 ms at 50%'] : []),
    'records/s',
    ...(repeated ? ['records/s min–max'] : []),
    'MB/s',
    'p50 ms',
    'p95 ms',
    'p99 ms',
    ...(repeated ? ['p99 min–max ms'] : []),
    'p99.9 ms',
    'e2e p50 ms',
    'e2e p99 ms',
    'batches',
    'records/batch',
    'bytes/batch',
    'failed',
  ];
  const brokerHead = ['broker batches', 'broker records/batch', 'broker bytes/batch', 'broker p50 bytes'];
  const num = (v: number, digits = 1): string => (Number.isFinite(v) ? v.toFixed(digits) : '–');
  const lines = cells.map((c) => {
    const rateSpread = repeated ? [`${formatCount(c.spread.recordsPerSecond.min)}–${formatCount(c.spread.recordsPerSecond.max)}`] : [];
    const p99Spread = repeated ? [`${num(c.spread.p99Ms.min, 2)}–${num(c.spread.p99Ms.max, 2)}`] : [];
    const kneeColumns = knee
      ? [formatCount(c.knee?.maxSustainableRate ?? Number.NaN), num(c.knee?.atHalf?.latency.p99Ms ?? Number.NaN, 2)]
      : [];
    const own = [
      formatBytes(c.batchSize),
      String(c.lingerMs),
      ...kneeColumns,
      formatCount(c.recordsPerSecond),
      ...rateSpread,
      num(c.mbPerSecond, 2),
      num(c.latency.p50Ms, 2),
      num(c.latency.p95Ms, 2),
      num(c.latency.p99Ms, 2),
      ...p99Spread,
      num(c.latency.p999Ms, 2),
      num(c.endToEnd?.p50Ms ?? Number.NaN, 2),
      num(c.endToEnd?.p99Ms ?? Number.NaN, 2),
      formatCount(c.batches),
      num(c.recordsPerBatch),
      formatCount(c.bytesPerBatch),
      formatCount(c.failedRecords),
    ];
    const broker =
      c.broker === null
        ? ['–', '–', '–', '–']
        : [
            formatCount(c.broker.batches),
            num(c.broker.meanRecordsPerBatch),
            formatCount(c.broker.meanBatchBytes),
            formatCount(c.broker.p50BatchBytes),
          ];
    return `<tr>${[...own, ...(hasBroker ? broker : [])].map((v) => `<td>${escapeXml(v)}</td>`).join('')}</tr>`;
  });
  return `<table><tr>${[...head, ...(hasBroker ? brokerHead : [])].map((h) => `<th>${escapeXml(h)}</th>`).join('')}</tr>\n${lines.join('\n')}\n</table>`;
}
