/**
 * `share.coordinator.*` as Kafka 4.4's ShareCoordinatorConfig defines them: defaults, parsing into
 * `BrokerConfig.shareCoordinator` (and the member's replication factor), the bounds refused as
 * ConfigErrors naming the key, and the `__share_group_state` topic configs built from them.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildConfig, ConfigError } from '../../../src/broker/config.js';
import { shareGroupStateTopicSpec } from '../../../src/broker/internal-topics.js';

const settings = (o: Record<string, string>) => new Map(Object.entries(o));

describe('share.coordinator.* configs', () => {
  test('Kafka 4.4 defaults', () => {
    const { config } = buildConfig(settings({ 'zookeeper.connect': '127.0.0.1:2181' }));
    assert.deepEqual(config.shareCoordinator, {
      numPartitions: 50,
      segmentBytes: 104857600,
      minIsr: 2,
      snapshotUpdateRecordsPerSnapshot: 500,
      writeTimeoutMs: 5000,
      pruneIntervalMs: 300000,
      coldPartitionSnapshotIntervalMs: 300000,
    });
    assert.equal(config.cluster?.shareStateTopicReplicationFactor, 3);
  });

  test('set values are parsed, and are not unknown keys', () => {
    const { config, unknownKeys } = buildConfig(
      settings({
        'zookeeper.connect': '127.0.0.1:2181',
        'share.coordinator.state.topic.num.partitions': '7',
        'share.coordinator.state.topic.replication.factor': '2',
        'share.coordinator.state.topic.min.isr': '1',
        'share.coordinator.state.topic.segment.bytes': '2097152',
        'share.coordinator.snapshot.update.records.per.snapshot': '0',
        'share.coordinator.write.timeout.ms': '100',
        'share.coordinator.state.topic.prune.interval.ms': '1000',
        'share.coordinator.cold.partition.snapshot.interval.ms': '2000',
      }),
    );
    assert.deepEqual(unknownKeys, []);
    assert.deepEqual(config.shareCoordinator, {
      numPartitions: 7,
      segmentBytes: 2097152,
      minIsr: 1,
      snapshotUpdateRecordsPerSnapshot: 0,
      writeTimeoutMs: 100,
      pruneIntervalMs: 1000,
      coldPartitionSnapshotIntervalMs: 2000,
    });
    assert.equal(config.cluster?.shareStateTopicReplicationFactor, 2);
  });

  test('values outside Kafka’s bounds are ConfigErrors naming the key', () => {
    for (const [key, value] of [
      ['share.coordinator.state.topic.num.partitions', '0'],
      ['share.coordinator.state.topic.replication.factor', '0'],
      ['share.coordinator.state.topic.replication.factor', '32768'],
      ['share.coordinator.state.topic.min.isr', '0'],
      ['share.coordinator.state.topic.segment.bytes', '0'],
      ['share.coordinator.snapshot.update.records.per.snapshot', '-1'],
      ['share.coordinator.snapshot.update.records.per.snapshot', '501'],
      ['share.coordinator.write.timeout.ms', '0'],
      ['share.coordinator.state.topic.prune.interval.ms', '0'],
      ['share.coordinator.cold.partition.snapshot.interval.ms', '0'],
      ['share.coordinator.write.timeout.ms', 'soon'],
    ] as const) {
      assert.throws(
        () => buildConfig(settings({ [key]: value })),
        (e: unknown) => e instanceof ConfigError && e.key === key,
        `${key}=${value}`,
      );
    }
  });

  test('__share_group_state is created with Kafka’s topic configs: deleted, never by time, only by the coordinator', () => {
    const { config } = buildConfig(
      settings({
        'share.coordinator.state.topic.num.partitions': '3',
        'share.coordinator.state.topic.min.isr': '1',
        'share.coordinator.state.topic.segment.bytes': '2097152',
      }),
    );
    const spec = shareGroupStateTopicSpec(config.shareCoordinator);
    assert.equal(spec.numPartitions, 3);
    assert.deepEqual(Object.fromEntries(spec.configs), {
      'cleanup.policy': 'delete',
      'compression.type': 'producer',
      'segment.bytes': '2097152',
      'min.insync.replicas': '1',
      'retention.ms': '-1',
    });
  });
});
