// A member whose ZooKeeper session expires (paused past zookeeper.session.timeout.ms) is dropped
// by the controller, its leaderships move, and when it runs again it opens a new session,
// registers again and rejoins every ISR; nothing acknowledged is lost. A leader paused with
// records its followers never fetched comes back as a follower and truncates them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { CreateTopicsRequest, CreateTopicsResponse, ElectLeadersRequest, ElectLeadersResponse } from '@sluice/protocol/messages/index.js';
import { startCluster, type TestCluster } from '../../helpers/cluster.js';
import { kcat, kcatRead } from '../../helpers/interop.js';
import { kcatSkip, zooKeeperSkip } from '../../helpers/requirements.js';
import { wireCall } from '../../helpers/wire-call.js';

const SESSION_MS = 3000;
const FETCH_WAIT_MS = 300;

describe('ZooKeeper session expiry', { skip: zooKeeperSkip() ?? kcatSkip() }, () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startCluster(3, {
      'zookeeper.session.timeout.ms': String(SESSION_MS),
      'replica.lag.time.max.ms': '10000',
      'replica.fetch.wait.max.ms': String(FETCH_WAIT_MS),
    });
  });
  after(async () => {
    await cluster?.stop();
  });

  test('a broker paused past its session timeout is dropped, then registers again and rejoins the ISRs', async () => {
    const created = await wireCall(cluster.anyBroker(), CreateTopicsRequest, CreateTopicsResponse, 7, {
      topics: [{ name: 'expiring', numPartitions: 3, replicationFactor: 3, assignments: [], configs: [] }],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);
    const full = (m: Awaited<ReturnType<TestCluster['metadata']>>): boolean =>
      m.brokers.length === 3 && m.topics.find((t) => t.name === 'expiring')?.partitions.every((p) => p.isrNodes.length === 3) === true;
    await cluster.waitFor('expiring replicated', full);
    await kcat(
      ['-b', cluster.bootstrap(), '-P', '-t', 'expiring', '-X', 'acks=all'],
      Array.from({ length: 90 }, (_, i) => `before-${i}`).join('\n') + '\n',
    );

    const m = await cluster.metadata(null);
    const paused = [1, 2, 3].find((id) => id !== m.controllerId)!;
    const via = m.controllerId;
    const child = cluster.brokers[paused - 1]!.child;
    child.kill('SIGSTOP');
    try {
      await cluster.waitFor(
        `broker ${paused} dropped from the cluster`,
        (x) => x.brokers.every((b) => b.nodeId !== paused),
        SESSION_MS * 4,
        via,
      );
      const moved = await cluster.metadata(['expiring'], via);
      assert.ok(
        moved.topics[0]!.partitions.every((p) => p.leaderId !== paused && !p.isrNodes.includes(paused)),
        'its leaderships moved and it left the ISRs',
      );
    } finally {
      child.kill('SIGCONT');
    }
    await cluster.waitFor(`broker ${paused} registered again and back in every ISR`, full, 30_000, via);
    await kcat(
      ['-b', cluster.bootstrap(), '-P', '-t', 'expiring', '-X', 'acks=all'],
      Array.from({ length: 90 }, (_, i) => `after-${i}`).join('\n') + '\n',
    );
    const read = await kcatRead(cluster.bootstrap(), 'expiring');
    const values = read.map((r) => Buffer.from(r.value!, 'hex').toString());
    assert.equal(values.length, 180);
    for (let i = 0; i < 90; i++) assert.ok(values.includes(`before-${i}`) && values.includes(`after-${i}`), `record ${i}`);
  });

  test('a leader paused with records only it has comes back as a follower of the new leader and truncates them', async () => {
    const topic = 'paused-leader';
    const created = await wireCall(cluster.anyBroker(), CreateTopicsRequest, CreateTopicsResponse, 7, {
      topics: [
        { name: topic, numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [1, 2, 3] }], configs: [] },
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);
    const partition = (m: Awaited<ReturnType<TestCluster['metadata']>>) => m.topics.find((t) => t.name === topic)?.partitions[0];
    await cluster.waitFor(
      `${topic} led by broker 1 with a full ISR`,
      (m) => partition(m)?.leaderId === 1 && partition(m)?.isrNodes.length === 3,
    );
    const produce = (bootstrap: string, acks: string, prefix: string) =>
      kcat(
        ['-b', bootstrap, '-P', '-t', topic, '-p', '0', '-X', `acks=${acks}`],
        Array.from({ length: 20 }, (_, i) => `${prefix}-${i}`).join('\n') + '\n',
      );
    const leader = cluster.brokers[0]!;
    const followers = [cluster.brokers[1]!, cluster.brokers[2]!];
    await produce(leader.bootstrap, 'all', 'committed');

    // The followers stop for less than the lag time, and once the fetches they had waiting at
    // the leader have been answered (empty) the leader alone takes acks=1 records.
    for (const f of followers) f.child.kill('SIGSTOP');
    try {
      // Kept: the fetches answered at the leader show nowhere outside it; three fetch waits give them time.
      await sleep(FETCH_WAIT_MS * 3);
      await produce(leader.bootstrap, '1', 'uncommitted');
    } finally {
      leader.child.kill('SIGSTOP');
      for (const f of followers) f.child.kill('SIGCONT');
    }
    try {
      await cluster.waitFor(
        'broker 2 or 3 leading',
        (m) => [2, 3].includes(partition(m)?.leaderId ?? -1) && m.brokers.every((b) => b.nodeId !== 1),
        SESSION_MS * 5,
        2,
      );
      await produce(followers[0]!.bootstrap, 'all', 'new-leader');
    } finally {
      leader.child.kill('SIGCONT');
    }
    await cluster.waitFor('broker 1 back in the ISR', (m) => partition(m)?.isrNodes.length === 3, 30_000, 2);
    const m = await cluster.metadata(null, 2);
    const elected = await wireCall(cluster.brokers[m.controllerId - 1]!.bootstrap, ElectLeadersRequest, ElectLeadersResponse, 2, {
      electionType: 0,
      topicPartitions: [{ topic, partitions: [0] }],
      timeoutMs: 30_000,
    });
    assert.equal(elected.errorCode, ErrorCode.NONE);
    await cluster.waitFor('broker 1 leading again', (x) => partition(x)?.leaderId === 1, 30_000, 2);
    const read = await kcatRead(leader.bootstrap, topic);
    const values = read.map((r) => Buffer.from(r.value!, 'hex').toString());
    const expected = [
      ...Array.from({ length: 20 }, (_, i) => `committed-${i}`),
      ...Array.from({ length: 20 }, (_, i) => `new-leader-${i}`),
    ];
    assert.deepEqual(values, expected, "broker 1 serves the new leader's log: its own acks=1 records are gone");
  });
});
