// The controller's own failures on a 3-broker cluster: killed (kill -9), a new controller is
// elected at the next controller epoch and the dead broker's leaderships move; paused past its
// ZooKeeper session (SIGSTOP), a new controller takes over, every request stamped with the old
// epoch is refused with STALE_CONTROLLER_EPOCH, and once resumed the old one resigns (one
// controller, one epoch); killed while a topic is being created (its znode written, no partition
// state yet), the new controller creates the partition states and the topic gets its leaders.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  CreateTopicsRequest,
  CreateTopicsResponse,
  LeaderAndIsrRequest,
  LeaderAndIsrResponse,
  UpdateMetadataRequest,
  UpdateMetadataResponse,
  type MetadataResponseData,
} from '@sluice/protocol/messages/index.js';
import { KafkaZkClient } from '../../../src/zk/index.js';
import { startCluster, type TestCluster } from '../../helpers/cluster.js';
import { kcat, kcatRead } from '../../helpers/interop.js';
import { kcatSkip, zooKeeperSkip } from '../../helpers/requirements.js';
import { waitFor, when } from '../../helpers/wait-for.js';
import { wireCall } from '../../helpers/wire-call.js';

const SESSION_MS = 6000;
const LEADER_AND_ISR_VERSION = 7;
const UPDATE_METADATA_VERSION = 8;

function partitionsOf(m: MetadataResponseData, topic: string) {
  return m.topics.find((t) => t.name === topic)?.partitions ?? [];
}

function replicated(topic: string, partitions: number, replicas: number) {
  return (m: MetadataResponseData): boolean => {
    const ps = partitionsOf(m, topic);
    return m.brokers.length === 3 && ps.length === partitions && ps.every((p) => p.leaderId > 0 && p.isrNodes.length === replicas);
  };
}

async function createTopic(bootstrap: string, name: string, partitions: number, replicationFactor: number): Promise<number> {
  const response = await wireCall(bootstrap, CreateTopicsRequest, CreateTopicsResponse, 7, {
    topics: [{ name, numPartitions: partitions, replicationFactor, assignments: [], configs: [] }],
    timeoutMs: 30_000,
    validateOnly: false,
  });
  return response.topics[0]!.errorCode;
}

const lines = (prefix: string, n: number): string => Array.from({ length: n }, (_, i) => `${prefix}-${i}`).join('\n') + '\n';

describe('controller failure', { skip: zooKeeperSkip() ?? kcatSkip() }, () => {
  let cluster: TestCluster;
  let zk: KafkaZkClient;
  before(async () => {
    cluster = await startCluster(3, { 'auto.create.topics.enable': 'false', 'zookeeper.session.timeout.ms': String(SESSION_MS) });
    zk = await KafkaZkClient.connect({
      connect: `${cluster.zookeeper.connect}/sluice`,
      sessionTimeoutMs: SESSION_MS,
      connectionTimeoutMs: 10_000,
    });
  });
  after(async () => {
    await zk?.close();
    await cluster?.stop();
  });

  async function controllerEpoch(): Promise<number> {
    return (await zk.getControllerEpoch())!.epoch;
  }

  async function killController(): Promise<number> {
    const id = (await cluster.metadata(null)).controllerId;
    const child = cluster.brokers[id - 1]!.child;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
    return id;
  }

  test('the controller killed: a new one is elected at the next epoch and the dead broker leads nothing', async () => {
    assert.equal(await createTopic(cluster.anyBroker(), 'failover', 3, 3), ErrorCode.NONE);
    await cluster.waitFor('failover replicated', replicated('failover', 3, 3));
    await kcat(['-b', cluster.bootstrap(), '-P', '-t', 'failover', '-X', 'acks=all'], lines('before', 30));
    const epochBefore = await controllerEpoch();

    const dead = await killController();
    const survivor = [1, 2, 3].find((id) => id !== dead)!;
    const settled = await cluster.waitFor(
      'a new controller and every partition led by a live broker',
      (m) =>
        m.controllerId > 0 &&
        m.controllerId !== dead &&
        !m.brokers.some((b) => b.nodeId === dead) &&
        partitionsOf(m, 'failover').every((p) => p.leaderId > 0 && p.leaderId !== dead && !p.isrNodes.includes(dead)),
      SESSION_MS * 5,
      survivor,
    );
    assert.ok((await controllerEpoch()) > epochBefore, 'the controller epoch moved on');
    assert.equal(await zk.getController(), settled.controllerId);
    const values = (await kcatRead(cluster.bootstrap(), 'failover')).map((r) => Buffer.from(r.value!, 'hex').toString());
    assert.deepEqual(values.sort(), lines('before', 30).trim().split('\n').sort(), 'nothing acknowledged was lost');

    await cluster.startBroker(dead);
    await cluster.waitFor(`broker ${dead} back in every ISR`, replicated('failover', 3, 3));
  });

  test('a controller paused past its session: a new one takes over, the old epoch is refused, and the old one resigns when resumed', async () => {
    const old = (await cluster.metadata(null)).controllerId;
    const oldEpoch = await controllerEpoch();
    const others = [1, 2, 3].filter((id) => id !== old);
    const child = cluster.brokers[old - 1]!.child;
    child.kill('SIGSTOP');
    let newController = -1;
    let newEpoch = -1;
    try {
      newController = (
        await cluster.waitFor('a new controller', (m) => m.controllerId > 0 && m.controllerId !== old, SESSION_MS * 5, others[0])
      ).controllerId;
      newEpoch = await controllerEpoch();
      assert.ok(newEpoch > oldEpoch);
      // What the paused controller would send: every broker that heard from the new one refuses it.
      for (const id of others) {
        await cluster.waitFor(
          `broker ${id} told of controller ${newController}`,
          (m) => m.controllerId === newController,
          SESSION_MS * 5,
          id,
        );
        const stale = { controllerId: old, controllerEpoch: oldEpoch, brokerEpoch: -1n };
        const lai = await wireCall(cluster.brokers[id - 1]!.bootstrap, LeaderAndIsrRequest, LeaderAndIsrResponse, LEADER_AND_ISR_VERSION, {
          ...stale,
          topicStates: [],
          liveLeaders: [],
        });
        assert.equal(lai.errorCode, ErrorCode.STALE_CONTROLLER_EPOCH, `broker ${id} refuses LeaderAndIsr at the old epoch`);
        const um = await wireCall(
          cluster.brokers[id - 1]!.bootstrap,
          UpdateMetadataRequest,
          UpdateMetadataResponse,
          UPDATE_METADATA_VERSION,
          { ...stale, topicStates: [], liveBrokers: [] },
        );
        assert.equal(um.errorCode, ErrorCode.STALE_CONTROLLER_EPOCH, `broker ${id} refuses UpdateMetadata at the old epoch`);
      }
    } finally {
      child.kill('SIGCONT');
    }
    // Resumed, the old controller finds its session expired, resigns, registers again and rejoins
    // every ISR (as a follower of partitions it led in an epoch it wrote nothing in, too).
    const converged = (m: MetadataResponseData): boolean => m.controllerId === newController && replicated('failover', 3, 3)(m);
    for (const id of [1, 2, 3])
      await cluster.waitFor(`broker ${id} agreeing on controller ${newController}`, converged, SESSION_MS * 5, id);
    assert.match(cluster.brokers[old - 1]!.stderr(), /resigning/, 'the old controller resigned');
    assert.equal(await zk.getController(), newController, 'one controller');
    assert.equal(await controllerEpoch(), newEpoch, 'no further election: the old controller did not take over again');
    await kcat(['-b', cluster.bootstrap(), '-P', '-t', 'failover', '-X', 'acks=all'], lines('after-pause', 30));
    const values = (await kcatRead(cluster.bootstrap(), 'failover')).map((r) => Buffer.from(r.value!, 'hex').toString());
    assert.equal(values.length, 60);
    for (let i = 0; i < 30; i++) assert.ok(values.includes(`after-pause-${i}`), `record ${i} written after the takeover`);
  });

  test('the controller killed while a topic is being created: the new controller creates the missing partition states and leaders', async () => {
    const old = (await cluster.metadata(null)).controllerId;
    const via = [1, 2, 3].find((id) => id !== old)!;
    const child = cluster.brokers[old - 1]!.child;
    // Paused first, so its death falls after the topic znode and before any partition state.
    child.kill('SIGSTOP');
    const creating = createTopic(cluster.brokers[via - 1]!.bootstrap, 'born-orphan', 4, 2);
    await waitFor('the topic znode to be written', 30_000, async () => when(await zk.topicExists('born-orphan')), 50);
    assert.equal(await zk.getPartitionState('born-orphan', 0), null, 'no partition state yet');
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;

    assert.equal(await creating, ErrorCode.NONE, 'CreateTopics completes under the new controller');
    await cluster.waitFor(
      'born-orphan led by live brokers',
      (x) =>
        x.controllerId > 0 &&
        x.controllerId !== old &&
        partitionsOf(x, 'born-orphan').length === 4 &&
        partitionsOf(x, 'born-orphan').every((p) => p.leaderId > 0 && p.leaderId !== old),
      SESSION_MS * 5,
      via,
    );
    for (let p = 0; p < 4; p++) assert.notEqual(await zk.getPartitionState('born-orphan', p), null, `partition ${p} has its state znode`);
    await kcat(['-b', cluster.bootstrap(), '-P', '-t', 'born-orphan', '-X', 'acks=all'], lines('orphan', 20));
    assert.equal((await kcatRead(cluster.bootstrap(), 'born-orphan')).length, 20);
    await cluster.startBroker(old);
    await cluster.waitFor('born-orphan fully replicated once the old controller is back', replicated('born-orphan', 4, 2), 30_000, via);
  });
});
