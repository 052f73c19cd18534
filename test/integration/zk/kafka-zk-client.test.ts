/**
 * KafkaZkClient against a real ZooKeeper 3.8 server (one per file; each test under its own
 * chroot): the znodes and JSON Kafka's tools would read, broker registration and its epoch,
 * controller election and fencing, partition states, topics, configs with ordered change
 * notifications, deletion, producer id blocks, and session expiry.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { zooKeeperSkip } from '../../helpers/requirements.js';
import { startZooKeeper, type ZooKeeperServer } from '../../helpers/zookeeper-server.js';
import { startTcpProxy } from '../../helpers/tcp-proxy.js';
import { waitFor, when } from '../../helpers/wait-for.js';
import { KafkaZkClient } from '../../../src/zk/kafka-zk-client.js';
import { BrokerIdInUseError, ControllerMovedError, TopicExistsError } from '../../../src/zk/kafka-zk-errors.js';
import { DEFAULT_ENTITY, type BrokerInfo } from '../../../src/zk/kafka-zk-data.js';
import { ZkSession } from '../../../src/zk/zk-session.js';
import { ZkBadVersionError, ZkNodeExistsError, ZkSessionExpiredError } from '../../../src/zk/zk-errors.js';
import { ANY_VERSION } from '../../../src/zk/zk-types.js';
import { deferred, SESSION, within } from './zk-helpers.js';

const WATCH_MS = 5_000;
const TOPIC_ID = 'cHJvZHVjZXItaWQtYmxvYw';

function broker(id: number, port = 9090 + id): BrokerInfo {
  return { id, endpoints: [{ listenerName: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: '127.0.0.1', port }], rack: null };
}

describe('KafkaZkClient against a ZooKeeper server', { skip: zooKeeperSkip(), timeout: 180_000 }, () => {
  let zk: ZooKeeperServer;
  let raw: ZkSession;
  const open: KafkaZkClient[] = [];
  let chroots = 0;

  before(async () => {
    zk = await startZooKeeper();
    raw = await ZkSession.connect({ connect: zk.connect, ...SESSION });
  });
  after(async () => {
    await Promise.all(open.map((c) => c.close()));
    await raw?.close();
    await zk?.stop();
  });

  /** A fresh chroot per test, and clients in it; `rawPath` reads the same znodes from outside. */
  async function cluster(): Promise<{
    connect: (connect?: string) => Promise<KafkaZkClient>;
    rawPath: (p: string) => string;
    root: string;
  }> {
    const root = `/cluster-${++chroots}`;
    return {
      root,
      connect: async (connect = `${zk.connect}${root}`) => {
        const c = await KafkaZkClient.connect({ connect, ...SESSION });
        open.push(c);
        return c;
      },
      rawPath: (p) => `${root}${p}`,
    };
  }

  const json = async (path: string): Promise<unknown> => JSON.parse((await raw.get(path))?.data?.toString() ?? 'null');

  test('top-level paths and the cluster id', async () => {
    const { connect, rawPath } = await cluster();
    const c1 = await connect();
    await c1.createTopLevelPaths();
    await c1.createTopLevelPaths();
    assert.deepEqual((await raw.getChildren(rawPath('/brokers')))?.sort(), ['ids', 'seqid', 'topics']);
    assert.deepEqual((await raw.getChildren(rawPath('/config')))?.sort(), ['brokers', 'changes', 'clients', 'ips', 'topics', 'users']);
    assert.deepEqual(await raw.getChildren(rawPath('/admin')), ['delete_topics']);

    assert.equal(await c1.getClusterId(), null);
    assert.equal(await c1.getOrCreateClusterId('first-id'), 'first-id');
    const c2 = await connect();
    assert.equal(await c2.getOrCreateClusterId('second-id'), 'first-id');
    assert.deepEqual(await json(rawPath('/cluster/id')), { version: '1', id: 'first-id' });
  });

  test('broker registration: v5 JSON, epoch = czxid, a duplicate id refused, watches on membership', async () => {
    const { connect, rawPath } = await cluster();
    const c1 = await connect();
    const c2 = await connect();
    await c1.createTopLevelPaths();

    const joined = deferred<void>();
    assert.deepEqual(await c2.getBrokers(() => joined.resolve()), []);
    const epoch = await c1.registerBroker({ ...broker(1), rack: 'rack-a' });
    await within(joined.promise, WATCH_MS, 'broker ids watch');

    const node = await raw.get(rawPath('/brokers/ids/1'));
    assert.equal(node?.stat.czxid, epoch);
    assert.equal(node?.stat.ephemeralOwner, c1.sessionId);
    const registration = (await json(rawPath('/brokers/ids/1'))) as Record<string, unknown>;
    assert.deepEqual(
      { ...registration, timestamp: 'T' },
      {
        features: {},
        listener_security_protocol_map: { PLAINTEXT: 'PLAINTEXT' },
        endpoints: ['PLAINTEXT://127.0.0.1:9091'],
        jmx_port: -1,
        port: 9091,
        host: '127.0.0.1',
        rack: 'rack-a',
        version: 5,
        timestamp: 'T',
      },
    );
    assert.ok(Math.abs(Number(registration['timestamp']) - Date.now()) < 60_000);

    await assert.rejects(c2.registerBroker(broker(1, 9999)), (e: unknown) => {
      assert.ok(e instanceof BrokerIdInUseError);
      assert.match(e.message, /broker id 1 is already registered/);
      assert.match(
        e.message,
        new RegExp(
          `/brokers/ids/1 failed because it exists, owned by ZooKeeper session 0x${BigInt.asUintN(64, c1.sessionId).toString(16)}`,
        ),
      );
      return e.ownerSessionId === c1.sessionId;
    });
    // Our own session meeting its own registration (a retry after a lost answer) gets it back.
    assert.equal(await c1.registerBroker(broker(1)), epoch);

    const epoch2 = await c2.registerBroker(broker(2));
    assert.ok(epoch2 > epoch);
    const brokers = await c1.getBrokers();
    assert.deepEqual(
      brokers.map((b) => [b.id, b.host, b.port, b.rack, b.epoch]),
      [
        [1, '127.0.0.1', 9091, 'rack-a', epoch],
        [2, '127.0.0.1', 9092, null, epoch2],
      ],
    );
    assert.deepEqual(brokers[1]?.endpoints, broker(2).endpoints);

    const left = deferred<void>();
    await c2.getBrokers(() => left.resolve());
    await c1.close();
    await within(left.promise, WATCH_MS, 'broker left');
    assert.equal(await c2.getBroker(1), null);
    assert.equal((await c2.getBroker(2))?.epoch, epoch2);
  });

  test('controller election: one winner; after its session ends the other wins with epoch 2', async () => {
    const { connect, rawPath } = await cluster();
    const c1 = await connect();
    const c2 = await connect();
    assert.equal(await c1.getController(), null);

    const [r1, r2] = await Promise.all([c1.tryBecomeController(1), c2.tryBecomeController(2)]);
    const winners = [r1, r2].filter((r) => r !== null);
    assert.equal(winners.length, 1, 'exactly one controller');
    assert.deepEqual(winners[0], { epoch: 1, epochZkVersion: 1 });
    const [winner, loser, loserId] = r1 !== null ? [c1, c2, 2] : [c2, c1, 1];
    const winnerId = loserId === 1 ? 2 : 1;
    assert.equal(await loser.getController(), winnerId);
    assert.equal(await loser.tryBecomeController(loserId), null);
    const controller = (await json(rawPath('/controller'))) as Record<string, unknown>;
    assert.deepEqual({ ...controller, timestamp: 'T' }, { version: 2, brokerid: winnerId, timestamp: 'T', kraftControllerEpoch: -1 });
    assert.equal((await raw.get(rawPath('/controller_epoch')))?.data?.toString(), '1');

    const seen: (number | null)[] = [];
    const current = deferred<void>();
    const gone = deferred<void>();
    const stop = loser.watchControllerChange((id) => {
      seen.push(id);
      if (id === null) gone.resolve();
      else current.resolve();
    });
    await within(current.promise, WATCH_MS, 'current controller reported');
    await winner.close();
    await within(gone.promise, WATCH_MS, 'controller change seen');
    stop();
    assert.deepEqual(seen, [winnerId, null]);

    const second = await loser.tryBecomeController(loserId);
    assert.deepEqual(second, { epoch: 2, epochZkVersion: 2 });
    assert.equal(await loser.getController(), loserId);
    assert.deepEqual(await loser.getControllerEpoch(), { epoch: 2, zkVersion: 2 });

    // Resigning with a stale guard is refused; with the current one it frees /controller.
    await assert.rejects(loser.resignController(1), ControllerMovedError);
    await loser.resignController(second.epochZkVersion);
    assert.equal(await loser.getController(), null);
  });

  test('partition states: create, read, update with version conflicts, and a stale controller fenced', async () => {
    const { connect, rawPath } = await cluster();
    const c1 = await connect();
    const c2 = await connect();
    await c1.createTopLevelPaths();
    const guard = (await c1.tryBecomeController(1))!;
    await c1.createTopic(
      'orders',
      TOPIC_ID,
      new Map([
        [0, [1, 2]],
        [1, [2, 1]],
      ]),
      {},
    );
    const s0 = { leader: 1, leaderEpoch: 0, isr: [1, 2], controllerEpoch: guard.epoch };
    const s1 = { leader: 2, leaderEpoch: 0, isr: [2, 1], controllerEpoch: guard.epoch };
    const created = await c1.createPartitionStates(guard, [
      { topic: 'orders', partition: 0, state: s0 },
      { topic: 'orders', partition: 1, state: s1 },
    ]);
    assert.deepEqual(created, [
      { topic: 'orders', partition: 0, ok: true, zkVersion: 0 },
      { topic: 'orders', partition: 1, ok: true, zkVersion: 0 },
    ]);
    assert.equal(
      (await raw.get(rawPath('/brokers/topics/orders/partitions/0/state')))?.data?.toString(),
      '{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2]}',
    );
    const again = await c1.createPartitionStates(guard, [{ topic: 'orders', partition: 0, state: s0 }]);
    assert.ok(!again[0]!.ok && again[0]!.error instanceof ZkNodeExistsError);

    assert.deepEqual(await c2.getPartitionState('orders', 0), { state: s0, zkVersion: 0 });
    assert.deepEqual(
      await c2.getPartitionStates([
        { topic: 'orders', partition: 1 },
        { topic: 'orders', partition: 9 },
        { topic: 'nope', partition: 0 },
      ]),
      [{ state: s1, zkVersion: 0 }, null, null],
    );

    const shrunk = { ...s0, leaderEpoch: 1, isr: [1] };
    assert.equal(await c1.updatePartitionState(guard, 'orders', 0, shrunk, 0), 1);
    await assert.rejects(c1.updatePartitionState(guard, 'orders', 0, s0, 0), ZkBadVersionError);
    assert.deepEqual(await c2.getPartitionState('orders', 0), { state: shrunk, zkVersion: 1 });

    // Another controller is elected (c1 resigned but keeps its old guard): c1's writes are fenced.
    await c1.resignController(guard.epochZkVersion);
    const guard2 = (await c2.tryBecomeController(2))!;
    assert.equal(guard2.epoch, 2);
    await assert.rejects(
      c1.updatePartitionState(guard, 'orders', 0, s0, 1),
      (e: unknown) => e instanceof ControllerMovedError && e.code === 41,
    );
    await assert.rejects(c1.createPartitionStates(guard, [{ topic: 'orders', partition: 2, state: s0 }]), ControllerMovedError);
    assert.equal(await raw.exists(rawPath('/brokers/topics/orders/partitions/2')), null, 'nothing written by the fenced controller');
    assert.deepEqual(await c2.getPartitionState('orders', 0), { state: shrunk, zkVersion: 1 });
    assert.equal(await c2.updatePartitionState(guard2, 'orders', 0, { ...shrunk, controllerEpoch: 2, leaderEpoch: 2 }, 1), 2);
  });

  test('topics: create (config first), exists, assignment round trip and update, watches', async () => {
    const { connect, rawPath } = await cluster();
    const c1 = await connect();
    const c2 = await connect();
    await c1.createTopLevelPaths();
    const created = deferred<void>();
    assert.deepEqual(await c2.getTopics(() => created.resolve()), []);

    await c1.createTopic('t1', TOPIC_ID, new Map([[0, [1, 2, 3]]]), { 'cleanup.policy': 'compact' });
    await within(created.promise, WATCH_MS, 'topics watch');
    assert.equal(
      (await raw.get(rawPath('/brokers/topics/t1')))?.data?.toString(),
      `{"version":3,"topic_id":"${TOPIC_ID}","partitions":{"0":[1,2,3]},"adding_replicas":{},"removing_replicas":{}}`,
    );
    assert.deepEqual(await json(rawPath('/config/topics/t1')), { version: 1, config: { 'cleanup.policy': 'compact' } });
    await assert.rejects(
      c2.createTopic('t1', TOPIC_ID, new Map([[0, [1]]]), {}),
      (e: unknown) => e instanceof TopicExistsError && e.code === 36,
    );
    assert.equal(await c2.topicExists('t1'), true);
    assert.equal(await c2.topicExists('t2'), false);
    await c2.createTopic('t2', TOPIC_ID, new Map([[0, [2]]]), {});
    assert.deepEqual(await json(rawPath('/config/topics/t2')), { version: 1, config: {} });
    assert.deepEqual(await c1.getTopics(), ['t1', 't2']);

    const changed = deferred<void>();
    const a = (await c2.getTopicAssignment('t1', () => changed.resolve()))!;
    assert.deepEqual(a, {
      topicId: TOPIC_ID,
      partitions: new Map([[0, [1, 2, 3]]]),
      addingReplicas: new Map(),
      removingReplicas: new Map(),
      zkVersion: 0,
    });
    assert.equal(await c2.getTopicAssignment('missing'), null);

    const moved = {
      ...a,
      partitions: new Map([
        [0, [1, 2, 3, 4]],
        [1, [2, 3, 4]],
      ]),
      addingReplicas: new Map([[0, [4]]]),
    };
    assert.equal(await c1.setTopicAssignment('t1', moved, a.zkVersion), 1);
    await within(changed.promise, WATCH_MS, 'assignment watch');
    await assert.rejects(c1.setTopicAssignment('t1', a, a.zkVersion), ZkBadVersionError);
    const guard = (await c1.tryBecomeController(1))!;
    assert.equal(await c1.setTopicAssignment('t1', a, ANY_VERSION, guard), 2);
    await assert.rejects(
      c1.setTopicAssignment('t1', a, ANY_VERSION, { ...guard, epochZkVersion: guard.epochZkVersion - 1 }),
      ControllerMovedError,
    );
    const back = (await c2.getTopicAssignment('t1'))!;
    assert.deepEqual([back.partitions, back.addingReplicas, back.zkVersion], [a.partitions, new Map(), 2]);
  });

  test('topic deletion: marked, refused for re-creation, znodes removed under the guard', async () => {
    const { connect, rawPath } = await cluster();
    const c1 = await connect();
    await c1.createTopLevelPaths();
    const guard = (await c1.tryBecomeController(1))!;
    await c1.createTopic(
      'doomed',
      TOPIC_ID,
      new Map([
        [0, [1]],
        [1, [1]],
      ]),
      { 'retention.ms': '1' },
    );
    await c1.createPartitionStates(
      guard,
      [0, 1].map((partition) => ({ topic: 'doomed', partition, state: { leader: 1, leaderEpoch: 0, isr: [1], controllerEpoch: 1 } })),
    );

    const marked = deferred<void>();
    assert.deepEqual(await c1.getTopicsToDelete(() => marked.resolve()), []);
    assert.equal(await c1.markTopicForDeletion('doomed'), true);
    assert.equal(await c1.markTopicForDeletion('doomed'), false);
    await within(marked.promise, WATCH_MS, 'delete_topics watch');
    assert.deepEqual(await c1.getTopicsToDelete(), ['doomed']);
    await assert.rejects(c1.createTopic('doomed', TOPIC_ID, new Map([[0, [1]]]), {}), /marked for deletion/);

    await assert.rejects(c1.deleteTopicZnodes({ ...guard, epochZkVersion: 99 }, 'doomed'), ControllerMovedError);
    assert.notEqual(await raw.exists(rawPath('/brokers/topics/doomed/partitions/0/state')), null);
    await c1.deleteTopicZnodes(guard, 'doomed');
    assert.equal(await raw.exists(rawPath('/brokers/topics/doomed')), null);
    assert.equal(await raw.exists(rawPath('/config/topics/doomed')), null);
    assert.deepEqual(await c1.getTopicsToDelete(), []);
    await c1.deleteTopicZnodes(guard, 'doomed');
  });

  test('configs: values, change notifications in order once each, old ones purged', async () => {
    const { connect, rawPath } = await cluster();
    const writer = await connect();
    const reader = await connect();
    await writer.createTopLevelPaths();
    await writer.setEntityConfig('brokers', DEFAULT_ENTITY, { 'log.retention.ms': '1000' });

    const seen: string[] = [];
    const subscription = reader.watchConfigChanges((entityPath) => seen.push(entityPath));
    const waitSeen = (n: number): Promise<true> => waitFor(`${n} config change notifications`, WATCH_MS, () => when(seen.length >= n), 20);
    await waitSeen(1);
    assert.deepEqual(seen, ['brokers/<default>'], 'a notification present at start is handled');

    await writer.setEntityConfig('topics', 'orders', { 'retention.ms': '5' });
    await writer.setEntityConfig('brokers', '1', { 'log.cleaner.threads': '2' });
    await writer.setEntityConfig('topics', 'orders', { 'retention.ms': '6', 'segment.ms': '7' });
    await waitSeen(4);
    // Kept: room for a notification handled twice to show up, which nothing signals.
    await sleep(200);
    assert.deepEqual(seen, ['brokers/<default>', 'topics/orders', 'brokers/1', 'topics/orders']);
    subscription.close();

    assert.deepEqual(await reader.getEntityConfig('topics', 'orders'), { 'retention.ms': '6', 'segment.ms': '7' });
    assert.deepEqual(await reader.getEntityConfig('brokers', DEFAULT_ENTITY), { 'log.retention.ms': '1000' });
    assert.deepEqual(await reader.getEntityConfig('topics', 'none'), {});
    const names = ((await raw.getChildren(rawPath('/config/changes'))) ?? []).sort();
    assert.equal(names.length, 4);
    assert.match(names[0]!, /^config_change_\d{10}$/);
    assert.deepEqual(await json(rawPath(`/config/changes/${names[1]}`)), { version: 2, entity_path: 'topics/orders' });

    // A watcher with a short expiry deletes the notifications older than it, after handling them.
    // Kept: the notifications must be older than the 10 ms expiry; the time is the point.
    await sleep(50);
    const late: string[] = [];
    const purger = reader.watchConfigChanges((p) => late.push(p), { expirationMs: 10 });
    await waitFor(
      'the old notifications purged',
      WATCH_MS,
      async () => when(((await raw.getChildren(rawPath('/config/changes'))) ?? []).length === 0),
      20,
    );
    purger.close();
    assert.deepEqual(await raw.getChildren(rawPath('/config/changes')), []);
    assert.equal(late.length, 4);
  });

  test('client entities: nested user/client paths listed with the others, configs read back', async () => {
    const { connect } = await cluster();
    const c = await connect();
    await c.createTopLevelPaths();
    assert.deepEqual(await c.listClientEntityPaths(), []);
    await c.setEntityConfig('users', 'alice', { 'SCRAM-SHA-512': 'salt=YQ==,stored_key=Yg==,server_key=Yw==,iterations=4096' });
    await c.setEntityConfig('users', 'alice/clients/app', { producer_byte_rate: '1024' });
    await c.setEntityConfig('users', `${DEFAULT_ENTITY}/clients/${DEFAULT_ENTITY}`, { consumer_byte_rate: '2048' });
    await c.setEntityConfig('clients', 'app', { request_percentage: '50' });
    await c.setEntityConfig('ips', '10.0.0.1', { connection_creation_rate: '5' });
    assert.deepEqual((await c.listClientEntityPaths()).sort(), [
      'clients/app',
      'ips/10.0.0.1',
      'users/<default>',
      'users/<default>/clients/<default>',
      'users/alice',
      'users/alice/clients/app',
    ]);
    assert.deepEqual(await c.getEntityConfig('users', 'alice/clients/app'), { producer_byte_rate: '1024' });
  });

  test('producer id blocks from two sessions never overlap', async () => {
    const { connect, rawPath } = await cluster();
    const c1 = await connect();
    const c2 = await connect();
    await c1.createTopLevelPaths();
    const claims = await Promise.all([c1, c2].flatMap((c, i) => Array.from({ length: 15 }, () => c.allocateProducerIdBlock(i + 1))));
    const starts = claims.map((b) => b.firstProducerId).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    assert.deepEqual(
      starts,
      Array.from({ length: 30 }, (_, i) => BigInt(i * 1000)),
      'thirty contiguous blocks of 1000, none shared',
    );
    assert.ok(claims.every((b) => b.size === 1000));
    const last = (await json(rawPath('/latest_producer_id_block'))) as Record<string, unknown>;
    assert.deepEqual({ ...last, broker: 0 }, { version: 1, broker: 0, block_start: '29000', block_end: '29999' });
    assert.deepEqual(await c1.allocateProducerIdBlock(1, 10), { firstProducerId: 30000n, size: 10 });

    // Without the persistent path (no createTopLevelPaths), the first block is created.
    const { connect: connectOther } = await cluster();
    assert.deepEqual(await (await connectOther()).allocateProducerIdBlock(3), { firstProducerId: 0n, size: 1000 });
  });

  test('session expiry is reported; the broker id is free for a new session', { timeout: 30_000 }, async (t) => {
    const { connect, root } = await cluster();
    const proxy = await startTcpProxy(zk.port);
    t.after(() => proxy.close());
    const watcher = await connect();
    await watcher.createTopLevelPaths();
    const doomed = await KafkaZkClient.connect({
      connect: `127.0.0.1:${proxy.port}${root}`,
      sessionTimeoutMs: 1_000,
      connectionTimeoutMs: 5_000,
    });
    open.push(doomed);
    await doomed.registerBroker(broker(5));
    const expired = deferred<void>();
    doomed.onSessionExpired(() => expired.resolve());

    const left = deferred<void>();
    await watcher.getBrokers(() => left.resolve());
    await proxy.cut();
    await within(left.promise, 10_000, 'registration removed by the expiry');
    await proxy.restore();
    await within(expired.promise, 10_000, 'expiry reported');
    await assert.rejects(doomed.getBrokers(), ZkSessionExpiredError);

    const next = await connect();
    const epoch = await next.registerBroker(broker(5));
    assert.equal((await watcher.getBroker(5))?.epoch, epoch);
  });
});
