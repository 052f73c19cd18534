// A member whose ZooKeeper session expires (paused past zookeeper.session.timeout.ms) is dropped
// by the controller, its leaderships move, and when it runs again it opens a new session,
// registers again and rejoins every ISR; nothing acknowledged is lost.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { CreateTopicsRequest, CreateTopicsResponse } from '../../../src/protocol/messages/index.js';
import { startCluster, type TestCluster } from '../../helpers/cluster.js';
import { kcat, kcatRead } from '../../helpers/interop.js';
import { kcatSkip, zooKeeperSkip } from '../../helpers/requirements.js';
import { wireCall } from '../../helpers/wire-call.js';

const SESSION_MS = 3000;

describe('ZooKeeper session expiry', { skip: zooKeeperSkip() ?? kcatSkip() }, () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startCluster(3, { 'zookeeper.session.timeout.ms': String(SESSION_MS), 'replica.lag.time.max.ms': '2000' });
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
    await kcat(['-b', cluster.bootstrap(), '-P', '-t', 'expiring', '-X', 'acks=all'], Array.from({ length: 90 }, (_, i) => `before-${i}`).join('\n') + '\n');

    const m = await cluster.metadata(null);
    const paused = [1, 2, 3].find((id) => id !== m.controllerId)!;
    const via = m.controllerId;
    const child = cluster.brokers[paused - 1]!.child;
    child.kill('SIGSTOP');
    try {
      await cluster.waitFor(`broker ${paused} dropped from the cluster`, (x) => x.brokers.every((b) => b.nodeId !== paused), SESSION_MS * 4, via);
      const moved = await cluster.metadata(['expiring'], via);
      assert.ok(moved.topics[0]!.partitions.every((p) => p.leaderId !== paused && !p.isrNodes.includes(paused)), 'its leaderships moved and it left the ISRs');
    } finally {
      child.kill('SIGCONT');
    }
    await cluster.waitFor(`broker ${paused} registered again and back in every ISR`, full, 30_000, via);
    await kcat(['-b', cluster.bootstrap(), '-P', '-t', 'expiring', '-X', 'acks=all'], Array.from({ length: 90 }, (_, i) => `after-${i}`).join('\n') + '\n');
    const read = await kcatRead(cluster.bootstrap(), 'expiring');
    const values = read.map((r) => Buffer.from(r.value!, 'hex').toString());
    assert.equal(values.length, 180);
    for (let i = 0; i < 90; i++) assert.ok(values.includes(`before-${i}`) && values.includes(`after-${i}`), `record ${i}`);
  });
});
