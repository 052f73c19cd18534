import { test } from 'node:test';
import assert from 'node:assert/strict';
import { brokerBatchStats } from '../src/broker-batch-stats.js';
import { histogramDelta, histogramFrom, histogramMean, histogramNames, histogramQuantile } from '../src/prometheus-histogram.js';
import { MetricsParseError, parsePrometheusText } from '../src/prometheus-text.js';

function batchScrape(
  bytes: { b: number[]; sum: number },
  records: { b: number[]; sum: number },
  requests: { b: number[]; sum: number },
): string {
  const family = (name: string, les: string[], h: { b: number[]; sum: number }): string =>
    [
      `# HELP ${name} x`,
      `# TYPE ${name} histogram`,
      ...les.map((le, i) => `${name}_bucket{le="${le}"} ${h.b[i]}`),
      `${name}_sum ${h.sum}`,
      `${name}_count ${h.b.at(-1)}`,
    ].join('\n');
  return [
    family('sluice_produce_batch_size_bytes', ['1024', '4096', '16384', '+Inf'], bytes),
    family('sluice_produce_batch_records', ['1', '10', '100', '+Inf'], records),
    family('sluice_produce_request_batches', ['1', '2', '+Inf'], requests),
    'nodejs_eventloop_lag_mean_seconds Nan',
  ].join('\n');
}

test('parses samples with labels, escapes, special values and timestamps; keeps TYPE lines', () => {
  const scrape = parsePrometheusText(
    [
      '# HELP req Requests.',
      '# TYPE req counter',
      'req{api="Produce",path="a\\"b\\\\c\\nd"} 12 1700000000000',
      'gauge_x -1.5e3',
      'lag Nan',
      'up +Inf',
      '',
    ].join('\n'),
  );
  assert.equal(scrape.types.get('req'), 'counter');
  assert.equal(scrape.samples.length, 4);
  assert.deepEqual(
    [...scrape.samples[0]!.labels],
    [
      ['api', 'Produce'],
      ['path', 'a"b\\c\nd'],
    ],
  );
  assert.equal(scrape.samples[0]!.value, 12);
  assert.equal(scrape.samples[1]!.value, -1500);
  assert.ok(Number.isNaN(scrape.samples[2]!.value));
  assert.equal(scrape.samples[3]!.value, Number.POSITIVE_INFINITY);
  assert.throws(() => parsePrometheusText('x{a="1"} twelve'), MetricsParseError);
  assert.throws(() => parsePrometheusText('x{a="1} 3'), MetricsParseError);
});

test('a histogram sums its label sets; the delta of two scrapes is what happened between them', () => {
  const text = (c: number): string =>
    [
      '# TYPE h histogram',
      `h_bucket{w="1",le="1"} ${c}`,
      `h_bucket{w="1",le="+Inf"} ${2 * c}`,
      `h_bucket{w="2",le="1"} 1`,
      `h_bucket{w="2",le="+Inf"} 1`,
      `h_sum{w="1"} ${3 * c}`,
      'h_sum{w="2"} 0.5',
      `h_count{w="1"} ${2 * c}`,
      'h_count{w="2"} 1',
    ].join('\n');
  const before = parsePrometheusText(text(1));
  const after = parsePrometheusText(text(4));
  assert.deepEqual(histogramNames(after), ['h']);
  const h = histogramFrom(after, 'h')!;
  assert.deepEqual(h.buckets, [
    { le: 1, count: 5 },
    { le: Number.POSITIVE_INFINITY, count: 9 },
  ]);
  const d = histogramDelta(histogramFrom(before, 'h'), h);
  assert.deepEqual(d.buckets, [
    { le: 1, count: 3 },
    { le: Number.POSITIVE_INFINITY, count: 6 },
  ]);
  assert.equal(d.count, 6);
  assert.equal(histogramMean(d), 9 / 6);
  assert.equal(histogramFrom(after, 'missing'), null);
});

test('quantiles interpolate inside the bucket holding the rank, as histogram_quantile does', () => {
  const h = {
    name: 'h',
    sum: 0,
    count: 100,
    buckets: [
      { le: 10, count: 20 },
      { le: 20, count: 60 },
      { le: 40, count: 100 },
      { le: Number.POSITIVE_INFINITY, count: 100 },
    ],
  };
  assert.equal(histogramQuantile(h, 0.1), 5, 'first bucket interpolates from 0');
  assert.equal(histogramQuantile(h, 0.5), 17.5);
  assert.equal(histogramQuantile(h, 0.8), 30);
  const tail = {
    ...h,
    buckets: [
      { le: 10, count: 50 },
      { le: Number.POSITIVE_INFINITY, count: 100 },
    ],
  };
  assert.equal(histogramQuantile(tail, 0.99), 10, 'a rank in +Inf answers the largest finite bound');
  assert.ok(Number.isNaN(histogramQuantile({ ...h, buckets: [{ le: 1, count: 0 }] }, 0.5)));
});

test('broker batch statistics of a cell come from the before/after difference', () => {
  const before = parsePrometheusText(batchScrape({ b: [5, 5, 5, 5], sum: 2_000 }, { b: [5, 5, 5, 5], sum: 5 }, { b: [5, 5, 5], sum: 5 }));
  // 10 new batches of ~8 KiB holding 20 records each, in 5 requests of 2 batches.
  const after = parsePrometheusText(
    batchScrape({ b: [5, 5, 15, 15], sum: 2_000 + 81_920 }, { b: [5, 5, 15, 15], sum: 205 }, { b: [5, 10, 10], sum: 15 }),
  );
  const stats = brokerBatchStats(before, after)!;
  assert.equal(stats.batches, 10);
  assert.equal(stats.meanBatchBytes, 8192);
  assert.equal(stats.meanRecordsPerBatch, 20);
  assert.equal(stats.produceRequests, 5);
  assert.equal(stats.meanBatchesPerRequest, 2);
  assert.ok(stats.p50BatchBytes > 4096 && stats.p50BatchBytes <= 16384);
  assert.equal(brokerBatchStats(before, parsePrometheusText('up 1')), null, 'a broker without the histograms');
});
