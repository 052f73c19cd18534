// KafkaJS against the broker process: producer (plain and idempotent) with keys, headers and
// timestamps in gzip and none, read back byte-exact with kcat (KafkaJS's consumer needs consumer
// groups), and the admin offset operations.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompressionTypes, Kafka, logLevel, type Admin } from 'kafkajs';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { kcatRead } from '../../helpers/interop.js';
import {
  assertReadBack,
  CODEC_ID,
  codecsOnDisk,
  expectedOffsetForTime,
  makeRecords,
  kafkajsHeaders,
  recordsByPartition,
  toKafkaJsMessage,
} from '../../helpers/interop-records.js';
import { kcatSkip } from '../../helpers/requirements.js';

const PARTITIONS = 3;
const PER_PARTITION = 12;
const CODECS = [
  { name: 'none', kafkajs: CompressionTypes.None, id: CODEC_ID.none, idempotent: false },
  { name: 'gzip', kafkajs: CompressionTypes.GZIP, id: CODEC_ID.gzip, idempotent: true },
] as const;

describe('KafkaJS', { skip: kcatSkip() }, () => {
  let dir: string;
  let broker: BrokerProcess;
  let kafka: Kafka;
  let admin: Admin;
  // Null header values and binary header bytes cannot be shown by kcat, the reader here.
  const records = makeRecords('kjs', PARTITIONS, PER_PARTITION, { nullHeaderValues: false, textHeaders: true });
  const expected = records.map((r) => ({ ...r, headers: kafkajsHeaders(r.headers).sent }));

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-interop-kafkajs-'));
    broker = await startBrokerProcess({ 'log.dirs': dir, 'auto.create.topics.enable': 'false' });
    kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 3, initialRetryTime: 100 } });
    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: CODECS.map((c) => ({ topic: `kjs-${c.name}`, numPartitions: PARTITIONS })) });
  });
  after(async () => {
    await admin?.disconnect();
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const codec of CODECS) {
    test(`producer (${codec.name}${codec.idempotent ? ', idempotent' : ''}): read back byte-exact with kcat`, async () => {
      const topic = `kjs-${codec.name}`;
      const producer = kafka.producer({ idempotent: codec.idempotent, allowAutoTopicCreation: false });
      await producer.connect();
      try {
        // Three sends, so each partition gets several batches.
        const third = Math.ceil(records.length / 3);
        for (let i = 0; i < records.length; i += third) {
          const acks = await producer.send({
            topic,
            acks: -1,
            compression: codec.kafkajs,
            messages: records.slice(i, i + third).map(toKafkaJsMessage),
          });
          assert.ok(
            acks.every((a) => a.errorCode === 0),
            JSON.stringify(acks),
          );
        }
      } finally {
        await producer.disconnect();
      }
      assertReadBack(expected, await kcatRead(broker.bootstrap, topic));
      assert.deepEqual(codecsOnDisk(dir, topic), new Set([codec.id]));
    });
  }

  test('admin: fetchTopicOffsets, fetchTopicOffsetsByTimestamp, deleteTopicRecords', async () => {
    const topic = 'kjs-none';
    const byPartition = recordsByPartition(records);
    const sortByPartition = <T extends { partition: number }>(list: T[]): T[] => [...list].sort((a, b) => a.partition - b.partition);
    const offsets = sortByPartition(await admin.fetchTopicOffsets(topic));
    assert.deepEqual(
      offsets.map((o) => [o.partition, o.low, o.high, o.offset]),
      [0, 1, 2].map((p) => [p, '0', String(PER_PARTITION), String(PER_PARTITION)]),
    );

    for (const at of [byPartition.get(1)![5]!.timestamp, byPartition.get(1)![5]!.timestamp + 1, 0]) {
      const found = sortByPartition(await admin.fetchTopicOffsetsByTimestamp(topic, at));
      assert.deepEqual(
        found.map((o) => [o.partition, Number(o.offset)]),
        [0, 1, 2].map((p) => [p, expectedOffsetForTime(records, p, at)]),
        `timestamp ${at}`,
      );
    }
    // No record at or after the timestamp: Kafka answers -1, which KafkaJS turns into the end offset.
    const late = sortByPartition(await admin.fetchTopicOffsetsByTimestamp(topic, Date.now() + 60_000));
    assert.deepEqual(
      late.map((o) => o.offset),
      [0, 1, 2].map(() => String(PER_PARTITION)),
    );

    await admin.deleteTopicRecords({
      topic,
      partitions: [
        { partition: 0, offset: '5' },
        { partition: 2, offset: '-1' },
      ],
    });
    const after = sortByPartition(await admin.fetchTopicOffsets(topic));
    assert.deepEqual(
      after.map((o) => [o.low, o.high]),
      [
        ['5', String(PER_PARTITION)],
        ['0', String(PER_PARTITION)],
        [String(PER_PARTITION), String(PER_PARTITION)],
      ],
    );
    const read = await kcatRead(broker.bootstrap, topic);
    assert.deepEqual(
      sortByPartition([...recordsByPartition(read)].map(([partition, list]) => ({ partition, first: list[0]!.offset, n: list.length }))),
      [
        { partition: 0, first: 5, n: PER_PARTITION - 5 },
        { partition: 1, first: 0, n: PER_PARTITION },
      ],
    );
  });
});
