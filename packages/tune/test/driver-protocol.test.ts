/** The driver protocol: the lines the sweep sends, the lines it accepts back, and the latency histogram every driver computes alike. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HistogramRecorder,
  latencyBucket,
  parseDriverLine,
  runLine,
  setupLines,
  summarizeHistogram,
  DriverProtocolError,
} from '../src/driver-protocol.js';
import { LatencySamples } from '../src/latency-samples.js';

test('setup and run lines: a verb, a space, the rest; rate 0 is flat out', () => {
  const setup = setupLines({
    bootstrap: 'h:9092',
    topic: 't',
    producer: new Map([
      ['linger.ms', '5'],
      ['sasl.jaas.config', 'a b c;'],
    ]),
    consumer: new Map([['security.protocol', 'SASL_PLAINTEXT']]),
  });
  assert.equal(
    setup,
    'bootstrap h:9092\ntopic t\nproducer linger.ms=5\nproducer sasl.jaas.config=a b c;\nconsumer security.protocol=SASL_PLAINTEXT\n',
  );
  assert.equal(runLine({ id: 3, seconds: 1.5, targetRate: null, recordSize: 512, endToEnd: true }), 'run 3 1.5 0 512 1\n');
  assert.equal(runLine({ id: 4, seconds: 2, targetRate: 2500.5, recordSize: 100, endToEnd: false }), 'run 4 2 2500.5 100 0\n');
  assert.throws(
    () => setupLines({ bootstrap: 'h:1', topic: 't', producer: new Map([['k', 'a\nrun 1 1 0 1 0']]), consumer: new Map() }),
    DriverProtocolError,
  );
});

test('a result line is read field by field; null metrics are left out, missing end-to-end is null', () => {
  const line = JSON.stringify({
    type: 'result',
    id: 2,
    sent: 10,
    acknowledged: 9,
    failed: 1,
    firstError: 'TimeoutException',
    elapsedSeconds: 0.5,
    sendAckUs: [
      [100, 4],
      [2048, 5],
    ],
    consumed: 0,
    endToEndUs: null,
    metrics: { 'batch-size-avg': 1500.5, 'bufferpool-wait-ratio': null },
  });
  assert.deepEqual(parseDriverLine(line), {
    type: 'result',
    id: 2,
    sent: 10,
    acknowledged: 9,
    failed: 1,
    firstError: 'TimeoutException',
    elapsedSeconds: 0.5,
    sendAckUs: [
      [100, 4],
      [2048, 5],
    ],
    consumed: 0,
    endToEndUs: null,
    metrics: { 'batch-size-avg': 1500.5 },
  });
  assert.deepEqual(parseDriverLine('{"type":"hello","client":"librdkafka 2.0.2"}'), { type: 'hello', client: 'librdkafka 2.0.2' });
  assert.deepEqual(parseDriverLine('{"type":"stats","id":1,"json":{"topics":{}}}'), { type: 'stats', id: 1, json: { topics: {} } });
  assert.deepEqual(parseDriverLine('{"type":"error","message":"boom"}'), { type: 'error', message: 'boom' });
});

test('a malformed driver line is a protocol error naming what is wrong', () => {
  const result = {
    type: 'result',
    id: 1,
    sent: 1,
    acknowledged: 1,
    failed: 0,
    firstError: null,
    elapsedSeconds: 1,
    sendAckUs: [],
    consumed: 0,
    endToEndUs: null,
    metrics: {},
  };
  const bad: Array<[string, RegExp]> = [
    ['[INFO] starting', /not JSON/],
    ['{"type":"bye"}', /unknown type "bye"/],
    [JSON.stringify({ ...result, acknowledged: -1 }), /acknowledged is not a count/],
    [JSON.stringify({ ...result, elapsedSeconds: 'x' }), /elapsedSeconds is not a number/],
    [JSON.stringify({ ...result, sendAckUs: [[1, 2, 3]] }), /sendAckUs holds \[1,2,3\]/],
    [JSON.stringify({ ...result, metrics: { a: 'x' } }), /metric a is not a number/],
    ['{"type":"hello"}', /client is not a string/],
  ];
  for (const [line, message] of bad)
    assert.throws(
      () => parseDriverLine(line),
      (e: unknown) => e instanceof DriverProtocolError && message.test(e.message),
      line,
    );
});

test('latency buckets: exact below 128 µs, then 64 steps per power of two, as the Java and C drivers compute them', () => {
  assert.deepEqual(
    [0, 1, 127, 128, 129, 130, 255, 256, 259, 260, 1_000_000].map(latencyBucket),
    [0, 1, 127, 128, 128, 130, 254, 256, 256, 260, 999_424],
  );
  assert.equal(latencyBucket(-5), 0, 'a clock step backwards counts as 0');
  for (let v = 128; v < 1 << 22; v = Math.floor(v * 1.37) + 1) {
    const b = latencyBucket(v);
    assert.ok(b <= v && (v - b) / v < 1 / 64, `${v} → ${b}`);
  }
});

test('percentiles of a histogram: nearest rank, as LatencySamples computes them on the same values', () => {
  const exact = new LatencySamples();
  const recorder = new HistogramRecorder();
  for (let i = 1; i <= 1000; i++) {
    const us = i < 900 ? i : i * 50;
    exact.add(latencyBucket(us) / 1000);
    recorder.record(us);
  }
  const summary = summarizeHistogram(recorder.toJSON());
  const expected = exact.summary();
  assert.equal(summary.count, 1000);
  for (const key of ['p50Ms', 'p95Ms', 'p99Ms', 'p999Ms', 'maxMs', 'meanMs'] as const)
    assert.ok(Math.abs(summary[key] - expected[key]) < 1e-9, `${key}: ${summary[key]} vs ${expected[key]}`);
  assert.ok(Number.isNaN(summarizeHistogram([]).p99Ms));
  assert.equal(
    summarizeHistogram([
      [5000, 1],
      [1000, 3],
    ]).p50Ms,
    1,
    'pairs in any order',
  );
});
