// Leader elections when no in-sync replica is left: a partition on brokers A and B loses A (it
// leaves the ISR), takes acks=1 records on B alone, then loses B; A comes back. With
// unclean.leader.election.enable off (Kafka's default) the partition stays offline until B, the
// last ISR member, returns and leads with every record. Enabled on the topic while it is offline,
// the controller elects A at once (Kafka's TopicUncleanLeaderElectionEnable), logs and counts the
// unclean election, and B, rejoining, truncates the records only it had.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  CreateTopicsRequest,
  CreateTopicsResponse,
  IncrementalAlterConfigsRequest,
  IncrementalAlterConfigsResponse,
  ProduceRequest,
  ProduceResponse,
  type MetadataResponseData,
} from '@sluice/protocol/messages/index.js';
import { encodeRecordBatch } from '@sluice/protocol/records/index.js';
import { metricsUrl } from '../../helpers/broker-process.js';
import { startCluster, type TestCluster } from '../../helpers/cluster.js';
import { kcat, kcatRead } from '../../helpers/interop.js';
import { kcatSkip, zooKeeperSkip } from '../../helpers/requirements.js';
import { wireCall } from '../../helpers/wire-call.js';

const TOPIC_RESOURCE = 2;
const SET = 0;
const UNCLEAN_METRIC = /^sluice_controller_unclean_leader_elections_total (\d+)$/m;

function partition0(m: MetadataResponseData, topic: string) {
  return m.topics.find((t) => t.name === topic)?.partitions.find((p) => p.partitionIndex === 0);
}

const lines = (prefix: string, n: number): string => Array.from({ length: n }, (_, i) => `${prefix}-${i}`).join('\n') + '\n';

async function values(bootstrap: string, topic: string): Promise<string[]> {
  return (await kcatRead(bootstrap, topic)).map((r) => Buffer.from(r.value!, 'hex').toString());
}

async function uncleanElections(url: string): Promise<number> {
  const text = await (await fetch(url)).text();
  return Number(UNCLEAN_METRIC.exec(text)?.[1] ?? 'NaN');
}

describe('leader elections with no live in-sync replica', { skip: zooKeeperSkip() ?? kcatSkip() }, () => {
  let cluster: TestCluster;
  let controller: number;
  let a: number;
  let b: number;
  before(async () => {
    cluster = await startCluster(3, { 'auto.create.topics.enable': 'false', 'metrics.listener': 'http://127.0.0.1:0' });
    controller = (await cluster.metadata(null)).controllerId;
    [a, b] = [1, 2, 3].filter((id) => id !== controller) as [number, number];
  });
  after(async () => {
    await cluster?.stop();
  });

  /** Committed records on A and B, then A stopped, acks=1 records on B alone, then B stopped and A started: only the out-of-sync replica lives. */
  async function leaveOnlyTheOutOfSyncReplica(topic: string): Promise<void> {
    const created = await wireCall(cluster.anyBroker(), CreateTopicsRequest, CreateTopicsResponse, 7, {
      topics: [
        { name: topic, numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [a, b] }], configs: [] },
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);
    await cluster.waitFor(`${topic} in sync on ${a} and ${b}`, (m) => partition0(m, topic)?.isrNodes.length === 2, 30_000, controller);
    await kcat(['-b', cluster.bootstrap(), '-P', '-t', topic, '-p', '0', '-X', 'acks=all'], lines('committed', 10));
    await cluster.brokers[a - 1]!.stop();
    await cluster.waitFor(
      `${b} leading ${topic} alone`,
      (m) => partition0(m, topic)?.leaderId === b && partition0(m, topic)?.isrNodes.join() === String(b),
      30_000,
      controller,
    );
    await kcat(['-b', cluster.brokers[b - 1]!.bootstrap, '-P', '-t', topic, '-p', '0', '-X', 'acks=1'], lines(`only-on-${b}`, 10));
    await cluster.brokers[b - 1]!.stop();
    await cluster.startBroker(a);
    // The controller elects in the same event that tells the brokers the live set: once its own
    // cache lists A and not B, the election for A's return has been decided.
    await cluster.waitFor(
      `${a} back, ${b} gone`,
      (m) => m.brokers.some((x) => x.nodeId === a) && !m.brokers.some((x) => x.nodeId === b),
      30_000,
      controller,
    );
    // A answers for the partition once the controller's UpdateMetadata has reached it, which may take a retry.
    await cluster.waitFor(`${a} knowing ${topic}`, (m) => partition0(m, topic) !== undefined, 30_000, a);
  }

  async function assertOffline(topic: string): Promise<void> {
    const p = partition0(await cluster.metadata([topic], controller), topic)!;
    assert.equal(p.leaderId, -1, 'no leader');
    assert.equal(p.errorCode, ErrorCode.LEADER_NOT_AVAILABLE);
    assert.deepEqual(p.isrNodes, [b], 'the ISR keeps its last member, the one that may lead cleanly');
    const produced = await wireCall(cluster.brokers[a - 1]!.bootstrap, ProduceRequest, ProduceResponse, 11, {
      acks: -1,
      timeoutMs: 5_000,
      topicData: [
        {
          name: topic,
          partitionData: [
            {
              index: 0,
              records: encodeRecordBatch({ records: [{ key: null, value: Buffer.from('refused'), timestamp: BigInt(Date.now()) }] }),
            },
          ],
        },
      ],
    });
    assert.equal(
      produced.responses[0]!.partitionResponses[0]!.errorCode,
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
      'the out-of-sync replica does not take writes',
    );
  }

  test('unclean election off: the partition stays offline until the last ISR member returns, which leads with every record', async () => {
    const topic = 'clean-only';
    await leaveOnlyTheOutOfSyncReplica(topic);
    await assertOffline(topic);
    await cluster.startBroker(b);
    // Asked of B itself: it serves once it has applied its leadership, not when the controller decided it.
    await cluster.waitFor(`${b} leading ${topic} again`, (m) => partition0(m, topic)?.leaderId === b, 30_000, b);
    const read = await values(cluster.bootstrap(), topic);
    assert.deepEqual(read, [...lines('committed', 10).trim().split('\n'), ...lines(`only-on-${b}`, 10).trim().split('\n')]);
    await cluster.waitFor(`${a} back in the ISR of ${topic}`, (m) => partition0(m, topic)?.isrNodes.length === 2, 30_000, controller);
    assert.equal(await uncleanElections(await metricsUrl(cluster.brokers[controller - 1]!)), 0, 'no unclean election was counted');
  });

  test('unclean election enabled on the topic while it is offline: the out-of-sync replica leads at once, counted, and the old leader truncates to it', async () => {
    const topic = 'unclean-allowed';
    await leaveOnlyTheOutOfSyncReplica(topic);
    await assertOffline(topic);
    const altered = await wireCall(
      cluster.brokers[controller - 1]!.bootstrap,
      IncrementalAlterConfigsRequest,
      IncrementalAlterConfigsResponse,
      1,
      {
        resources: [
          {
            resourceType: TOPIC_RESOURCE,
            resourceName: topic,
            configs: [{ name: 'unclean.leader.election.enable', configOperation: SET, value: 'true' }],
          },
        ],
        validateOnly: false,
      },
    );
    assert.equal(altered.responses[0]!.errorCode, ErrorCode.NONE);
    await cluster.waitFor(`${a} leading ${topic} uncleanly`, (m) => partition0(m, topic)?.leaderId === a, 30_000, a);
    assert.deepEqual(
      partition0(await cluster.metadata([topic], controller), topic)!.isrNodes,
      [a],
      'the unclean leader is alone in the ISR',
    );
    const metrics = await metricsUrl(cluster.brokers[controller - 1]!);
    assert.equal(await uncleanElections(metrics), 1);
    const warning = cluster.brokers[controller - 1]!.stderr()
      .split('\n')
      .find((l) => l.includes('unclean leader election') && l.includes(topic));
    assert.ok(warning !== undefined, 'the controller logs the unclean election');
    assert.match(warning, new RegExp(`"partition":0.*"oldIsr":\\[${b}\\].*"leader":${a}`));

    await kcat(['-b', cluster.bootstrap(), '-P', '-t', topic, '-p', '0', '-X', 'acks=all'], lines('after', 5));
    await cluster.startBroker(b);
    await cluster.waitFor(`${b} back in the ISR of ${topic}`, (m) => partition0(m, topic)?.isrNodes.length === 2, 30_000, controller);
    // B's own log must now be A's: make B the leader and read it.
    await cluster.brokers[a - 1]!.stop();
    await cluster.waitFor(`${b} leading ${topic}`, (m) => partition0(m, topic)?.leaderId === b, 30_000, b);
    const read = await values(cluster.brokers[b - 1]!.bootstrap, topic);
    assert.deepEqual(
      read,
      [...lines('committed', 10).trim().split('\n'), ...lines('after', 5).trim().split('\n')],
      `the records only ${b} had are gone from its log`,
    );
    assert.equal(await uncleanElections(metrics), 1, 'the clean election that followed is not counted');
    await cluster.startBroker(a);
  });
});
