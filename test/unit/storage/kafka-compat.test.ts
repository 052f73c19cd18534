/**
 * On-disk compatibility with Apache Kafka 4.4.0, both ways: Kafka's DumpLogSegments reads a
 * partition directory Sluice wrote, and Sluice serves a partition directory Kafka wrote. Skipped
 * when Java or Kafka's jars are missing (the jars are fetched from Maven Central by
 * tools/kafka/fetch-kafka.sh when Maven is installed).
 */
import { offsetOf } from '@sluice/protocol/common/offsets.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startKafka } from '../../../tools/kafka/kafka-process.js';
import { KAFKA_VERSION, kafkaClasspath } from '../../../tools/kafka/kafka-release.js';
import { LogManager } from '../../../src/storage/index.js';
import { decodeBatches, producedBatch, tempDir } from './storage-fixtures.js';
import { javaSkip } from '../../helpers/requirements.js';
import { freePort } from '../../../src/common/free-port.js';

const execFileAsync = promisify(execFile);
const root = tempDir('compat');
process.on('exit', root.remove);

test("Kafka's DumpLogSegments reads a Sluice partition directory: offsets, records, indexes", { skip: javaSkip() }, async () => {
  const logDir = join(root.path, 'sluice');
  const manager = LogManager.open({ logDirs: [logDir] });
  const log = manager.getOrCreateLog({ topic: 'dump', partition: 0 }, { config: { 'segment.bytes': 4000, 'index.interval.bytes': 300 } });
  const ts = Date.now();
  for (let i = 0; i < 40; i++) log.append(producedBatch(1 + (i % 3), 100, ts + i, i), { leaderEpoch: 5 });
  const end = log.logEndOffset;
  const segments = log.segmentBaseOffsets;
  manager.close();
  const files = segments.flatMap((base) =>
    ['.log', '.index', '.timeindex'].map((ext) => join(logDir, 'dump-0', String(base).padStart(20, '0') + ext)),
  );
  const { stdout } = await execFileAsync(
    'java',
    ['-cp', kafkaClasspath(), 'org.apache.kafka.tools.DumpLogSegments', '--deep-iteration', '--files', files.join(',')],
    {
      maxBuffer: 64 * 1024 * 1024,
      timeout: 60_000,
    },
  );
  const offsets = [...stdout.matchAll(/^\| offset: (\d+) CreateTime: (\d+) keySize: \d+ valueSize: 100/gm)].map((m) => Number(m[1]));
  assert.deepEqual(
    offsets,
    Array.from({ length: end }, (_, i) => i),
  );
  assert.equal([...stdout.matchAll(/isvalid: true/g)].length, 40);
  assert.doesNotMatch(stdout, /isvalid: false|Mismatches|Found timestamp mismatch|not an index entry|Index is corrupt/i);
  const indexEntries = [...stdout.matchAll(/^offset: (\d+) position: (\d+)$/gm)];
  assert.ok(indexEntries.length > 0, 'offset index entries dumped');
  assert.ok([...stdout.matchAll(/^timestamp: \d+ offset: \d+$/gm)].length > 0, 'time index entries dumped');
});

test(`Sluice serves a partition directory written by Kafka ${KAFKA_VERSION}`, { timeout: 120_000, skip: javaSkip() }, async () => {
  const { Kafka, logLevel, CompressionTypes } = (await import('kafkajs')).default;
  const port = await freePort();
  const controllerPort = await freePort();
  const kafkaDir = join(root.path, 'kafka');
  const broker = await startKafka({
    port,
    controllerPort,
    logDir: kafkaDir,
    config: { 'log.segment.bytes': '1048576', 'log.index.interval.bytes': '500' },
  });
  const sent: string[] = [];
  try {
    const client = new Kafka({ brokers: [broker.bootstrap], clientId: 'sluice-compat', logLevel: logLevel.NOTHING });
    const admin = client.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'from-kafka', numPartitions: 1 }], waitForLeaders: true });
    await admin.disconnect();
    const producer = client.producer();
    await producer.connect();
    for (let i = 0; i < 150; i++) {
      const messages = Array.from({ length: 5 }, (_, j) => ({ key: `k${i}`, value: `value-${i}-${j}-${'x'.repeat(4000)}` }));
      sent.push(...messages.map((m) => m.value));
      await producer.send({ topic: 'from-kafka', messages, compression: i % 2 === 0 ? CompressionTypes.None : CompressionTypes.GZIP });
    }
    await producer.disconnect();
  } finally {
    await broker.stop();
  }
  const manager = LogManager.open({ logDirs: [join(kafkaDir, 'data')] });
  const log = manager.getLog({ topic: 'from-kafka', partition: 0 })!;
  assert.ok(log !== undefined, 'partition loaded');
  assert.ok(log.segmentCount > 1, `segments: ${log.segmentCount}`);
  assert.equal(log.logEndOffset, sent.length);
  const { decompress } = await import('../../../src/native/index.js');
  const { readBatchHeader, readRecords } = await import('@sluice/protocol/records/index.js');
  const values: string[] = [];
  for (let offset = 0; offset < log.logEndOffset;) {
    const bytes = log.readBuffer(offsetOf(offset), 1 << 20);
    for (let at = 0; ;) {
      const header = readBatchHeader(bytes, at);
      if (header === null) break;
      for (const record of readRecords(bytes, header, { decompress })) values.push(record.value!.toString());
      offset = Number(header.baseOffset) + header.lastOffsetDelta + 1;
      at = header.end;
    }
  }
  assert.deepEqual(values, sent);
  assert.equal(decodeBatches(log.readBuffer(offsetOf(sent.length - 1), 1)).length, 1);
  const byTime = log.offsetForTimestamp(0);
  assert.deepEqual(byTime?.offset, 0);
  manager.close();
});
