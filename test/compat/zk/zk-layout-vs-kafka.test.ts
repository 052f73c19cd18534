/**
 * Sluice's ZooKeeper layout against Kafka 3.9's own `KafkaZkClient` (the last Kafka with
 * ZooKeeper mode), both ways over one ZooKeeper server: Kafka decodes every znode Sluice wrote
 * (brokers, controller, topic ids and assignments, partition states, configs, deletions,
 * producer id block), and Sluice reads a cluster Kafka wrote. `KafkaZkTool.java` runs with
 * Kafka 3.9.1's jars, fetched from Maven Central by tools/kafka/fetch-kafka.sh.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { kafkaClasspath, kafkaLibsDir, kafkaLibsPresent, repoRoot } from '../../../tools/kafka/kafka-release.js';
import { zooKeeperSkip } from '../../helpers/requirements.js';
import { waitFor, when } from '../../helpers/wait-for.js';
import { startZooKeeper, type ZooKeeperServer } from '../../helpers/zookeeper-server.js';
import { KafkaZkClient } from '../../../src/zk/kafka-zk-client.js';
import { DEFAULT_ENTITY } from '../../../src/zk/kafka-zk-data.js';
import { ANY_VERSION } from '../../../src/zk/zk-types.js';

/** The last Kafka release with ZooKeeper mode. */
const KAFKA_ZK_ERA = '3.9.1';
const TOOL = join(repoRoot(), 'test', 'compat', 'zk', 'KafkaZkTool.java');
const SESSION = { sessionTimeoutMs: 10_000, connectionTimeoutMs: 10_000 };
const JAVA_MS = 120_000;

function skipReason(): string | undefined {
  const zk = zooKeeperSkip();
  if (zk !== undefined) return zk;
  if (kafkaLibsPresent(KAFKA_ZK_ERA)) return undefined;
  if (spawnSync('mvn', ['-v'], { stdio: 'ignore' }).status !== 0)
    return `Kafka ${KAFKA_ZK_ERA}'s jars are absent and Maven is not installed to fetch them (apt-get install maven)`;
  const fetch = spawnSync(join(repoRoot(), 'tools', 'kafka', 'fetch-kafka.sh'), [KAFKA_ZK_ERA], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 300_000,
    encoding: 'utf8',
  });
  return fetch.status === 0 && kafkaLibsPresent(KAFKA_ZK_ERA)
    ? undefined
    : `fetching Kafka ${KAFKA_ZK_ERA}'s jars failed: ${fetch.stderr.trim().split('\n').pop() ?? ''}`;
}

function javaArgs(...args: string[]): string[] {
  return ['-Xmx256m', '-XX:TieredStopAtLevel=1', '-cp', kafkaClasspath(kafkaLibsDir(KAFKA_ZK_ERA)), TOOL, ...args];
}

/** Runs the tool to its end and parses its one JSON line. */
function runTool(...args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn('java', javaArgs(...args), { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), JAVA_MS);
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('close', (code) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`KafkaZkTool ${args[0]} exited ${code}:\n${err.slice(-3000)}`));
      else resolve(JSON.parse(line) as Record<string, unknown>);
    });
  });
}

describe("the ZooKeeper layout against Kafka 3.9's KafkaZkClient", { skip: skipReason(), timeout: 300_000 }, () => {
  let zk: ZooKeeperServer;
  const clients: KafkaZkClient[] = [];

  before(async () => {
    zk = await startZooKeeper();
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await zk?.stop();
  });

  async function connect(chroot: string): Promise<KafkaZkClient> {
    const c = await KafkaZkClient.connect({ connect: `${zk.connect}${chroot}`, ...SESSION });
    clients.push(c);
    return c;
  }

  test('Kafka decodes every znode Sluice wrote', { timeout: JAVA_MS + 30_000 }, async () => {
    const c = await connect('/sluice-wrote');
    await c.createTopLevelPaths();
    await c.getOrCreateClusterId('sluice-cluster');
    const epoch = await c.registerBroker({
      id: 1,
      endpoints: [
        { listenerName: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: 'sluice-1.example', port: 9092 },
        { listenerName: 'INTERNAL', securityProtocol: 'SSL', host: 'sluice-1.internal', port: 9093 },
      ],
      rack: 'rack-s',
    });
    const guard = (await c.tryBecomeController(1))!;
    const topicId = 'c2x1aWNlLXRvcGljLWlkLg';
    await c.createTopic(
      'orders',
      topicId,
      new Map([
        [0, [1, 2]],
        [1, [2, 1]],
      ]),
      { 'retention.ms': '1000' },
    );
    const assignment = (await c.getTopicAssignment('orders'))!;
    await c.setTopicAssignment(
      'orders',
      {
        ...assignment,
        partitions: new Map([
          [0, [1, 2, 3]],
          [1, [2, 1]],
        ]),
        addingReplicas: new Map([[0, [3]]]),
      },
      ANY_VERSION,
      guard,
    );
    await c.createPartitionStates(guard, [
      { topic: 'orders', partition: 0, state: { leader: 1, leaderEpoch: 4, isr: [1, 2], controllerEpoch: guard.epoch } },
      {
        topic: 'orders',
        partition: 1,
        state: { leader: 2, leaderEpoch: 0, isr: [2], controllerEpoch: guard.epoch, leaderRecoveryState: 1 },
      },
    ]);
    await c.updatePartitionState(guard, 'orders', 0, { leader: 1, leaderEpoch: 5, isr: [1], controllerEpoch: guard.epoch }, 0);
    await c.setEntityConfig('brokers', DEFAULT_ENTITY, { 'log.retention.ms': '7' });
    await c.allocateProducerIdBlock(1);
    const block = await c.allocateProducerIdBlock(1);
    await c.markTopicForDeletion('orders');

    const seen = await runTool('read', `${zk.connect}/sluice-wrote`, 'orders', '2');
    assert.deepEqual(seen, {
      clusterId: 'sluice-cluster',
      brokers: [
        {
          id: 1,
          epoch: String(epoch),
          rack: 'rack-s',
          endpoints: [
            { listener: 'PLAINTEXT', protocol: 'PLAINTEXT', host: 'sluice-1.example', port: 9092 },
            { listener: 'INTERNAL', protocol: 'SSL', host: 'sluice-1.internal', port: 9093 },
          ],
        },
      ],
      controller: 1,
      controllerEpoch: 1,
      topics: ['orders'],
      topicId,
      assignment: {
        '0': { replicas: [1, 2, 3], adding: [3], removing: [] },
        '1': { replicas: [2, 1], adding: [], removing: [] },
      },
      states: {
        '0': { leader: 1, leaderEpoch: 5, isr: [1], partitionEpoch: 1, controllerEpoch: 1, recovery: 'RECOVERED' },
        '1': { leader: 2, leaderEpoch: 0, isr: [2], partitionEpoch: 0, controllerEpoch: 1, recovery: 'RECOVERING' },
      },
      topicConfig: { 'retention.ms': '1000' },
      brokerDefaultConfig: { 'log.retention.ms': '7' },
      deletions: ['orders'],
      producerIdBlock: { broker: 1, first: String(block.firstProducerId), size: 1000 },
    });
  });

  test('Sluice reads a cluster Kafka wrote', { timeout: JAVA_MS + 30_000 }, async (t) => {
    const kafka = spawn('java', javaArgs('write', `${zk.connect}/kafka-wrote`), { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    kafka.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => kafka.on('close', resolve));
    t.after(async () => {
      kafka.stdin.end();
      const timer = setTimeout(() => kafka.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    });
    const ready = await Promise.race([
      new Promise<Record<string, unknown>>((resolve) => {
        createInterface({ input: kafka.stdout }).on('line', (line) => {
          if (line.startsWith('{')) resolve(JSON.parse(line) as Record<string, unknown>);
        });
      }),
      exited.then((code) => Promise.reject(new Error(`KafkaZkTool write exited ${code}:\n${stderr.slice(-3000)}`))),
      sleep(JAVA_MS, undefined, { ref: false }).then(() => Promise.reject(new Error('KafkaZkTool write did not get ready'))),
    ]);

    const c = await connect('/kafka-wrote');
    assert.equal(await c.getClusterId(), 'kafka-made-cluster');
    const brokers = await c.getBrokers();
    assert.deepEqual(brokers, [
      {
        id: 7,
        host: 'kafka-7.example',
        port: 9092,
        rack: 'rack-k',
        endpoints: [
          { listenerName: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: 'kafka-7.example', port: 9092 },
          { listenerName: 'REPLICATION', securityProtocol: 'SSL', host: 'kafka-7.example', port: 9093 },
        ],
        epoch: BigInt(ready['brokerEpoch'] as string),
        // The supported features Kafka 3.9.1 registers (metadata.version up to 3.9-IV0), read back as Sluice's own are.
        features: { 'metadata.version': { minVersion: 1, maxVersion: 21 } },
      },
    ]);
    assert.equal(await c.getController(), 7);
    assert.deepEqual(await c.getControllerEpoch(), { epoch: ready['controllerEpoch'], zkVersion: ready['epochZkVersion'] });
    assert.deepEqual(await c.getTopics(), ['kafka-made']);
    const assignment = await c.getTopicAssignment('kafka-made');
    assert.equal(assignment?.topicId, 'eGV0LWFub3RoZXItdG9waQ');
    assert.deepEqual(
      [...(assignment?.partitions ?? [])].sort(([a], [b]) => a - b),
      [
        [0, [7, 8]],
        [1, [8, 7]],
      ],
    );
    assert.deepEqual(
      await c.getPartitionStates([
        { topic: 'kafka-made', partition: 0 },
        { topic: 'kafka-made', partition: 1 },
      ]),
      [
        { state: { leader: 7, leaderEpoch: 3, isr: [7, 8], controllerEpoch: 1 }, zkVersion: 0 },
        { state: { leader: 8, leaderEpoch: 0, isr: [8], controllerEpoch: 1, leaderRecoveryState: 1 }, zkVersion: 0 },
      ],
    );
    assert.deepEqual(await c.getEntityConfig('topics', 'kafka-made'), { 'retention.ms': '3600000' });
    assert.deepEqual(await c.getEntityConfig('brokers', DEFAULT_ENTITY), { 'log.cleaner.threads': '2' });
    assert.deepEqual(await c.getTopicsToDelete(), ['kafka-made']);
    const changes: string[] = [];
    const sub = c.watchConfigChanges((p) => changes.push(p));
    await waitFor('the config change notification', 5_000, () => when(changes.length > 0), 20);
    sub.close();
    assert.deepEqual(changes, ['brokers/<default>']);
    assert.deepEqual(await c.allocateProducerIdBlock(1), { firstProducerId: 6000n, size: 1000 });
    // Kafka holds /controller: Sluice does not take it over.
    assert.equal(await c.tryBecomeController(1), null);
  });
});
