/**
 * The share-state persister's remote path against a real peer: two brokers in this process
 * (`Broker.start`, a ZooKeeper cluster, `__share_group_state` with two unreplicated partitions),
 * a share-partition whose state partition broker 2 leads, driven through broker 1's
 * `sharePersister` — so every call goes over broker 1's inter-broker connection as RPCs 83–87 and
 * broker 2's coordinator answers. No client-facing API calls the persister yet (ShareFetch will),
 * hence the in-process brokers. Raw requests check where the state lives.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Broker } from '../../../src/broker/broker.js';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { partitionFor } from '../../../src/coordinator/group/partition-for.js';
import type { SharePartitionKey } from '../../../src/coordinator/share/share-state-persister.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { SHARE_GROUP_STATE_TOPIC } from '@sluice/protocol/internal-topics.js';
import * as M from '@sluice/protocol/messages/index.js';
import { waitFor } from '../../helpers/wait-for.js';
import { wireCall } from '../../helpers/wire-call.js';
import { startZooKeeper, type ZooKeeperServer } from '../../helpers/zookeeper-server.js';

const STATE_PARTITIONS = 2;

/** waitFor over requests that may fail while the brokers settle: a failed probe means "not yet". */
function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  return waitFor(what, 30_000, () => probe().catch(() => undefined));
}

describe('ShareStatePersister across two brokers of a ZooKeeper cluster', () => {
  let zookeeper: ZooKeeperServer;
  const dir = mkdtempSync(join(tmpdir(), 'sluice-share-persister-'));
  const brokers: Broker[] = [];

  before(async () => {
    zookeeper = await startZooKeeper();
    for (const id of [1, 2]) {
      brokers.push(
        await Broker.start({
          port: 0,
          config: {
            'node.id': String(id),
            'log.dirs': join(dir, `broker-${id}`),
            'zookeeper.connect': `${zookeeper.connect}/sluice`,
            'num.partition.workers': '1',
            'offsets.topic.replication.factor': '1',
            'share.coordinator.state.topic.num.partitions': String(STATE_PARTITIONS),
            'share.coordinator.state.topic.replication.factor': '1',
            'share.coordinator.state.topic.min.isr': '1',
          },
        }),
      );
    }
  });

  after(async () => {
    for (const b of brokers.splice(0).reverse()) await b.stop();
    await zookeeper?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('initialize, write, read, summary and delete through broker 1 reach the coordinator on broker 2', async () => {
    const [b1, b2] = brokers as [Broker, Broker];
    await until('both brokers registered', async () =>
      (await wireCall(b1.bootstrap, M.MetadataRequest, M.MetadataResponse, 12, { topics: null, allowAutoTopicCreation: false })).brokers
        .length === 2
        ? true
        : undefined,
    );
    const created = await wireCall(b1.bootstrap, M.CreateTopicsRequest, M.CreateTopicsResponse, 7, {
      topics: [{ name: 'shared', numPartitions: 1, replicationFactor: 1 }],
      timeoutMs: 30_000,
    });
    assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);
    const topicId = created.topics[0]!.topicId;

    // FindCoordinator creates __share_group_state; then both brokers must know its leaders and the topic.
    const leaders = await until('__share_group_state leaders known to both brokers', async () => {
      await wireCall(b1.bootstrap, M.FindCoordinatorRequest, M.FindCoordinatorResponse, 6, {
        keyType: 2,
        coordinatorKeys: [`g:${topicId}:0`],
      });
      const views = await Promise.all(
        brokers.map((b) =>
          wireCall(b.bootstrap, M.MetadataRequest, M.MetadataResponse, 12, {
            topics: [{ name: SHARE_GROUP_STATE_TOPIC }, { name: 'shared' }],
            allowAutoTopicCreation: false,
          }),
        ),
      );
      const byPartition = views.map(
        (m) =>
          new Map(m.topics.find((t) => t.name === SHARE_GROUP_STATE_TOPIC)?.partitions.map((p) => [p.partitionIndex, p.leaderId]) ?? []),
      );
      const ready =
        views.every((m) => m.topics.every((t) => t.errorCode === ErrorCode.NONE)) &&
        byPartition.every((m) => m.size === STATE_PARTITIONS && [...m.values()].every((l) => l >= 0));
      return ready && JSON.stringify([...byPartition[0]!]) === JSON.stringify([...byPartition[1]!]) ? byPartition[0]! : undefined;
    });
    assert.deepEqual(new Set(leaders.values()), new Set([1, 2]), 'one state partition on each broker');

    // A share-partition whose state partition broker 2 leads.
    const groupId = Array.from({ length: 64 }, (_, i) => `group-${i}`).find(
      (g) => leaders.get(partitionFor(`${g}:${topicId}:0`, STATE_PARTITIONS)) === 2,
    )!;
    const key: SharePartitionKey = { groupId, topicId, partition: 0 };
    const rawSummary = (b: Broker) =>
      wireCall(b.bootstrap, M.ReadShareGroupStateSummaryRequest, M.ReadShareGroupStateSummaryResponse, 1, {
        groupId,
        topics: [{ topicId, partitions: [{ partition: 0, leaderEpoch: 0 }] }],
      }).then((r) => r.results[0]!.partitions[0]!);

    await until('broker 2 coordinating the share-partition', async () =>
      (await rawSummary(b2)).errorCode === ErrorCode.NONE ? true : undefined,
    );
    await b1.sharePersister.initialize(key, 1, 100n);
    const batches = [{ firstOffset: 100n, lastOffset: 104n, deliveryState: 2, deliveryCount: 1 }];
    await b1.sharePersister.write(key, {
      stateEpoch: 1,
      leaderEpoch: 7,
      startOffset: 100n,
      stateBatches: batches,
      deliveryCompleteCount: 5,
    });
    assert.deepEqual(await b1.sharePersister.read(key, 7), { stateEpoch: 1, startOffset: 100n, leaderEpoch: 7, stateBatches: batches });
    assert.deepEqual(await b1.sharePersister.readSummary(key, 7), {
      stateEpoch: 1,
      startOffset: 100n,
      leaderEpoch: 7,
      deliveryCompleteCount: 5,
    });
    await assert.rejects(
      b1.sharePersister.read(key, 6),
      (err: unknown) => err instanceof KafkaError && err.code === ErrorCode.FENCED_LEADER_EPOCH,
      "the peer's fencing reaches the caller",
    );

    // The state is broker 2's: it answers for it, broker 1's own coordinator does not hold it.
    assert.deepEqual([(await rawSummary(b2)).startOffset, (await rawSummary(b1)).errorCode], [100n, ErrorCode.NOT_COORDINATOR]);
    assert.deepEqual(await b2.sharePersister.read(key, 7), { stateEpoch: 1, startOffset: 100n, leaderEpoch: 7, stateBatches: batches });

    await b1.sharePersister.delete(key);
    assert.equal((await rawSummary(b2)).startOffset, -1n);
    await assert.rejects(
      b1.sharePersister.read(key, 7),
      (err: unknown) => err instanceof KafkaError && err.code === ErrorCode.INVALID_REQUEST,
    );
  });
});
