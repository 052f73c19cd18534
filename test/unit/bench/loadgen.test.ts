import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadgenArgs, parseLoadgenSummary } from '../../../bench/e2e/loadgen.js';

const produceLine =
  '{"mode":"produce","records":200000,"bytes":204800000,"seconds":11.609,"errors":0,"cpuSeconds":0.608,"wireTxBytes":206841898,"wireRxBytes":44751}';

test('the generator summary is its last stdout line; produce and consume summaries carry no latency', () => {
  const s = parseLoadgenSummary(`librdkafka noise\n${produceLine}\n`);
  assert.equal(s.mode, 'produce');
  assert.equal(s.records, 200_000);
  assert.equal(s.bytes, 204_800_000);
  assert.equal(s.cpuSeconds, 0.608);
  assert.equal(s.wireTxBytes, 206_841_898);
  assert.equal(s.latency, undefined);
});

test('a latency summary carries its percentiles and counts', () => {
  const s = parseLoadgenSummary(
    '{"mode":"latency","records":30000,"bytes":30720000,"seconds":6.043,"errors":0,"sent":30000,"received":29990,"measured":25000,"p50Ms":1.5,"p99Ms":9.25,"p999Ms":20.5,"maxMs":33,"cpuSeconds":1.008,"wireTxBytes":31380894,"wireRxBytes":31288081}',
  );
  assert.deepEqual(s.latency, { sent: 30_000, received: 29_990, measured: 25_000, p50Ms: 1.5, p99Ms: 9.25, p999Ms: 20.5, maxMs: 33 });
});

test('a summary that is not JSON, has an unknown mode or misses a number is refused, naming what is wrong', () => {
  assert.throws(() => parseLoadgenSummary('loadgen: produce: Broker: Unknown topic'), /printed no JSON summary/);
  assert.throws(() => parseLoadgenSummary(produceLine.replace('"produce"', '"fetch"')), /unknown mode/);
  assert.throws(() => parseLoadgenSummary(produceLine.replace('"cpuSeconds":0.608,', '')), /no numeric cpuSeconds/);
  assert.throws(() => parseLoadgenSummary(produceLine.replace('"records":200000', '"records":"200000"')), /no numeric records/);
  const latencyWithoutP99 =
    '{"mode":"latency","records":1,"bytes":1024,"seconds":1,"errors":0,"sent":1,"received":1,"measured":1,"p50Ms":1,"p999Ms":1,"maxMs":1,"cpuSeconds":0,"wireTxBytes":0,"wireRxBytes":0}';
  assert.throws(() => parseLoadgenSummary(latencyWithoutP99), /no numeric p99Ms/);
});

test('each mode gets its own flags; librdkafka properties go last as --set so they override the bench settings', () => {
  assert.deepEqual(
    loadgenArgs(
      'h:1',
      't',
      { mode: 'produce', records: 10, recordSize: 100, acks: 'all', compression: 'zstd', lingerMs: 5, batchSize: 262144 },
      ['linger.ms=0'],
    ),
    [
      'produce',
      '--bootstrap',
      'h:1',
      '--topic',
      't',
      '--records',
      '10',
      '--record-size',
      '100',
      '--acks',
      'all',
      '--compression',
      'zstd',
      '--linger-ms',
      '5',
      '--batch-size',
      '262144',
      '--set',
      'linger.ms=0',
    ],
  );
  assert.deepEqual(loadgenArgs('h:1', 't', { mode: 'consume', partitions: 16, records: 5 }), [
    'consume',
    '--bootstrap',
    'h:1',
    '--topic',
    't',
    '--partitions',
    '16',
    '--records',
    '5',
  ]);
  const latency = loadgenArgs('h:1', 't', {
    mode: 'latency',
    partitions: 16,
    ratePerSecond: 48828,
    recordSize: 1024,
    seconds: 10,
    warmupSeconds: 2,
    acks: 'all',
    lingerMs: 1,
    batchSize: 131072,
  });
  assert.equal(latency[0], 'latency');
  assert.deepEqual(latency.slice(latency.indexOf('--rate'), latency.indexOf('--rate') + 2), ['--rate', '48828']);
  assert.deepEqual(latency.slice(latency.indexOf('--warmup'), latency.indexOf('--warmup') + 2), ['--warmup', '2']);
});
