/**
 * The clients' own metrics: librdkafka's statistics windows added up over a run, the Sluice
 * driver's reading of Kafka producer properties, and what the report shows of a properties file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LibrdkafkaStats } from '@sluice/tune/librdkafka-stats.js';
import { measurementOf } from '@sluice/tune/driver-measurement.js';
import { hiddenSecrets } from '@sluice/tune/report.js';
import { ClientConfigError, sluiceConsumerConfig, sluiceProducerConfig } from '@sluice/tune/sluice-client-config.js';
import { cellProducerProperties, consumerProperties } from '@sluice/tune/sweep.js';
import { parseTuneOptions } from '@sluice/cli/commands/tune.js';

const window = (sum: number, cnt: number, max = 0): object => ({
  min: 0,
  max,
  avg: cnt > 0 ? sum / cnt : 0,
  sum,
  stddev: 0,
  p50: 0,
  p99: 0,
  outofrange: 0,
  hdrsize: 100,
  cnt,
});

/** One emission of librdkafka's statistics, trimmed to what the sweep reads (the real ones carry much more). */
function emission(batches: number, records: number, bytes: number, rttUs: number[]): object {
  const broker = (rtts: number[]): object => ({
    name: 'b',
    int_latency: window(0, 0),
    outbuf_latency: window(0, 0),
    rtt: window(
      rtts.reduce((a, b) => a + b, 0),
      rtts.length,
      Math.max(0, ...rtts),
    ),
    throttle: window(0, 0),
  });
  return {
    name: 'rdkafka#producer-1',
    brokers: { 'h:9092/bootstrap': broker([]), 'h:9092/0': broker(rttUs) },
    topics: {
      t: { topic: 't', batchsize: window(bytes, batches, 0), batchcnt: window(records, batches, 0) },
      other: { batchsize: window(999, 9), batchcnt: window(999, 9) },
    },
  };
}

test('librdkafka statistics: every emission window added up, the topic only, latencies over every broker', () => {
  const stats = new LibrdkafkaStats('t');
  stats.add(emission(10, 300, 150_000, [1000, 3000]));
  stats.add(emission(0, 0, 0, []));
  stats.add(emission(5, 50, 25_000, [2000]));
  stats.add('not statistics');
  assert.deepEqual(stats.metrics(), {
    'stats-emissions': 3,
    batches: 15,
    'records-per-batch': 350 / 15,
    'batchsize-avg': 175_000 / 15,
    'rtt-avg-us': 2000,
    'rtt-max-us': 3000,
  });
});

test('a librdkafka run: batches and records per batch come from its statistics, latency from the histograms', () => {
  const outcome = {
    result: {
      id: 1,
      sent: 100,
      acknowledged: 100,
      failed: 0,
      firstError: null,
      elapsedSeconds: 0.5,
      sendAckUs: [[1000, 100]] as const,
      consumed: 100,
      endToEndUs: [[3000, 100]] as const,
      metrics: {},
    },
    stats: [emission(4, 100, 40_000, [500])],
  };
  const m = measurementOf('librdkafka', 't', outcome, 400);
  assert.deepEqual(
    [m.recordsPerSecond, m.batches, m.recordsPerBatch, m.bytesPerBatch, m.latency.p99Ms, m.endToEnd?.p50Ms, m.consumedRecords],
    [200, 4, 25, 10_000, 1, 3, 100],
  );
  assert.equal(m.clientMetrics['rtt-avg-us'], 500);
  const java = measurementOf(
    'java',
    't',
    {
      ...outcome,
      result: { ...outcome.result, endToEndUs: null, metrics: { 'batch-size-avg': 1234, batches: 7, 'records-per-batch': 14.3 } },
    },
    400,
  );
  assert.deepEqual([java.batches, java.recordsPerBatch, java.bytesPerBatch, java.endToEnd], [7, 14.3, 1234, null]);
});

test('the Sluice driver reads Kafka producer properties; security keys go to the connection; others are named as ignored', () => {
  const config = sluiceProducerConfig(
    new Map([
      ['acks', 'all'],
      ['compression.type', 'none'],
      ['batch.size', '65536'],
      ['linger.ms', '5'],
      ['max.in.flight.requests.per.connection', '1'],
      ['buffer.memory', '1048576'],
      ['security.protocol', 'PLAINTEXT'],
      ['enable.idempotence', 'true'],
      ['queue.buffering.max.kbytes', '10'],
    ]),
  );
  assert.deepEqual(config.options, { acks: -1, compression: 0, batchSize: 65536, lingerMs: 5, maxInFlight: 1, bufferMemory: 1048576 });
  assert.deepEqual(config.ignored, ['enable.idempotence', 'queue.buffering.max.kbytes']);
  assert.throws(
    () => sluiceProducerConfig(new Map([['linger.ms', '5ms']])),
    (e: unknown) => e instanceof ClientConfigError && /linger\.ms must be a non-negative integer, not '5ms'/.test(e.message),
  );
  assert.throws(() => sluiceProducerConfig(new Map([['acks', '2']])), /acks must be all, -1, 0 or 1/);
  assert.throws(() => sluiceProducerConfig(new Map([['compression.type', 'brotli']])), /compression.type 'brotli'/);
});

test('the Sluice driver reads Kafka consumer properties for its end-to-end consumer; others are named as ignored', () => {
  const config = sluiceConsumerConfig(
    new Map([
      ['fetch.max.wait.ms', '250'],
      ['fetch.min.bytes', '1024'],
      ['fetch.max.bytes', '1048576'],
      ['max.partition.fetch.bytes', '65536'],
      ['security.protocol', 'SASL_PLAINTEXT'],
      ['sasl.mechanism', 'PLAIN'],
      ['isolation.level', 'read_committed'],
      ['sasl.jaas.config', 'org.apache.kafka.common.security.plain.PlainLoginModule required username="reader" password="secret";'],
    ]),
  );
  assert.deepEqual(config.options, { maxWaitMs: 250, minBytes: 1024, maxBytes: 1048576, partitionMaxBytes: 65536 });
  assert.deepEqual(config.security, { sasl: { mechanism: 'PLAIN', username: 'reader', password: 'secret' } });
  assert.deepEqual(config.ignored, ['isolation.level']);
  assert.throws(
    () => sluiceConsumerConfig(new Map([['fetch.min.bytes', '-1']])),
    (e: unknown) => e instanceof ClientConfigError && /fetch\.min\.bytes must be a non-negative integer/.test(e.message),
  );
});

test("a cell's producer properties: the options, the user's file over them, the cell's batching over both; the consumer gets the security keys and its own file over them", () => {
  const { settings } = parseTuneOptions(['--bootstrap-server', 'h:1', '--acks', '1']);
  const file = new Map([
    ['acks', 'all'],
    ['linger.ms', '100'],
    ['security.protocol', 'SASL_SSL'],
    ['sasl.mechanism', 'PLAIN'],
    ['client.id', 'mine'],
  ]);
  const props = cellProducerProperties({ ...settings, producerConfig: file }, 32768, 7);
  assert.deepEqual(Object.fromEntries(props), {
    acks: 'all',
    'compression.type': 'none',
    'max.in.flight.requests.per.connection': '5',
    'linger.ms': '7',
    'batch.size': '32768',
    'security.protocol': 'SASL_SSL',
    'sasl.mechanism': 'PLAIN',
    'client.id': 'mine',
  });
  assert.deepEqual(Object.fromEntries(consumerProperties(file, new Map())), { 'security.protocol': 'SASL_SSL', 'sasl.mechanism': 'PLAIN' });
  assert.deepEqual(
    Object.fromEntries(
      consumerProperties(
        file,
        new Map([
          ['sasl.mechanism', 'SCRAM-SHA-512'],
          ['fetch.min.bytes', '1024'],
        ]),
      ),
    ),
    {
      'security.protocol': 'SASL_SSL',
      'sasl.mechanism': 'SCRAM-SHA-512',
      'fetch.min.bytes': '1024',
    },
  );
});

test('the report states the producer properties with passwords, keys and JAAS configs hidden', () => {
  assert.deepEqual(
    hiddenSecrets(
      new Map([
        ['linger.ms', '5'],
        ['sasl.jaas.config', 'x password="p";'],
        ['ssl.keystore.password', 'p'],
        ['ssl.key.password', 'p'],
        ['ssl.keystore.key', 'PEM'],
        ['basic.auth.user.info', 'a'],
      ]),
    ),
    {
      'linger.ms': '5',
      'sasl.jaas.config': '[hidden]',
      'ssl.keystore.password': '[hidden]',
      'ssl.key.password': '[hidden]',
      'ssl.keystore.key': '[hidden]',
      'basic.auth.user.info': 'a',
    },
  );
});
