/**
 * Moving a partition between the log dirs of one broker process (AlterReplicaLogDirs) while a
 * KafkaJS producer keeps writing to it: `sluice reassign-partitions` with `log_dirs` starts the
 * move, DescribeLogDirs shows the future replica until the swap, and every acknowledged record is
 * read back in order from the new dir; a kill -9 in the middle of a move loses nothing and the
 * move resumes after the restart; Kafka 4.4's kafka-reassign-partitions drives and verifies a
 * move the same way. Last, one dir fails: described KAFKA_STORAGE_ERROR, its partition offline in
 * the metadata, the other dir serving.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import * as M from '@sluice/protocol/messages/index.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { kafkaClasspath } from '../../../tools/kafka/kafka-release.js';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { INTEROP_DIR, runProcess } from '../../helpers/interop.js';
import { javaSkip } from '../../helpers/requirements.js';
import { ok, runCli } from '../../helpers/run-cli.js';
import { waitFor } from '../../helpers/wait-for.js';
import { wireCall } from '../../helpers/wire-call.js';

/** Slow enough that a move of a megabyte is seen under way for a few seconds (the two workers share it). */
const MOVE_RATE = '600000';
const VALUE_BYTES = 2000;

interface Placement {
  readonly current: string | null;
  readonly future: string | null;
  readonly futureLag: bigint;
}

async function placement(bootstrap: string, topic: string): Promise<Placement> {
  const res = await wireCall(bootstrap, M.DescribeLogDirsRequest, M.DescribeLogDirsResponse, 4, { topics: [{ topic, partitions: [0] }] });
  let current: string | null = null;
  let future: string | null = null;
  let futureLag = -1n;
  for (const dir of res.results) {
    for (const p of dir.topics.flatMap((t) => t.partitions)) {
      if (p.isFutureKey) [future, futureLag] = [dir.logDir, p.offsetLag];
      else current = dir.logDir;
    }
  }
  return { current, future, futureLag };
}

function client(bootstrap: string): Kafka {
  return new Kafka({ brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 2, initialRetryTime: 100 } });
}

/** Acknowledged records by offset: the value each was acknowledged with. */
type Acked = Map<number, string>;

async function produce(producer: Producer, topic: string, acked: Acked, tag: string, count: number): Promise<void> {
  const values = Array.from({ length: count }, (_, i) => `${tag}-${i}-`.padEnd(VALUE_BYTES, 'x'));
  const [ack] = await producer.send({ topic, acks: -1, messages: values.map((value) => ({ value })) });
  assert.equal(ack!.errorCode, 0);
  values.forEach((value, i) => acked.set(Number(ack!.baseOffset) + i, value));
}

/** Every acknowledged record is read back at its offset, and the offsets read are consecutive. */
async function assertAllRead(bootstrap: string, topic: string, acked: Acked): Promise<void> {
  const last = Math.max(...acked.keys());
  const consumer = client(bootstrap).consumer({ groupId: `check-${topic}-${Date.now()}` });
  await consumer.connect();
  const read = new Map<number, string>();
  let previous = -1;
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    const done = new Promise<void>((resolve, reject) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          const offset = Number(message.offset);
          if (offset !== previous + 1) reject(new Error(`offset ${offset} read after ${previous}`));
          previous = offset;
          read.set(offset, message.value!.toString());
          if (offset >= last) resolve();
        },
      });
    });
    // An unreferenced timer: it must not keep the test process alive once the read is done.
    await Promise.race([
      done,
      sleep(60_000, undefined, { ref: false }).then(() => Promise.reject(new Error(`read up to ${previous} of ${last}`))),
    ]);
  } finally {
    await consumer.disconnect();
  }
  for (const [offset, value] of acked) assert.equal(read.get(offset), value, `acknowledged record at ${offset}`);
}

describe('moving a partition between the log dirs of a broker process', () => {
  let root: string;
  let dirs: string[];
  let broker: BrokerProcess;
  const start = async (rate: string): Promise<void> => {
    broker = await startBrokerProcess({
      'log.dirs': dirs.join(','),
      'num.partitions': '1',
      'replica.alter.log.dirs.io.max.bytes.per.second': rate,
      'num.partition.workers': '2',
      'group.initial.rebalance.delay.ms': '0',
    });
  };
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'sluice-log-dir-moves-'));
    dirs = [join(root, 'a'), join(root, 'b')];
    await start(MOVE_RATE);
  });
  after(async () => {
    await broker?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  test('a KafkaJS producer keeps writing while sluice reassign-partitions moves the partition; DescribeLogDirs shows the future replica; every acknowledged record is read back', async () => {
    const producer = client(broker.bootstrap).producer({ allowAutoTopicCreation: true });
    await producer.connect();
    const acked: Acked = new Map();
    try {
      for (let i = 0; i < 10; i++) await produce(producer, 'moving', acked, `before${i}`, 50);
      const from = (await placement(broker.bootstrap, 'moving')).current!;
      const to = dirs.find((d) => d !== from)!;
      const plan = join(root, 'move.json');
      writeFileSync(
        plan,
        JSON.stringify({ version: 1, partitions: [{ topic: 'moving', partition: 0, replicas: [0], log_dirs: [to, 'any'] }] }),
      );
      const refused = await runCli([
        'reassign-partitions',
        '--bootstrap-server',
        broker.bootstrap,
        '--execute',
        '--reassignment-json-file',
        plan,
      ]);
      assert.notEqual(refused.code, 0);
      assert.match(
        refused.stderr,
        new RegExp(`Size of replicas list \\[0\\] is different from size of log dirs list \\[${to}, any\\] for partition moving-0`),
      );
      writeFileSync(plan, JSON.stringify({ version: 1, partitions: [{ topic: 'moving', partition: 0, replicas: [0], log_dirs: [to] }] }));

      let producing = true;
      const background = (async () => {
        for (let i = 0; producing; i++) {
          // Kept: a paced producer, far below the copy rate, so that the move catches up.
          await produce(producer, 'moving', acked, `during${i}`, 1);
          await sleep(50);
        }
      })();
      const execute = ok(
        await runCli(['reassign-partitions', '--bootstrap-server', broker.bootstrap, '--execute', '--reassignment-json-file', plan]),
        'execute',
      );
      assert.match(execute, new RegExp(`Successfully started moving log directory to ${to} for replica moving-0 with broker 0`));
      const seen = await waitFor(
        'the future replica',
        60_000,
        async () => {
          const p = await placement(broker.bootstrap, 'moving');
          return p.future === to ? p : undefined;
        },
        50,
      );
      assert.equal(seen.current, from, 'the current replica serves from its dir meanwhile');
      assert.ok(seen.futureLag > 0n, `the future replica is behind (${seen.futureLag})`);
      await waitFor(
        'the swap',
        60_000,
        async () => {
          const p = await placement(broker.bootstrap, 'moving');
          return p.current === to && p.future === null ? p : undefined;
        },
        50,
      );
      producing = false;
      await background;
      const verify = ok(
        await runCli(['reassign-partitions', '--bootstrap-server', broker.bootstrap, '--verify', '--reassignment-json-file', plan]),
        'verify',
      );
      assert.match(verify, /Reassignment of replica moving-0-0 completed successfully\./);
      assert.ok(existsSync(join(to, 'moving-0')));
      assert.ok(!existsSync(join(from, 'moving-0')), 'the old log was renamed -delete');
      const described = ok(
        await runCli(['log-dirs', '--bootstrap-server', broker.bootstrap, '--describe', '--topic-list', 'moving']),
        'log-dirs',
      );
      assert.match(described, /^Querying brokers for log directories information\nReceived log directory information from brokers 0\n/);
      const doc = JSON.parse(described.split('\n')[2]!) as {
        brokers: {
          broker: number;
          logDirs: { logDir: string; error: string | null; partitions: { partition: string; isFuture: boolean }[] }[];
        }[];
      };
      assert.deepEqual(
        doc.brokers[0]!.logDirs.map((d) => [
          d.logDir,
          d.error,
          d.partitions.map((p) => `${p.partition}${p.isFuture ? ' future' : ''}`),
        ]).sort(),
        [
          [from, null, []],
          [to, null, ['moving-0']],
        ].sort(),
      );
      await produce(producer, 'moving', acked, 'after', 5);
    } finally {
      await producer.disconnect();
    }
    assert.ok(acked.size > 520);
    await assertAllRead(broker.bootstrap, 'moving', acked);
  });

  test('Kafka 4.4 kafka-reassign-partitions moves it back and verifies the move', { skip: javaSkip() }, async () => {
    const from = (await placement(broker.bootstrap, 'moving')).current!;
    const to = dirs.find((d) => d !== from)!;
    const plan = join(root, 'back.json');
    writeFileSync(plan, JSON.stringify({ version: 1, partitions: [{ topic: 'moving', partition: 0, replicas: [0], log_dirs: [to] }] }));
    const java = async (mainClass: string, ...args: string[]): Promise<string> => {
      const r = await runProcess(
        'java',
        [
          '-Xmx192m',
          '-XX:TieredStopAtLevel=1',
          `-Dlog4j2.configurationFile=${join(INTEROP_DIR, 'log4j2-stderr.properties')}`,
          '-cp',
          kafkaClasspath(),
          mainClass,
          '--bootstrap-server',
          broker.bootstrap,
          ...args,
        ],
        '',
        90_000,
      );
      assert.equal(r.code, 0, `${mainClass} ${args.join(' ')}: ${r.stderr}`);
      return r.stdout.toString('utf8');
    };
    const execute = await java('org.apache.kafka.tools.reassign.ReassignPartitionsCommand', '--execute', '--reassignment-json-file', plan);
    assert.match(execute, new RegExp(`Successfully started moving log directory to ${to} for replica moving-0 with broker 0`));
    await waitFor(
      'the move back',
      60_000,
      async () => ((await placement(broker.bootstrap, 'moving')).current === to ? true : undefined),
      50,
    );
    const verify = await java('org.apache.kafka.tools.reassign.ReassignPartitionsCommand', '--verify', '--reassignment-json-file', plan);
    assert.match(verify, /Reassignment of replica moving-0-0 completed successfully\./);
  });

  test('kill -9 in the middle of a move: nothing acknowledged is lost and the move resumes after the restart', async () => {
    const producer = client(broker.bootstrap).producer({ allowAutoTopicCreation: true });
    await producer.connect();
    const acked: Acked = new Map();
    let from: string;
    let to: string;
    try {
      for (let i = 0; i < 10; i++) await produce(producer, 'crash', acked, `before${i}`, 50);
      from = (await placement(broker.bootstrap, 'crash')).current!;
      to = dirs.find((d) => d !== from)!;
      const res = await wireCall(broker.bootstrap, M.AlterReplicaLogDirsRequest, M.AlterReplicaLogDirsResponse, 2, {
        dirs: [{ path: to, topics: [{ name: 'crash', partitions: [0] }] }],
      });
      assert.deepEqual(
        res.results.flatMap((t) => t.partitions.map((p) => p.errorCode)),
        [ErrorCode.NONE],
      );
      await produce(producer, 'crash', acked, 'during', 5);
      await waitFor(
        'a partly copied future replica',
        60_000,
        async () => {
          const p = await placement(broker.bootstrap, 'crash');
          return p.future === to && p.futureLag > 0n && p.futureLag < BigInt(acked.size) ? p : undefined;
        },
        50,
      );
    } finally {
      await producer.disconnect();
    }
    broker.child.kill('SIGKILL');
    await new Promise((resolve) => broker.child.once('exit', resolve));
    assert.ok(
      readdirSync(to).some((name) => /^crash-0\.[0-9a-f]{32}-future$/.test(name)),
      'the future log is on disk',
    );
    await start('9223372036854775807');
    await waitFor(
      'the resumed move',
      60_000,
      async () => {
        const p = await placement(broker.bootstrap, 'crash');
        return p.current === to && p.future === null ? p : undefined;
      },
      50,
    );
    await assertAllRead(broker.bootstrap, 'crash', acked);
  });

  test('a failed log dir: DescribeLogDirs answers KAFKA_STORAGE_ERROR, Metadata shows its partition offline, the other dir serves on', async (t) => {
    const created = await wireCall(broker.bootstrap, M.CreateTopicsRequest, M.CreateTopicsResponse, 7, {
      topics: [{ name: 'failing', numPartitions: 1, replicationFactor: -1, configs: [{ name: 'segment.bytes', value: '1048576' }] }],
      timeoutMs: 30_000,
    });
    assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);
    const failing = (await placement(broker.bootstrap, 'failing')).current!;
    // The partition's directory becomes a file: the next segment cannot be created there.
    renameSync(join(failing, 'failing-0'), join(root, 'failing-0.aside'));
    writeFileSync(join(failing, 'failing-0'), '');
    const producer = client(broker.bootstrap).producer({ retry: { retries: 0 } });
    await producer.connect();
    try {
      for (let i = 0; i < 4; i++) {
        await producer.send({ topic: 'failing', acks: 1, messages: [{ value: 'y'.repeat(400_000) }] }).catch(() => undefined);
      }
    } finally {
      await producer.disconnect();
    }
    const dirs = await waitFor(
      'the failed dir',
      60_000,
      async () => {
        const res = await wireCall(broker.bootstrap, M.DescribeLogDirsRequest, M.DescribeLogDirsResponse, 4, { topics: null });
        return res.results.some((d) => d.errorCode !== ErrorCode.NONE) ? res.results : undefined;
      },
      50,
    );
    const failed = dirs.find((d) => d.logDir === failing)!;
    assert.deepEqual(
      [failed.errorCode, failed.topics, failed.totalBytes, failed.usableBytes],
      [ErrorCode.KAFKA_STORAGE_ERROR, [], -1n, -1n],
    );
    const described = ok(await runCli(['log-dirs', '--bootstrap-server', broker.bootstrap, '--describe']), 'log-dirs');
    const doc = JSON.parse(described.split('\n')[2]!) as { brokers: { logDirs: { logDir: string; error: string | null }[] }[] };
    assert.equal(doc.brokers[0]!.logDirs.find((d) => d.logDir === failing)!.error, 'org.apache.kafka.common.errors.KafkaStorageException');
    const partition = await waitFor(
      'the offline partition in the metadata',
      60_000,
      async () => {
        const md = await wireCall(broker.bootstrap, M.MetadataRequest, M.MetadataResponse, 12, {
          topics: [{ name: 'failing' }],
          allowAutoTopicCreation: false,
        });
        const p = md.topics[0]!.partitions[0]!;
        return p.offlineReplicas.length > 0 ? p : undefined;
      },
      50,
    );
    assert.deepEqual([partition.errorCode, partition.leaderId, partition.offlineReplicas], [ErrorCode.LEADER_NOT_AVAILABLE, -1, [0]]);
    const healthy = client(broker.bootstrap).producer({ allowAutoTopicCreation: true });
    await healthy.connect();
    t.after(() => healthy.disconnect());
    const acked: Acked = new Map();
    await produce(healthy, 'healthy', acked, 'ok', 3);
    assert.equal((await placement(broker.bootstrap, 'healthy')).current, dirs.find((d) => d.logDir !== failing)!.logDir);
  });
});
