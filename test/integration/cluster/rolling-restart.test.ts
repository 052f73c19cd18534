// A rolling restart (SIGTERM, start, wait for the full ISR, next broker) of a 3-broker cluster
// under continuous acks=all produce by the idempotent Java producer (RF=3, min.insync.replicas=2)
// and a KafkaJS consumer group: no acknowledged record is lost or duplicated, no send fails, and
// the group reads every record.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { startCluster, type TestCluster } from '../../helpers/cluster.js';
import { kcatRead, runJava } from '../../helpers/interop.js';
import { recordsByPartition } from '../../helpers/interop-records.js';
import { javaSkip, kcatSkip, zooKeeperSkip } from '../../helpers/requirements.js';
import { waitFor, when } from '../../helpers/wait-for.js';

const TOPIC = 'rolling';
const PARTITIONS = 3;
const COUNT = 1200;

describe('rolling restart under load', { skip: zooKeeperSkip() ?? javaSkip() ?? kcatSkip() }, () => {
  let cluster: TestCluster;
  let consumer: Consumer | null = null;
  before(async () => {
    cluster = await startCluster(3, { 'group.initial.rebalance.delay.ms': '0' });
  });
  after(async () => {
    await Promise.race([consumer?.disconnect().catch(() => undefined), sleep(10_000)]);
    await cluster?.stop();
  });

  test(
    'every acknowledged record survives, exactly once and in order, and the consumer group reads them all',
    { timeout: 240_000 },
    async () => {
      let acked = 0;
      let restarting: Promise<void> | undefined;
      const restartEach = async (): Promise<void> => {
        for (const id of [1, 2, 3]) {
          const broker = cluster.brokers[id - 1]!;
          const stopping = Date.now();
          const code = await broker.stop();
          // What the broker was doing when it did not stop in time is the only clue to why.
          assert.equal(
            code,
            0,
            `broker ${id} stops cleanly (exit ${code} after ${Date.now() - stopping} ms); its last log lines:\n${broker.stderr().split('\n').slice(-40).join('\n')}`,
          );
          await cluster.startBroker(id);
          await cluster.waitFor(
            `broker ${id} back in every ISR of ${TOPIC}`,
            (m) => {
              const t = m.topics.find((x) => x.name === TOPIC);
              return m.brokers.length === 3 && t !== undefined && t.partitions.every((p) => p.isrNodes.length === 3);
            },
            60_000,
          );
        }
      };
      const seen = new Set<string>();
      const kafka = new Kafka({
        brokers: cluster.bootstrap().split(','),
        logLevel: logLevel.NOTHING,
        retry: { retries: 50, initialRetryTime: 200, maxRetryTime: 2000 },
      });
      consumer = kafka.consumer({ groupId: 'rolling-group', sessionTimeout: 10_000, heartbeatInterval: 500, maxWaitTimeInMs: 300 });
      await consumer.connect();
      const run = runJava(
        'stream',
        cluster.bootstrap(),
        { topic: TOPIC, partitions: PARTITIONS, count: COUNT, intervalMs: 15, replicationFactor: 3 },
        (line) => {
          if (line['type'] === 'acked' && ++acked === 100) restarting = restartEach();
        },
      );
      // The group joins while the producer starts (its topic exists once the producer made it).
      await waitFor(`the topic ${TOPIC}`, 60_000, async () =>
        when((await cluster.metadata([TOPIC]).catch(() => null))?.topics[0]?.errorCode === 0),
      );
      await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void seen.add(message.value!.toString()) });
      const lines = await run;
      assert.ok(restarting !== undefined, 'the rolling restart began');
      await restarting;

      assert.deepEqual(
        lines.filter((l) => l['type'] === 'failed'),
        [],
        'no send failed: the clients saw only retriable errors',
      );
      const ackedLines = lines.filter((l) => l['type'] === 'acked');
      assert.equal(ackedLines.length, COUNT);
      const read = await kcatRead(cluster.bootstrap(), TOPIC);
      assert.equal(read.length, COUNT, 'nothing lost, nothing duplicated');
      for (const [partition, rs] of recordsByPartition(read)) {
        const values = rs.map((r) => Buffer.from(r.value!, 'hex').toString());
        assert.deepEqual(
          values,
          [...Array(COUNT).keys()].filter((i) => i % PARTITIONS === partition).map((i) => `v${i}`),
          `partition ${partition} in send order`,
        );
      }
      const at = new Map(read.map((r) => [`${r.partition}@${r.offset}`, r.value]));
      for (const l of ackedLines)
        assert.equal(
          at.get(`${l['partition']}@${l['offset']}`),
          Buffer.from(`v${l['index']}`).toString('hex'),
          `record ${l['index']} at its acknowledged offset`,
        );

      await waitFor('the consumer group to read every record', 60_000, () => when(seen.size >= COUNT), 200);
      assert.equal(seen.size, COUNT, 'the consumer group read every record');
    },
  );
});
