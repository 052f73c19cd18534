// kill -9 of a partition leader while two idempotent acks=all producers write to the cluster
// (the Java client and librdkafka through @confluentinc/kafka-javascript) and a KafkaJS group
// consumes and commits: every acknowledged record survives exactly once at its acknowledged
// offset, the committed offsets never go backwards, and a consumer that joins the group later
// continues from the commits.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel, type Admin, type Consumer } from 'kafkajs';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { CreateTopicsRequest, CreateTopicsResponse } from '@sluice/protocol/messages/index.js';
import { startCluster, type TestCluster } from '../../helpers/cluster.js';
import { CONFLUENT_JS_SKIP, confluentKafka } from '../../helpers/confluent-js.js';
import { kcat, kcatRead, runJava, type JsonLine } from '../../helpers/interop.js';
import { recordsByPartition } from '../../helpers/interop-records.js';
import { javaSkip, kcatSkip, zooKeeperSkip } from '../../helpers/requirements.js';
import { waitFor, when } from '../../helpers/wait-for.js';
import { wireCall } from '../../helpers/wire-call.js';

const JAVA_TOPIC = 'killed-java';
const RDKAFKA_TOPIC = 'killed-rdkafka';
const GROUP = 'killed-group';
const PARTITIONS = 3;
const COUNT = 900;
const SESSION_MS = 4000;

describe('kill -9 of a leader under acks=all produce', { skip: zooKeeperSkip() ?? javaSkip() ?? kcatSkip() ?? CONFLUENT_JS_SKIP }, () => {
  let cluster: TestCluster;
  let kafka: Kafka;
  let admin: Admin;
  const consumers: Consumer[] = [];
  before(async () => {
    cluster = await startCluster(3, { 'zookeeper.session.timeout.ms': String(SESSION_MS), 'group.initial.rebalance.delay.ms': '0' });
    kafka = new Kafka({
      brokers: cluster.bootstrap().split(','),
      logLevel: logLevel.NOTHING,
      retry: { retries: 50, initialRetryTime: 200, maxRetryTime: 2000 },
    });
    admin = kafka.admin();
    await admin.connect();
  });
  after(async () => {
    await Promise.race([Promise.all([admin?.disconnect(), ...consumers.map((c) => c.disconnect())]).catch(() => undefined), sleep(10_000)]);
    await cluster?.stop();
  });

  const groupConsumer = async (seen: Map<string, number>): Promise<Consumer> => {
    const consumer = kafka.consumer({ groupId: GROUP, sessionTimeout: 10_000, heartbeatInterval: 500, maxWaitTimeInMs: 300 });
    consumers.push(consumer);
    await consumer.connect();
    await consumer.subscribe({ topic: JAVA_TOPIC, fromBeginning: true });
    await consumer.run({
      autoCommitInterval: 300,
      eachMessage: async ({ partition, message }) => void seen.set(`${partition}@${message.offset}`, Number(message.offset)),
    });
    return consumer;
  };
  const committed = async (): Promise<number[]> => {
    const [t] = await admin.fetchOffsets({ groupId: GROUP, topics: [JAVA_TOPIC] });
    return [...(t?.partitions ?? [])].sort((a, b) => a.partition - b.partition).map((p) => Number(p.offset));
  };

  test(
    'every acknowledged record survives at its offset, the group commits only forward and continues from its commits',
    { timeout: 240_000 },
    async () => {
      const created = await wireCall(cluster.anyBroker(), CreateTopicsRequest, CreateTopicsResponse, 7, {
        topics: [
          {
            name: RDKAFKA_TOPIC,
            numPartitions: PARTITIONS,
            replicationFactor: 3,
            assignments: [],
            configs: [{ name: 'min.insync.replicas', value: '2' }],
          },
        ],
        timeoutMs: 30_000,
        validateOnly: false,
      });
      assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);

      let killed: Promise<number> | undefined;
      const killLeader = async (): Promise<number> => {
        const m = await cluster.metadata([JAVA_TOPIC]);
        const leader = m.topics[0]!.partitions.find((p) => p.partitionIndex === 0)!.leaderId;
        cluster.brokers[leader - 1]!.child.kill('SIGKILL');
        return leader;
      };
      let acked = 0;
      const javaRun = runJava(
        'stream',
        cluster.bootstrap(),
        { topic: JAVA_TOPIC, partitions: PARTITIONS, count: COUNT, intervalMs: 15, replicationFactor: 3 },
        (line: JsonLine) => {
          if (line['type'] === 'acked' && ++acked === 150) killed = killLeader();
        },
      );

      // librdkafka's idempotent producer: one record in flight at a time, each acknowledgement with its offset.
      const rdkafka = confluentKafka(cluster.bootstrap()).producer({ kafkaJS: { acks: -1, idempotent: true } });
      await rdkafka.connect();
      const rdAcked: Array<{ value: string; partition: number; offset: number }> = [];
      const rdFailed: string[] = [];
      const rdRun = (async () => {
        for (let i = 0; i < COUNT / 3; i++) {
          const value = `r${i}`;
          try {
            const [meta] = await rdkafka.send({ topic: RDKAFKA_TOPIC, messages: [{ value, partition: i % PARTITIONS }] });
            rdAcked.push({ value, partition: meta!.partition, offset: Number(meta!.baseOffset) });
          } catch (err) {
            rdFailed.push(`${value}: ${(err as Error).message}`);
          }
          // Kept: paced on purpose, spread over the Java producer's run, so the kill lands in the middle of both.
          await sleep(30);
        }
        await rdkafka.disconnect();
      })();

      // The group joins once the Java producer has made its topic, and its commits are sampled throughout.
      await waitFor(`the topic ${JAVA_TOPIC}`, 60_000, async () =>
        when((await cluster.metadata([JAVA_TOPIC]).catch(() => null))?.topics[0]?.errorCode === ErrorCode.NONE),
      );
      const seen = new Map<string, number>();
      await groupConsumer(seen);
      const samples: number[][] = [];
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          samples.push(await committed().catch(() => samples.at(-1) ?? []));
          // Kept: a sampling pace, not a wait for a condition.
          await sleep(250);
        }
      })();

      const lines = await javaRun;
      await rdRun;
      assert.ok(killed !== undefined, 'a leader was killed mid-stream');
      const victim = await killed;

      assert.deepEqual(
        lines.filter((l) => l['type'] === 'failed'),
        [],
        'no Java send failed',
      );
      const javaAcked = lines.filter((l) => l['type'] === 'acked');
      assert.equal(javaAcked.length, COUNT);
      const javaRead = await kcatRead(cluster.bootstrap(), JAVA_TOPIC);
      assert.equal(javaRead.length, COUNT, 'every Java record once: nothing lost, nothing duplicated');
      const javaAt = new Map(javaRead.map((r) => [`${r.partition}@${r.offset}`, r.value]));
      for (const l of javaAcked)
        assert.equal(
          javaAt.get(`${l['partition']}@${l['offset']}`),
          Buffer.from(`v${l['index']}`).toString('hex'),
          `Java record ${l['index']} at its acknowledged offset`,
        );

      assert.deepEqual(rdFailed, [], 'no librdkafka send failed');
      const rdRead = await kcatRead(cluster.bootstrap(), RDKAFKA_TOPIC);
      assert.equal(rdRead.length, COUNT / 3, 'every librdkafka record once');
      const rdAt = new Map(rdRead.map((r) => [`${r.partition}@${r.offset}`, Buffer.from(r.value!, 'hex').toString()]));
      for (const a of rdAcked)
        assert.equal(rdAt.get(`${a.partition}@${a.offset}`), a.value, `librdkafka record ${a.value} at its acknowledged offset`);
      for (const [partition, rs] of recordsByPartition(rdRead)) {
        const values = rs.map((r) => Number(Buffer.from(r.value!, 'hex').toString().slice(1)));
        assert.deepEqual(
          values,
          [...values].sort((x, y) => x - y),
          `librdkafka partition ${partition} in send order`,
        );
      }

      await waitFor('the group to read every record', 60_000, () => when(seen.size >= COUNT), 200);
      assert.equal(seen.size, COUNT, 'the group read every record');
      await consumers[0]!.disconnect();
      sampling = false;
      await sampler;
      const final = await committed();
      assert.deepEqual(final, recordsByPartitionEnds(javaRead), 'the group committed everything it read');
      for (let i = 1; i < samples.length; i++) {
        samples[i]!.forEach((offset, p) =>
          assert.ok(offset >= (samples[i - 1]![p] ?? -1), `partition ${p}'s commit went from ${samples[i - 1]![p]} back to ${offset}`),
        );
      }

      // The broker comes back; a new member of the group starts at the commits, not at the beginning.
      await cluster.startBroker(victim);
      const later = new Map<string, number>();
      await groupConsumer(later);
      for (let p = 0; p < PARTITIONS; p++)
        await kcat(['-b', cluster.bootstrap(), '-P', '-t', JAVA_TOPIC, '-p', String(p), '-X', 'acks=all'], `late-${p}\n`);
      await waitFor('the new member to read the late records', 60_000, () => when(later.size >= PARTITIONS), 200);
      assert.deepEqual(
        [...later.keys()].sort(),
        final.map((offset, p) => `${p}@${offset}`).sort(),
        'the new member reads only what came after the commits',
      );
    },
  );
});

/** The end offset of each partition (its record count, as the topics are never trimmed). */
function recordsByPartitionEnds(read: Awaited<ReturnType<typeof kcatRead>>): number[] {
  const byPartition = recordsByPartition(read);
  return Array.from({ length: PARTITIONS }, (_, p) => byPartition.get(p)?.length ?? 0);
}
