// @confluentinc/kafka-javascript (librdkafka 2.15, KafkaJS-compatible API) against the broker
// process: an idempotent producer per codec with keys, headers and timestamps, read back
// byte-exact in order per partition by a consumer group member; the stored batches must carry
// each codec.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { ckReadRecord, confluentKafka, CONFLUENT_JS_SKIP, type CkAdmin, type CkKafka } from '../../helpers/confluent-js.js';
import {
  assertReadBack,
  CODEC_ID,
  CODECS,
  codecsOnDisk,
  kafkajsHeaders,
  makeRecords,
  toKafkaJsMessage,
  type ReadRecord,
} from '../../helpers/interop-records.js';
import { waitFor } from '../groups/group-helpers.js';

const PARTITIONS = 3;
const PER_PARTITION = 12;
const topicOf = (codec: string): string => `ckjs-${codec}`;

describe('@confluentinc/kafka-javascript', { skip: CONFLUENT_JS_SKIP }, () => {
  let dir: string;
  let broker: BrokerProcess;
  let kafka: CkKafka;
  let admin: CkAdmin;
  // KafkaJS-style headers are an object: no null values, repeated keys grouped. The producer
  // sends an empty value as null (its consumer does return empty values other clients wrote).
  const records = makeRecords('ckjs', PARTITIONS, PER_PARTITION, { nullHeaderValues: false });
  const expected = records.map((r) => ({ ...r, value: r.value === '' ? null : r.value, headers: kafkajsHeaders(r.headers).sent }));

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-interop-ckjs-'));
    broker = await startBrokerProcess({ 'log.dirs': dir, 'auto.create.topics.enable': 'false', 'group.initial.rebalance.delay.ms': '0' });
    kafka = confluentKafka(broker.bootstrap);
    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: CODECS.map((c) => ({ topic: topicOf(c), numPartitions: PARTITIONS })) });
  });
  after(async () => {
    await admin?.disconnect();
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('idempotent producer per codec, consumer group read-back byte-exact in order per partition', { timeout: 60_000 }, async () => {
    for (const codec of CODECS) {
      const producer = kafka.producer({ kafkaJS: { acks: -1, idempotent: true, compression: codec } });
      await producer.connect();
      try {
        // Three sends, so each partition gets several batches.
        const third = Math.ceil(records.length / 3);
        for (let i = 0; i < records.length; i += third) {
          const acks = await producer.send({ topic: topicOf(codec), messages: records.slice(i, i + third).map(toKafkaJsMessage) });
          assert.ok(acks.length > 0 && acks.every((a) => a.errorCode === 0), `${codec}: ${JSON.stringify(acks)}`);
        }
      } finally {
        await producer.disconnect();
      }
    }

    const read = new Map<string, ReadRecord[]>(CODECS.map((c) => [topicOf(c), []]));
    const consumer = kafka.consumer({ kafkaJS: { groupId: 'ckjs-readback', fromBeginning: true, autoCommit: false } });
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: CODECS.map(topicOf) });
      await consumer.run({
        eachMessage: async ({ topic, partition, message }) => void read.get(topic)!.push(ckReadRecord(partition, message)),
      });
      const total = (): number => [...read.values()].reduce((n, list) => n + list.length, 0);
      await waitFor('every record read back', 30_000, () => (total() >= CODECS.length * records.length ? true : undefined));
    } finally {
      await consumer.disconnect();
    }
    for (const codec of CODECS) {
      // assertReadBack fails on a duplicate or an extra record as well as on a missing one.
      assertReadBack(expected, read.get(topicOf(codec))!);
      assert.deepEqual(codecsOnDisk(dir, topicOf(codec)), new Set([CODEC_ID[codec]]), `${codec}: batches on disk`);
    }
  });
});
