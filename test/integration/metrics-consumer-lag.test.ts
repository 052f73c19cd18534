/**
 * Consumer-group lag on /metrics of the broker process, over real sockets: a KafkaJS group reads
 * and commits a three-partition topic spread over two workers, more records are produced, and
 * the scrape shows exactly the records produced since — per partition, summed per topic, and
 * for a second group whose offsets an admin set — then 0 once the group has read and committed
 * them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { metricsUrl, startBrokerProcess, type BrokerProcess } from '../helpers/broker-process.js';
import { waitFor } from './groups/group-helpers.js';
import { parseExposition, select, type Sample } from '../unit/metrics/prometheus-text-helper.js';

const TOPIC = 'lagged';
const PARTITIONS = 3;
const GROUP = 'lag-readers';
/** A group that never consumes: an admin sets its offsets (a simple group). */
const ADMIN_GROUP = 'lag-admin-set';

describe('consumer group lag on /metrics', () => {
  let broker: BrokerProcess;
  let url: string;
  let kafka: Kafka;
  let admin: Admin;
  /** Records produced so far, per partition: the high watermarks. */
  const ends = [0, 0, 0];

  const scrape = async (): Promise<Sample[]> => {
    const res = await fetch(url);
    assert.equal(res.status, 200);
    return parseExposition(await res.text());
  };

  /** Per partition of `TOPIC`, the value of `name` for `group` (undefined where there is no series). */
  const perPartition = (samples: readonly Sample[], name: string, group: string): Array<number | undefined> =>
    Array.from({ length: PARTITIONS }, (_, p) => {
      const found = select(samples, name, { group, topic: TOPIC, partition: String(p) });
      assert.ok(found.length <= 1, `one ${name} series per group and partition`);
      return found[0]?.value;
    });

  const produce = async (counts: readonly number[]): Promise<void> => {
    const producer = kafka.producer();
    await producer.connect();
    const messages = counts.flatMap((n, partition) =>
      Array.from({ length: n }, (_, i) => ({ partition, value: `p${partition}-${ends[partition]! + i}` })),
    );
    await producer.send({ topic: TOPIC, acks: -1, messages });
    await producer.disconnect();
    counts.forEach((n, p) => (ends[p]! += n));
  };

  /** Runs the group until it has read and committed everything produced, then leaves. */
  const consumeAll = async (): Promise<void> => {
    const consumer = kafka.consumer({ groupId: GROUP, heartbeatInterval: 500, maxWaitTimeInMs: 200 });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
      await consumer.run({ eachMessage: async () => undefined });
      await waitFor('the group to commit every partition up to its end', 30_000, async () => {
        const [committed] = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] });
        const offsets = [...committed!.partitions].sort((a, b) => a.partition - b.partition).map((p) => Number(p.offset));
        return offsets.every((o, p) => o === ends[p]) && offsets.length === PARTITIONS ? true : undefined;
      });
    } finally {
      await consumer.disconnect();
    }
  };

  before(async () => {
    broker = await startBrokerProcess({
      'metrics.listener': 'http://127.0.0.1:0',
      // Three partitions over two workers: the scrape asks both for high watermarks.
      'num.partition.workers': '2',
      'group.initial.rebalance.delay.ms': '0',
    });
    url = await metricsUrl(broker);
    kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 5, initialRetryTime: 100 } });
    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS }] });
  });
  after(async () => {
    await admin?.disconnect();
    await broker?.stop();
  });

  test('no group has committed yet: no lag series', async () => {
    await produce([3, 5, 7]);
    const s = await scrape();
    assert.deepEqual(select(s, 'sluice_consumergroup_lag'), []);
    assert.deepEqual(select(s, 'sluice_consumergroup_lag_sum'), []);
  });

  test('after the group commits everything, lag is 0 on every partition', async () => {
    await consumeAll();
    const s = await scrape();
    assert.deepEqual(perPartition(s, 'sluice_consumergroup_committed_offset', GROUP), [3, 5, 7]);
    assert.deepEqual(perPartition(s, 'sluice_consumergroup_lag', GROUP), [0, 0, 0]);
    assert.deepEqual(
      select(s, 'sluice_consumergroup_lag_sum', { group: GROUP, topic: TOPIC }).map((x) => x.value),
      [0],
    );
  });

  test('records produced since the commit are the lag, exactly, for the group and an admin-set group', async () => {
    await produce([2, 0, 4]);
    await admin.setOffsets({
      groupId: ADMIN_GROUP,
      topic: TOPIC,
      partitions: [
        { partition: 0, offset: '1' },
        { partition: 2, offset: '11' },
      ],
    });
    const s = await scrape();
    assert.deepEqual(perPartition(s, 'sluice_consumergroup_committed_offset', GROUP), [3, 5, 7]);
    assert.deepEqual(perPartition(s, 'sluice_consumergroup_lag', GROUP), [2, 0, 4]);
    assert.deepEqual(
      select(s, 'sluice_consumergroup_lag_sum', { group: GROUP, topic: TOPIC }).map((x) => x.value),
      [6],
    );
    // Ends are now 5, 5, 11: the admin group is 4 behind on partition 0, caught up on 2, absent on 1.
    assert.deepEqual(perPartition(s, 'sluice_consumergroup_lag', ADMIN_GROUP), [4, undefined, 0]);
    assert.deepEqual(
      select(s, 'sluice_consumergroup_lag_sum', { group: ADMIN_GROUP, topic: TOPIC }).map((x) => x.value),
      [4],
    );
  });

  test('once the group has read and committed the new records, its lag is back to 0', async () => {
    await consumeAll();
    const s = await scrape();
    assert.deepEqual(perPartition(s, 'sluice_consumergroup_committed_offset', GROUP), [5, 5, 11]);
    assert.deepEqual(perPartition(s, 'sluice_consumergroup_lag', GROUP), [0, 0, 0]);
    assert.deepEqual(
      select(s, 'sluice_consumergroup_lag_sum', { group: GROUP, topic: TOPIC }).map((x) => x.value),
      [0],
    );
  });
});
