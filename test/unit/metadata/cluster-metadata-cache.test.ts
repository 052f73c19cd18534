import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterMetadataCache, LEADER_DURING_DELETE, type PartitionUpdate } from '../../../src/metadata/cluster-metadata-cache.js';

const brokers = [1, 2, 3].map((nodeId) => ({ nodeId, host: '127.0.0.1', port: 9000 + nodeId, rack: null, endpoints: [] }));
const ID = 'TTTTTTTTTTTTTTTTTTTTTg';

function update(topic: string, partition: number, leader: number, leaderEpoch = 0): PartitionUpdate {
  return {
    topic,
    topicId: ID,
    partition: { partition, leader, leaderEpoch, partitionEpoch: leaderEpoch, replicas: [1, 2, 3], isr: [1, 2, 3], offlineReplicas: [] },
  };
}

test('UpdateMetadata is incremental: named partitions replace what is held, the rest stay', () => {
  const cache = new ClusterMetadataCache('cid');
  cache.applyUpdate({ controllerId: 1, controllerEpoch: 1, brokers, partitions: [update('t', 0, 1), update('t', 1, 2)] });
  cache.applyUpdate({ controllerId: 2, controllerEpoch: 2, brokers: brokers.slice(1), partitions: [update('t', 1, 3, 1)] });
  const image = cache.image;
  assert.equal(image.controllerId, 2);
  assert.deepEqual(
    image.brokers().map((b) => b.nodeId),
    [2, 3],
  );
  assert.equal(image.partition('t', 0)!.leader, 1);
  assert.equal(image.partition('t', 1)!.leader, 3);
  assert.equal(image.partition('t', 1)!.leaderEpoch, 1);
  assert.equal(cache.latestControllerEpoch, 2);
});

test('a topic shows once its partitions are contiguous from 0, and leaves with the being-deleted leader', () => {
  const cache = new ClusterMetadataCache('cid');
  cache.applyUpdate({ controllerId: 1, controllerEpoch: 1, brokers, partitions: [update('t', 1, 1)] });
  assert.equal(cache.image.topic('t'), undefined, 'partition 0 not known yet');
  cache.applyUpdate({ controllerId: 1, controllerEpoch: 1, brokers, partitions: [update('t', 0, 2)] });
  assert.equal(cache.image.topic('t')!.partitionCount, 2);
  cache.applyUpdate({
    controllerId: 1,
    controllerEpoch: 1,
    brokers,
    partitions: [update('t', 0, LEADER_DURING_DELETE), update('t', 1, LEADER_DURING_DELETE)],
  });
  assert.equal(cache.image.topic('t'), undefined);
});

test('waitUntil resolves when a later change makes the condition hold, and false at its timeout', async () => {
  const cache = new ClusterMetadataCache('cid');
  const created = cache.waitUntil((i) => i.topic('t') !== undefined, 5_000);
  const never = cache.waitUntil((i) => i.topic('u') !== undefined, 50);
  cache.applyUpdate({ controllerId: 1, controllerEpoch: 1, brokers, partitions: [update('t', 0, 1)] });
  assert.equal(await created, true);
  assert.equal(await never, false);
  cache.setTopicConfigs('t', new Map([['retention.ms', '5']]));
  assert.equal(cache.image.topic('t')!.configs.get('retention.ms'), '5');
});
