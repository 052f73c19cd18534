// A leader cut off from ZooKeeper but still running (its session expires while it serves
// clients) must not acknowledge writes it can no longer commit: once the controller has moved
// its leadership, its followers fetch from the new leader, its acks=all produce is never
// acknowledged, and the ISR shrink it asks for is refused — the ISR the controller wrote stands.
// When ZooKeeper is reachable again it registers anew, follows, and truncates what it appended
// alone.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  CreateTopicsRequest,
  CreateTopicsResponse,
  ProduceRequest,
  ProduceResponse,
  type MetadataResponseData,
} from '@sluice/protocol/messages/index.js';
import { encodeRecordBatch } from '@sluice/protocol/records/index.js';
import { startCluster, type TestCluster } from '../../helpers/cluster.js';
import { kcat, kcatRead } from '../../helpers/interop.js';
import { kcatSkip, zooKeeperSkip } from '../../helpers/requirements.js';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js';
import { wireCall } from '../../helpers/wire-call.js';

const TOPIC = 'isolated';
const SESSION_MS = 3000;
const LAG_MS = 1500;

function partition0(m: MetadataResponseData) {
  return m.topics.find((t) => t.name === TOPIC)?.partitions[0];
}

describe('a leader isolated from ZooKeeper', { skip: zooKeeperSkip() ?? kcatSkip() }, () => {
  let cluster: TestCluster;
  let proxy: TcpProxy;
  before(async () => {
    cluster = await startCluster(3, { 'zookeeper.session.timeout.ms': String(SESSION_MS), 'replica.lag.time.max.ms': String(LAG_MS) });
    // Broker 1 reaches ZooKeeper only through a proxy the test can cut.
    proxy = await startTcpProxy(cluster.zookeeper.port);
    assert.equal(await cluster.brokers[0]!.stop(), 0);
    await cluster.startBroker(1, { 'zookeeper.connect': `127.0.0.1:${proxy.port}/sluice` });
    await cluster.waitFor('broker 1 back', (m) => m.brokers.length === 3);
  });
  after(async () => {
    await proxy?.close();
    await cluster?.stop();
  });

  test('acknowledges nothing it cannot commit, shrinks no ISR, and truncates when it rejoins', { timeout: 120_000 }, async () => {
    const created = await wireCall(cluster.anyBroker(), CreateTopicsRequest, CreateTopicsResponse, 7, {
      topics: [
        {
          name: TOPIC,
          numPartitions: -1,
          replicationFactor: -1,
          assignments: [{ partitionIndex: 0, brokerIds: [1, 2, 3] }],
          configs: [{ name: 'min.insync.replicas', value: '2' }],
        },
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);
    await cluster.waitFor('broker 1 leading with a full ISR', (m) => partition0(m)?.leaderId === 1 && partition0(m)?.isrNodes.length === 3);
    const before = Array.from({ length: 10 }, (_, i) => `before-${i}`);
    await kcat(['-b', cluster.brokers[0]!.bootstrap, '-P', '-t', TOPIC, '-X', 'acks=all'], before.join('\n') + '\n');

    await proxy.cut();
    const moved = await cluster.waitFor(
      'a new leader among brokers 2 and 3',
      (m) => [2, 3].includes(partition0(m)?.leaderId ?? -1),
      SESSION_MS * 5,
      2,
    );
    const isrAfterElection = [...partition0(moved)!.isrNodes].sort();
    assert.ok(!isrAfterElection.includes(1), 'the controller took broker 1 out of the ISR');

    // Broker 1 still believes it leads: it appends, but no follower fetches from it any more.
    const isolated = await wireCall(cluster.brokers[0]!.bootstrap, ProduceRequest, ProduceResponse, 11, {
      acks: -1,
      timeoutMs: LAG_MS * 3,
      topicData: [
        {
          name: TOPIC,
          partitionData: [
            {
              index: 0,
              records: encodeRecordBatch({ records: [{ key: null, value: Buffer.from('isolated'), timestamp: BigInt(Date.now()) }] }),
            },
          ],
        },
      ],
    });
    const code = isolated.responses[0]!.partitionResponses[0]!.errorCode;
    assert.notEqual(code, ErrorCode.NONE, 'an acks=all write to the isolated leader is not acknowledged');
    assert.ok(
      ([ErrorCode.REQUEST_TIMED_OUT, ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.NOT_LEADER_OR_FOLLOWER] as number[]).includes(code),
      `answered ${code}`,
    );
    // It has by now wanted its followers out of the ISR for longer than the lag time.
    const still = await cluster.metadata([TOPIC], 2);
    assert.deepEqual([...partition0(still)!.isrNodes].sort(), isrAfterElection, 'its ISR shrink was refused: the ISR is the controller’s');

    const after = Array.from({ length: 10 }, (_, i) => `after-${i}`);
    const leader = partition0(still)!.leaderId;
    await kcat(['-b', cluster.brokers[leader - 1]!.bootstrap, '-P', '-t', TOPIC, '-X', 'acks=all'], after.join('\n') + '\n');

    await proxy.restore();
    await cluster.waitFor(
      'broker 1 registered again and back in the ISR',
      (m) => m.brokers.length === 3 && partition0(m)?.isrNodes.length === 3,
      60_000,
      2,
    );
    // Broker 1 leads again only through a clean election; what it then serves is the new leader's log.
    assert.equal(await cluster.brokers[leader - 1]!.stop(), 0);
    const other = [2, 3].find((id) => id !== leader)!;
    assert.equal(await cluster.brokers[other - 1]!.stop(), 0);
    await cluster.waitFor('broker 1 leading alone', (m) => partition0(m)?.leaderId === 1, 60_000, 1);
    const values = (await kcatRead(cluster.brokers[0]!.bootstrap, TOPIC)).map((r) => Buffer.from(r.value!, 'hex').toString());
    assert.deepEqual(values, [...before, ...after], 'the unacknowledged write is gone, every acknowledged one is there');
  });
});
