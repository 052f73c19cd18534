// A 3-broker cluster on a real ZooKeeper: an RF=3 topic created through any broker, acks=all
// produce by librdkafka (kcat) and the Java client, read back byte-exact, leadership moved by a
// controlled shutdown without loss, every broker answering the same metadata.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  CreateTopicsRequest,
  CreateTopicsResponse,
  ElectLeadersRequest,
  ElectLeadersResponse,
  FetchRequest,
  FetchResponse,
  ProduceRequest,
  ProduceResponse,
  type MetadataResponseData,
} from '@sluice/protocol/messages/index.js';
import { encodeRecordBatch } from '@sluice/protocol/records/index.js';
import { startCluster, type TestCluster } from '../../helpers/cluster.js';
import { kcat, kcatRead, runJava } from '../../helpers/interop.js';
import { javaSkip, kcatSkip, zooKeeperSkip } from '../../helpers/requirements.js';
import { wireCall } from '../../helpers/wire-call.js';

const TOPIC = 'replicated';
const PARTITIONS = 3;

function partitionsOf(m: MetadataResponseData, topic: string) {
  return (
    m.topics
      .find((t) => t.name === topic)
      ?.partitions.slice()
      .sort((a, b) => a.partitionIndex - b.partitionIndex) ?? []
  );
}

function fullyReplicated(topic: string, partitions: number, replicas: number) {
  return (m: MetadataResponseData): boolean => {
    const ps = partitionsOf(m, topic);
    return (
      ps.length === partitions &&
      ps.every(
        (p) => p.errorCode === ErrorCode.NONE && p.leaderId > 0 && p.replicaNodes.length === replicas && p.isrNodes.length === replicas,
      )
    );
  };
}

async function createTopic(
  bootstrap: string,
  name: string,
  partitions: number,
  replicationFactor: number,
  configs: Record<string, string> = {},
): Promise<number> {
  const response = await wireCall(bootstrap, CreateTopicsRequest, CreateTopicsResponse, 7, {
    topics: [
      {
        name,
        numPartitions: partitions,
        replicationFactor,
        assignments: [],
        configs: Object.entries(configs).map(([k, v]) => ({ name: k, value: v })),
      },
    ],
    timeoutMs: 30_000,
    validateOnly: false,
  });
  return response.topics[0]!.errorCode;
}

describe('a replicated cluster on ZooKeeper', { skip: zooKeeperSkip() ?? kcatSkip() }, () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startCluster(3, { 'auto.create.topics.enable': 'false' });
  });
  after(async () => {
    await cluster?.stop();
  });

  test('an RF=3 topic created through a broker that is not the controller: every broker answers the same leaders, replicas and ISR', async () => {
    const m = await cluster.metadata(null);
    const other = [1, 2, 3].find((id) => id !== m.controllerId)!;
    assert.equal(await createTopic(cluster.brokers[other - 1]!.bootstrap, TOPIC, PARTITIONS, 3), ErrorCode.NONE);
    const views = [];
    for (const id of [1, 2, 3])
      views.push(await cluster.waitFor(`broker ${id} to see ${TOPIC} fully replicated`, fullyReplicated(TOPIC, PARTITIONS, 3), 30_000, id));
    const shape = (v: MetadataResponseData) =>
      partitionsOf(v, TOPIC).map((p) => [p.partitionIndex, p.leaderId, p.leaderEpoch, [...p.replicaNodes], [...p.isrNodes].sort()]);
    assert.deepEqual(shape(views[1]!), shape(views[0]!));
    assert.deepEqual(shape(views[2]!), shape(views[0]!));
    const leaders = new Set(partitionsOf(views[0]!, TOPIC).map((p) => p.leaderId));
    assert.equal(leaders.size, 3, 'leadership spread over the three brokers, as Kafka assigns it');
    assert.equal(await createTopic(cluster.anyBroker(), 'too-wide', 1, 4), ErrorCode.INVALID_REPLICATION_FACTOR);
  });

  test('acks=all from librdkafka, read back byte-exact; still there after the leader of partition 0 shuts down', async () => {
    const lines = Array.from({ length: 300 }, (_, i) => `k${i}:value-${i}`).join('\n') + '\n';
    await kcat(['-b', cluster.bootstrap(), '-P', '-t', TOPIC, '-K', ':', '-X', 'acks=all', '-X', 'partitioner=murmur2_random'], lines);
    const read = await kcatRead(cluster.bootstrap(), TOPIC);
    assert.equal(read.length, 300);
    const values = new Set(read.map((r) => Buffer.from(r.value!, 'hex').toString()));
    for (let i = 0; i < 300; i++) assert.ok(values.has(`value-${i}`), `value-${i} read back`);

    const before = partitionsOf(await cluster.metadata([TOPIC]), TOPIC)[0]!;
    const leader = before.leaderId;
    assert.equal(await cluster.brokers[leader - 1]!.stop(), 0, 'the leader stops cleanly');
    const moved = await cluster.waitFor('partition 0 to get a new leader', (m) => {
      const p = partitionsOf(m, TOPIC)[0];
      return p !== undefined && p.leaderId > 0 && p.leaderId !== leader;
    });
    const now = partitionsOf(moved, TOPIC)[0]!;
    assert.ok(now.leaderEpoch > before.leaderEpoch, 'a new leader epoch');
    assert.ok(!now.isrNodes.includes(leader), 'the stopped broker left the ISR');
    const again = await kcatRead(cluster.bootstrap(), TOPIC);
    assert.deepEqual(
      again.map((r) => [r.partition, r.offset, r.value]).sort(),
      read.map((r) => [r.partition, r.offset, r.value]).sort(),
      'the new leaders hold every acknowledged record',
    );

    await cluster.startBroker(leader);
    await cluster.waitFor('the restarted broker back in every ISR', fullyReplicated(TOPIC, PARTITIONS, 3), 60_000);
  });

  test('preferred leader election (ElectLeaders) gives partition 0 back to its first replica; other brokers answer NOT_CONTROLLER', async () => {
    const m = await cluster.metadata([TOPIC]);
    const ps = partitionsOf(m, TOPIC);
    const displaced = ps.filter((p) => p.leaderId !== p.replicaNodes[0]).map((p) => p.partitionIndex);
    assert.ok(displaced.includes(0), 'the restart left partition 0 led by another replica');
    const elect = (via: number) =>
      wireCall(cluster.brokers[via - 1]!.bootstrap, ElectLeadersRequest, ElectLeadersResponse, 2, {
        electionType: 0,
        topicPartitions: [{ topic: TOPIC, partitions: [0, 1, 2] }],
        timeoutMs: 30_000,
      });
    const other = [1, 2, 3].find((id) => id !== m.controllerId)!;
    assert.equal((await elect(other)).errorCode, ErrorCode.NOT_CONTROLLER);
    const answer = await elect(m.controllerId);
    assert.equal(answer.errorCode, ErrorCode.NONE);
    const codes = Object.fromEntries(answer.replicaElectionResults[0]!.partitionResult.map((r) => [r.partitionId, r.errorCode]));
    for (const p of [0, 1, 2])
      assert.equal(codes[p], displaced.includes(p) ? ErrorCode.NONE : ErrorCode.ELECTION_NOT_NEEDED, `partition ${p}`);
    const after = await cluster.waitFor('preferred leaders everywhere', (x) =>
      partitionsOf(x, TOPIC).every((p) => p.leaderId === p.replicaNodes[0]),
    );
    assert.ok(partitionsOf(after, TOPIC)[0]!.leaderEpoch > ps[0]!.leaderEpoch);
    const read = await kcatRead(cluster.bootstrap(), TOPIC);
    assert.equal(read.length, 300, 'nothing lost to the election');
  });

  test('the Java producer (idempotent, acks=all) into the RF=3 topic, read back by kcat', { skip: javaSkip() }, async () => {
    const records = Array.from({ length: 30 }, (_, i) => ({
      partition: i % PARTITIONS,
      timestamp: 1_700_000_000_000 + i,
      key: Buffer.from(`jk${i}`).toString('hex'),
      value: Buffer.from(`java-${i}`).toString('hex'),
      headers: [],
    }));
    const sent = await runJava('produce', cluster.bootstrap(), { topic: TOPIC, codec: 'lz4', records });
    assert.equal(sent.filter((l) => l['type'] === 'sent').length, 30);
    const read = await kcatRead(cluster.bootstrap(), TOPIC);
    const values = new Set(read.map((r) => Buffer.from(r.value!, 'hex').toString()));
    for (let i = 0; i < 30; i++) assert.ok(values.has(`java-${i}`), `java-${i} read back`);
  });

  test(
    "Kafka's Java Admin: RF=3 creation with leaders, replicas and ISR, growth, configs, the cluster's nodes, a reassignment, a preferred election, deletion",
    { skip: javaSkip() },
    async () => {
      const lines = await runJava('clusterAdmin', cluster.bootstrap(), { topic: 'java-admin' });
      const replicas = lines.filter((l) => l['type'] === 'replicas').map((l) => l['partitions'] as [number, number, number[], number[]][]);
      assert.equal(replicas.length, 2);
      const [created, grown] = replicas as [[number, number, number[], number[]][], [number, number, number[], number[]][]];
      assert.equal(created.length, 2);
      assert.equal(grown.length, 4);
      for (const [, leader, assigned, isr] of grown) {
        assert.equal(new Set(assigned).size, 3, 'three distinct replicas');
        assert.ok(assigned.includes(leader));
        assert.ok(isr.length >= 1 && isr.includes(leader));
      }
      assert.deepEqual(
        lines.find((l) => l['type'] === 'config'),
        { type: 'config', value: '7200000', source: 'DYNAMIC_TOPIC_CONFIG' },
      );
      const info = lines.find((l) => l['type'] === 'cluster')!;
      assert.deepEqual(info['nodes'], [1, 2, 3]);
      assert.ok([1, 2, 3].includes(info['controller'] as number));
      assert.equal(
        (lines.find((l) => l['type'] === 'reassigned')!['replicas'] as number[]).length,
        2,
        'partition 0 moved onto two replicas',
      );
      assert.ok(
        [null, 'ElectionNotNeededException'].includes(lines.find((l) => l['type'] === 'elected')!['error'] as string | null),
        JSON.stringify(lines.find((l) => l['type'] === 'elected')),
      );
      assert.ok(
        lines.some((l) => l['type'] === 'leader'),
        'the preferred replica leads',
      );
      assert.deepEqual(
        lines.find((l) => l['type'] === 'deleted'),
        { type: 'deleted', stillListed: false },
      );
    },
  );

  test('a follower asked for data answers NOT_LEADER_OR_FOLLOWER with the current leader and its endpoint (KIP-951)', async () => {
    const p = partitionsOf(await cluster.metadata([TOPIC]), TOPIC)[1]!;
    const follower = p.replicaNodes.find((id) => id !== p.leaderId)!;
    const leader = cluster.brokers[p.leaderId - 1]!;
    const produced = await wireCall(cluster.brokers[follower - 1]!.bootstrap, ProduceRequest, ProduceResponse, 11, {
      acks: -1,
      timeoutMs: 5_000,
      topicData: [
        {
          name: TOPIC,
          partitionData: [
            {
              index: 1,
              records: encodeRecordBatch({ records: [{ key: null, value: Buffer.from('misdirected'), timestamp: BigInt(Date.now()) }] }),
            },
          ],
        },
      ],
    });
    const answer = produced.responses[0]!.partitionResponses[0]!;
    assert.equal(answer.errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);
    assert.deepEqual({ ...answer.currentLeader }, { leaderId: p.leaderId, leaderEpoch: p.leaderEpoch });
    assert.deepEqual(
      produced.nodeEndpoints.map((n) => [n.nodeId, `${n.host}:${n.port}`]),
      [[p.leaderId, leader.bootstrap]],
    );
    const fetched = await wireCall(cluster.brokers[follower - 1]!.bootstrap, FetchRequest, FetchResponse, 16, {
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 1,
      maxBytes: 1 << 20,
      topics: [
        {
          topicId: (await cluster.metadata([TOPIC])).topics[0]!.topicId,
          partitions: [{ partition: 1, fetchOffset: 0n, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1 }],
        },
      ],
    });
    const part = fetched.responses[0]!.partitions[0]!;
    assert.equal(part.errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);
    assert.equal(part.currentLeader.leaderId, p.leaderId);
    assert.deepEqual(
      fetched.nodeEndpoints.map((n) => n.nodeId),
      [p.leaderId],
    );
  });

  test('min.insync.replicas=3 with a replica down: acks=all is refused with NOT_ENOUGH_REPLICAS', async () => {
    assert.equal(await createTopic(cluster.anyBroker(), 'strict', 1, 3, { 'min.insync.replicas': '3' }), ErrorCode.NONE);
    const m = await cluster.waitFor('strict fully replicated', fullyReplicated('strict', 1, 3));
    const follower = partitionsOf(m, 'strict')[0]!.replicaNodes.find((id) => id !== partitionsOf(m, 'strict')[0]!.leaderId)!;
    await cluster.brokers[follower - 1]!.stop();
    await cluster.waitFor('the ISR of strict to shrink', (x) => (partitionsOf(x, 'strict')[0]?.isrNodes.length ?? 3) === 2);
    const leader = partitionsOf(await cluster.metadata(['strict']), 'strict')[0]!.leaderId;
    const produce = (acks: number) =>
      wireCall(cluster.brokers[leader - 1]!.bootstrap, ProduceRequest, ProduceResponse, 11, {
        acks,
        timeoutMs: 5_000,
        topicData: [
          {
            name: 'strict',
            partitionData: [
              {
                index: 0,
                records: encodeRecordBatch({ records: [{ key: null, value: Buffer.from('refused'), timestamp: BigInt(Date.now()) }] }),
              },
            ],
          },
        ],
      });
    assert.equal((await produce(-1)).responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.NOT_ENOUGH_REPLICAS);
    await cluster.startBroker(follower);
    await cluster.waitFor('strict back to three in sync', fullyReplicated('strict', 1, 3), 60_000);
    await kcat(['-b', cluster.bootstrap(), '-P', '-t', 'strict', '-X', 'acks=all'], 'accepted\n');
    const read = await kcatRead(cluster.bootstrap(), 'strict');
    assert.deepEqual(
      read.map((r) => Buffer.from(r.value!, 'hex').toString()),
      ['accepted'],
    );
  });
});
