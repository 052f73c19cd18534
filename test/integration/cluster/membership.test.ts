// Cluster membership on a real ZooKeeper: a paused follower that falls behind leaves the ISR after
// replica.lag.time.max.ms and rejoins once it runs again (AlterPartition both ways); a consumer
// group keeps its committed offsets while its coordinator's broker stops; a deleted topic goes
// from every replica; a duplicate broker.id is refused at start-up.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { encodeRecordBatch } from '@sluice/protocol/records/index.js';
import {
  AlterPartitionRequest,
  AlterPartitionResponse,
  AlterPartitionReassignmentsRequest,
  AlterPartitionReassignmentsResponse,
  CreateTopicsRequest,
  CreateTopicsResponse,
  DeleteTopicsRequest,
  ListPartitionReassignmentsRequest,
  ListPartitionReassignmentsResponse,
  ProduceRequest,
  ProduceResponse,
  DeleteTopicsResponse,
  FindCoordinatorRequest,
  FindCoordinatorResponse,
  type MetadataResponseData,
} from '@sluice/protocol/messages/index.js';
import { startBrokerProcess } from '../../helpers/broker-process.js';
import { startCluster, type TestCluster } from '../../helpers/cluster.js';
import { kcatSkip, zooKeeperSkip } from '../../helpers/requirements.js';
import { kcat, kcatRead } from '../../helpers/interop.js';
import { waitFor, when } from '../../helpers/wait-for.js';
import { wireCall } from '../../helpers/wire-call.js';

const LAG_MS = 2000;

function partition0(m: MetadataResponseData, topic: string) {
  return m.topics.find((t) => t.name === topic)?.partitions.find((p) => p.partitionIndex === 0);
}

async function createTopic(bootstrap: string, name: string, partitions: number, replicationFactor: number): Promise<void> {
  const r = await wireCall(bootstrap, CreateTopicsRequest, CreateTopicsResponse, 7, {
    topics: [{ name, numPartitions: partitions, replicationFactor, assignments: [], configs: [] }],
    timeoutMs: 30_000,
    validateOnly: false,
  });
  assert.equal(r.topics[0]!.errorCode, ErrorCode.NONE, `creating ${name}: ${r.topics[0]!.errorMessage}`);
}

describe('cluster membership', { skip: zooKeeperSkip() ?? kcatSkip() }, () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startCluster(3, {
      'replica.lag.time.max.ms': String(LAG_MS),
      'zookeeper.session.timeout.ms': '15000',
      'group.initial.rebalance.delay.ms': '0',
      'leader.imbalance.check.interval.seconds': '2',
    });
  });
  after(async () => {
    await cluster?.stop();
  });

  test('a paused follower leaves the ISR after replica.lag.time.max.ms and rejoins when it runs again', async () => {
    await createTopic(cluster.anyBroker(), 'lagging', 1, 3);
    const m = await cluster.waitFor('lagging replicated', (x) => partition0(x, 'lagging')?.isrNodes.length === 3);
    const p = partition0(m, 'lagging')!;
    const follower =
      p.replicaNodes.find((id) => id !== p.leaderId && id !== m.controllerId) ?? p.replicaNodes.find((id) => id !== p.leaderId)!;
    // The metadata can name the leader a moment before its LeaderAndIsr has opened the log.
    await cluster.waitForLeaders(['lagging']);
    const child = cluster.brokers[follower - 1]!.child;
    const paused = Date.now();
    child.kill('SIGSTOP');
    try {
      // As Kafka: a follower level with the leader's log end is in sync however long it is silent;
      // a record it cannot fetch makes it fall behind.
      const produce = () =>
        wireCall(cluster.brokers[p.leaderId - 1]!.bootstrap, ProduceRequest, ProduceResponse, 11, {
          acks: 1,
          timeoutMs: 5_000,
          topicData: [
            {
              name: 'lagging',
              partitionData: [
                {
                  index: 0,
                  records: encodeRecordBatch({ records: [{ key: null, value: Buffer.from('behind'), timestamp: BigInt(Date.now()) }] }),
                },
              ],
            },
          ],
        });
      assert.equal((await produce()).responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.NONE);
      const shrunk = await cluster.waitFor(
        'the paused follower to leave the ISR',
        (x) => partition0(x, 'lagging')?.isrNodes.includes(follower) === false,
        12_000,
        p.leaderId,
      );
      assert.ok(Date.now() - paused >= LAG_MS, 'not before the lag time');
      assert.equal(partition0(shrunk, 'lagging')!.leaderId, p.leaderId, 'the leader stays');
    } finally {
      child.kill('SIGCONT');
    }
    await cluster.waitFor(
      'the follower back in the ISR',
      (x) => partition0(x, 'lagging')?.isrNodes.includes(follower) === true,
      15_000,
      p.leaderId,
    );
  });

  test("AlterPartition sent again after its answer was lost is answered with the state it made, as Kafka's controller does", async () => {
    // 'lagging' has had its ISR shrunk and expanded: its partition epoch is above 0.
    const m = await cluster.waitFor('lagging whole', (x) => partition0(x, 'lagging')?.isrNodes.length === 3);
    const p = partition0(m, 'lagging')!;
    const topicId = m.topics.find((t) => t.name === 'lagging')!.topicId;
    const alter = (partitionEpoch: number) =>
      wireCall(cluster.brokers[m.controllerId - 1]!.bootstrap, AlterPartitionRequest, AlterPartitionResponse, 2, {
        brokerId: p.leaderId,
        brokerEpoch: -1n,
        topics: [
          {
            topicId,
            partitions: [
              {
                partitionIndex: 0,
                leaderEpoch: p.leaderEpoch,
                partitionEpoch,
                newIsr: [...p.isrNodes],
                newIsrWithEpochs: [],
                leaderRecoveryState: 0,
              },
            ],
          },
        ],
      });
    const replayed = (await alter(0)).topics[0]!.partitions[0]!;
    assert.equal(replayed.errorCode, ErrorCode.NONE, 'the ISR asked for is the ISR at a later partition epoch: applied already');
    assert.deepEqual([...replayed.isr].sort(), [...p.isrNodes].sort());
    assert.ok(replayed.partitionEpoch > 0);
    const ahead = (await alter(replayed.partitionEpoch + 1000)).topics[0]!.partitions[0]!;
    assert.equal(ahead.errorCode, ErrorCode.INVALID_UPDATE_VERSION, 'a partition epoch the controller never made');
  });

  test('a consumer group keeps its committed offsets while its coordinator moves to another broker', async () => {
    await createTopic(cluster.anyBroker(), 'grouped', 3, 3);
    await cluster.waitFor(
      'grouped replicated',
      (x) => x.topics.find((t) => t.name === 'grouped')?.partitions.every((q) => q.isrNodes.length === 3) === true,
    );
    await cluster.waitForLeaders(['grouped']);
    const kafka = new Kafka({
      brokers: cluster.bootstrap().split(','),
      logLevel: logLevel.NOTHING,
      retry: { retries: 10, initialRetryTime: 200 },
    });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic: 'grouped',
      acks: -1,
      messages: Array.from({ length: 60 }, (_, i) => ({ partition: i % 3, value: `g${i}` })),
    });
    await producer.disconnect();

    const consumeAll = async (expected: number): Promise<string[]> => {
      const seen: string[] = [];
      const consumer = kafka.consumer({ groupId: 'moving', sessionTimeout: 6000, heartbeatInterval: 500, maxWaitTimeInMs: 500 });
      await consumer.connect();
      await consumer.subscribe({ topic: 'grouped', fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) });
      try {
        await waitFor(`${expected} records consumed`, 30_000, () => when(seen.length >= expected));
        // Fixed on purpose: time for more than `expected` to show up, were offsets lost; nothing signals it.
        await sleep(1000);
      } finally {
        await consumer.disconnect();
      }
      return seen;
    };
    const first = await consumeAll(60);
    assert.equal(new Set(first).size, 60);

    const found = await wireCall(cluster.anyBroker(), FindCoordinatorRequest, FindCoordinatorResponse, 3, { key: 'moving', keyType: 0 });
    const coordinator = found.nodeId;
    assert.equal(found.errorCode, ErrorCode.NONE);
    await cluster.brokers[coordinator - 1]!.stop();
    const producer2 = kafka.producer();
    await producer2.connect();
    await producer2.send({
      topic: 'grouped',
      acks: -1,
      messages: Array.from({ length: 30 }, (_, i) => ({ partition: i % 3, value: `h${i}` })),
    });
    await producer2.disconnect();
    const second = await consumeAll(30);
    assert.deepEqual(
      [...new Set(second)].sort(),
      Array.from({ length: 30 }, (_, i) => `h${i}`).sort(),
      'only the new records: the commits survived the move',
    );
    const moved = await wireCall(cluster.anyBroker(), FindCoordinatorRequest, FindCoordinatorResponse, 3, { key: 'moving', keyType: 0 });
    assert.notEqual(moved.nodeId, coordinator);
    await cluster.startBroker(coordinator);
    await cluster.waitFor('all three brokers back', (x) => x.brokers.length === 3);
  });

  test("a deleted topic goes from the metadata and from every replica's log dir", async () => {
    await createTopic(cluster.anyBroker(), 'doomed', 2, 3);
    await cluster.waitFor(
      'doomed replicated',
      (x) => x.topics.find((t) => t.name === 'doomed')?.partitions.every((q) => q.isrNodes.length === 3) === true,
    );
    const hasLogs = (id: number): boolean =>
      existsSync(cluster.logDir(id)) && readdirSync(cluster.logDir(id)).some((d) => d === 'doomed-0' || d === 'doomed-1');
    // The ISR starts as every live replica; each replica creates its log when its LeaderAndIsr arrives.
    await waitFor('every replica to create its log of doomed', 10_000, () => when([1, 2, 3].every(hasLogs)), 50);
    const r = await wireCall(cluster.anyBroker(), DeleteTopicsRequest, DeleteTopicsResponse, 5, {
      topicNames: ['doomed'],
      timeoutMs: 30_000,
    });
    assert.equal(r.responses[0]!.errorCode, ErrorCode.NONE);
    for (const id of [1, 2, 3])
      await cluster.waitFor(`broker ${id} to forget doomed`, (x) => x.topics.every((t) => t.name !== 'doomed'), 30_000, id);
    await waitFor('no replica to keep a live log of the deleted topic', 10_000, () => when(![1, 2, 3].some(hasLogs)));
  });

  test("a topic deleted while one of its replicas is down disappears at once and leaves that replica's disk when it returns", async () => {
    await createTopic(cluster.anyBroker(), 'absent', 1, 3);
    await cluster.waitFor('absent replicated', (x) => partition0(x, 'absent')?.isrNodes.length === 3);
    const m = await cluster.metadata(null);
    const away = [1, 2, 3].find((id) => id !== m.controllerId)!;
    const logOf = (id: number): boolean => existsSync(join(cluster.logDir(id), 'absent-0'));
    await waitFor('every replica to create its log of absent', 10_000, () => when([1, 2, 3].every(logOf)), 50);
    await cluster.brokers[away - 1]!.stop();
    const r = await wireCall(cluster.anyBroker(), DeleteTopicsRequest, DeleteTopicsResponse, 5, {
      topicNames: ['absent'],
      timeoutMs: 30_000,
    });
    assert.equal(r.responses[0]!.errorCode, ErrorCode.NONE);
    await cluster.waitFor('absent gone from the metadata', (x) => x.topics.every((t) => t.name !== 'absent'));
    assert.equal(logOf(away), true, 'the stopped broker still has its log');
    await cluster.startBroker(away);
    await waitFor('the deletion to finish on the broker that came back', 20_000, () => when(!logOf(away)));
    await cluster.waitFor('absent still gone', (x) => x.brokers.length === 3 && x.topics.every((t) => t.name !== 'absent'));
  });

  test('a partition reassigned from brokers [1,2] to [2,3] moves with its records; the old replica deletes its log', async () => {
    const created = await wireCall(cluster.anyBroker(), CreateTopicsRequest, CreateTopicsResponse, 7, {
      topics: [
        { name: 'moved', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [1, 2] }], configs: [] },
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);
    await cluster.waitFor('moved on [1,2] in sync', (x) => partition0(x, 'moved')?.isrNodes.length === 2);
    await kcat(
      ['-b', cluster.bootstrap(), '-P', '-t', 'moved', '-X', 'acks=all'],
      Array.from({ length: 50 }, (_, i) => `m${i}`).join('\n') + '\n',
    );
    const m = await cluster.metadata(null);
    const controller = cluster.brokers[m.controllerId - 1]!.bootstrap;
    const other = cluster.brokers[[1, 2, 3].find((id) => id !== m.controllerId)! - 1]!.bootstrap;
    const reassign = (via: string) =>
      wireCall(via, AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse, 0, {
        timeoutMs: 30_000,
        topics: [{ name: 'moved', partitions: [{ partitionIndex: 0, replicas: [2, 3] }] }],
      });
    assert.equal((await reassign(other)).errorCode, ErrorCode.NOT_CONTROLLER);
    const answer = await reassign(controller);
    assert.equal(answer.errorCode, ErrorCode.NONE);
    assert.equal(answer.responses[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
    const done = await cluster.waitFor('moved on [2,3]', (x) => {
      const p = partition0(x, 'moved');
      return p !== undefined && p.replicaNodes.join() === '2,3' && [...p.isrNodes].sort().join() === '2,3';
    });
    assert.ok([2, 3].includes(partition0(done, 'moved')!.leaderId));
    const listed = await wireCall(controller, ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse, 0, {
      timeoutMs: 30_000,
      topics: null,
    });
    assert.deepEqual(listed.topics, [], 'nothing left in progress');
    await waitFor('broker 1 to delete its replica', 10_000, () => when(!existsSync(join(cluster.logDir(1), 'moved-0'))));
    const read = await kcatRead(cluster.bootstrap(), 'moved');
    assert.deepEqual(
      read.map((r) => Buffer.from(r.value!, 'hex').toString()),
      Array.from({ length: 50 }, (_, i) => `m${i}`),
    );
  });

  test('auto.leader.rebalance.enable: leadership returns to the preferred replicas after a broker comes back', async () => {
    await createTopic(cluster.anyBroker(), 'balanced', 3, 3);
    await cluster.waitFor(
      'balanced replicated',
      (x) => x.topics.find((t) => t.name === 'balanced')?.partitions.every((q) => q.isrNodes.length === 3) === true,
    );
    const m = await cluster.metadata(null);
    // Not the controller, so the controller that rebalances stays up.
    const victim = [1, 2, 3].find((id) => id !== m.controllerId)!;
    await cluster.brokers[victim - 1]!.stop();
    await cluster.waitFor(
      `no leadership on broker ${victim}`,
      (x) => x.topics.find((t) => t.name === 'balanced')?.partitions.every((q) => q.leaderId !== victim) === true,
    );
    await cluster.startBroker(victim);
    await cluster.waitFor(
      'every partition led by its preferred replica again',
      (x) => {
        const t = x.topics.find((y) => y.name === 'balanced');
        return t !== undefined && t.partitions.every((q) => q.leaderId === q.replicaNodes[0] && q.isrNodes.length === 3);
      },
      45_000,
    );
  });

  test('a second broker with a registered broker.id waits out a session timeout for it to expire, then is refused, saying so', async () => {
    const started = Date.now();
    await assert.rejects(
      startBrokerProcess({
        'node.id': '1',
        'zookeeper.connect': `${cluster.zookeeper.connect}/sluice`,
        'zookeeper.session.timeout.ms': '3000',
      }),
      (e: unknown) => {
        const message = (e as Error).message;
        assert.match(message, /exited with 1/);
        assert.equal(message.match(/waiting for it to expire/g)?.length, 1, message);
        assert.match(message, /broker id 1 is already registered: .*\/brokers\/ids\/1/);
        return true;
      },
    );
    assert.ok(Date.now() - started >= 3000, 'it waited the session timeout before giving up');
  });
});
