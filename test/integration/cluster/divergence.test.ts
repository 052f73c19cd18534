// Divergent logs end to end (KIP-101, KIP-279): two unclean failovers in quick succession leave
// two replicas with different records at the same offsets, each written in an epoch the other
// never had. When the second rejoins as a follower it truncates to the end of their last common
// epoch (not to its high watermark, and not only to the leader's end offset), catches up, rejoins
// the ISR, and then leads with exactly the leader's log.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { CreateTopicsRequest, CreateTopicsResponse, type MetadataResponseData } from '@sluice/protocol/messages/index.js';
import { startCluster, type TestCluster } from '../../helpers/cluster.js';
import { kcat, kcatRead } from '../../helpers/interop.js';
import { kcatSkip, zooKeeperSkip } from '../../helpers/requirements.js';
import { wireCall } from '../../helpers/wire-call.js';

const TOPIC = 'diverging';
const SESSION_MS = 3000;

function partition0(m: MetadataResponseData) {
  return m.topics.find((t) => t.name === TOPIC)?.partitions.find((p) => p.partitionIndex === 0);
}

const lines = (prefix: string): string => Array.from({ length: 10 }, (_, i) => `${prefix}${i}`).join('\n') + '\n';

describe('divergent logs after two quick unclean failovers', { skip: zooKeeperSkip() ?? kcatSkip() }, () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startCluster(3, {
      'zookeeper.session.timeout.ms': String(SESSION_MS),
      'replica.lag.time.max.ms': '2000',
      'unclean.leader.election.enable': 'true',
    });
  });
  after(async () => {
    await cluster?.stop();
  });

  const produce = (acks: string, prefix: string) =>
    kcat(['-b', cluster.bootstrap(), '-P', '-t', TOPIC, '-p', '0', '-X', `acks=${acks}`], lines(prefix));
  const values = async (): Promise<string[]> =>
    (await kcatRead(cluster.bootstrap(), TOPIC)).map((r) => Buffer.from(r.value!, 'hex').toString());
  const waitForPartition = (what: string, ready: (p: NonNullable<ReturnType<typeof partition0>>) => boolean) =>
    cluster.waitFor(
      what,
      (m) => {
        const p = partition0(m);
        return p !== undefined && ready(p);
      },
      60_000,
    );

  test('the follower holding an epoch its leader never had truncates to their last common epoch and then matches the leader', async () => {
    const created = await wireCall(cluster.anyBroker(), CreateTopicsRequest, CreateTopicsResponse, 7, {
      topics: [
        {
          name: TOPIC,
          numPartitions: -1,
          replicationFactor: -1,
          assignments: [{ partitionIndex: 0, brokerIds: [1, 2] }],
          configs: [{ name: 'min.insync.replicas', value: '1' }],
        },
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);
    await waitForPartition('both replicas in sync', (p) => p.leaderId === 1 && p.isrNodes.length === 2);
    await produce('all', 'a');

    // Broker 2 goes; broker 1 alone takes b0-b9 (offsets 10-19) in epoch 0 of its log.
    await cluster.brokers[1]!.stop();
    await waitForPartition('broker 2 out of the ISR', (p) => p.leaderId === 1 && p.isrNodes.length === 1);
    await produce('1', 'b');

    // Broker 1 goes; broker 2 returns and leads uncleanly, writing c0-c9 at offsets 10-19.
    cluster.brokers[0]!.child.kill('SIGKILL');
    await waitForPartition('the partition offline', (p) => p.leaderId === -1);
    await cluster.startBroker(2);
    await waitForPartition('broker 2 leading', (p) => p.leaderId === 2);
    await produce('1', 'c');
    assert.deepEqual((await values()).slice(10), lines('c').trim().split('\n'));

    // Broker 2 goes before anyone copies c; broker 1 returns and leads uncleanly, writing d.
    cluster.brokers[1]!.child.kill('SIGKILL');
    await waitForPartition('the partition offline again', (p) => p.leaderId === -1);
    await cluster.startBroker(1);
    await waitForPartition('broker 1 leading', (p) => p.leaderId === 1);
    await produce('1', 'd');

    // Broker 2 rejoins as follower: its c records (at offsets broker 1 has b at) must go.
    await cluster.startBroker(2);
    const leaderLog = [lines('a'), lines('b'), lines('d')].join('').trim().split('\n');
    await waitForPartition('broker 2 back in the ISR', (p) => p.leaderId === 1 && p.isrNodes.length === 2);
    assert.deepEqual(await values(), leaderLog);

    // Broker 2 leads now, cleanly: what it serves is broker 1's log, record for record.
    await cluster.brokers[0]!.stop();
    await waitForPartition('broker 2 leading after a clean election', (p) => p.leaderId === 2);
    assert.deepEqual(await values(), leaderLog);
    await cluster.startBroker(1);
  });
});
