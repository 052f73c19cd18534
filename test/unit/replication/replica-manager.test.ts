/**
 * The member's side of LeaderAndIsr and UpdateMetadata, over a real metadata cache and a
 * fetcher manager that records what it is told instead of fetching: a follow waits for the
 * leader's endpoint, and a newer state for the partition replaces a follow still waiting.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '../../../src/common/logger.js';
import { ClusterMetadataCache, type MetadataUpdate } from '../../../src/metadata/cluster-metadata-cache.js';
import { ConfigResolver } from '../../../src/metadata/config/config-resolver.js';
import type { LeaderAndIsrPartition } from '../../../src/metadata/replica-control.js';
import { ReplicaFetcherManager } from '../../../src/replication/replica-fetcher-manager.js';
import type { FollowedPartition, LeaderEndpoint } from '../../../src/replication/replica-fetcher.js';
import type { ReplicaLogs } from '../../../src/replication/replica-logs.js';
import { ReplicaManager } from '../../../src/replication/replica-manager.js';

const SELF = 1;

/** Only what LeaderAndIsr touches: opening partitions succeeds. */
const logs = {
  createPartitions: async () => undefined,
} as Partial<ReplicaLogs> as ReplicaLogs;

class RecordingFetchers extends ReplicaFetcherManager {
  readonly events: string[] = [];

  constructor() {
    super(
      logs,
      {
        brokerId: SELF,
        brokerEpoch: () => 0n,
        maxWaitMs: 0,
        minBytes: 1,
        maxBytes: 1,
        partitionMaxBytes: 1,
        backoffMs: 0,
        requestTimeoutMs: 0,
        tls: null,
      },
      1,
      new Logger('test'),
    );
  }

  override async follow(p: FollowedPartition, leader: LeaderEndpoint): Promise<void> {
    this.events.push(`follow ${p.topic}-${p.partition} from ${leader.id} at epoch ${p.leaderEpoch}`);
  }

  override unfollow(topic: string, partition: number): void {
    this.events.push(`unfollow ${topic}-${partition}`);
  }
}

function setUp(): { manager: ReplicaManager; fetchers: RecordingFetchers; cache: ClusterMetadataCache } {
  const cache = new ClusterMetadataCache('cluster');
  const fetchers = new RecordingFetchers();
  const manager = new ReplicaManager({
    nodeId: SELF,
    brokerEpoch: () => 10n,
    cache,
    configs: new ConfigResolver(new Map(), cache),
    logs,
    fetchers,
    topicOverrides: async () => new Map(),
    onLeadershipChange: () => undefined,
    log: new Logger('test'),
  });
  return { manager, fetchers, cache };
}

const stamp = { controllerId: 2, controllerEpoch: 1, brokerEpoch: 10n };
const state = (leader: number, leaderEpoch: number): LeaderAndIsrPartition => ({
  topic: 't',
  topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
  partition: 0,
  leader,
  leaderEpoch,
  isr: [1, 2, 3],
  partitionEpoch: leaderEpoch,
  replicas: [1, 2, 3],
  isNew: false,
});
const brokers = (ids: number[]): MetadataUpdate => ({
  controllerId: 2,
  controllerEpoch: 1,
  brokers: ids.map((nodeId) => ({ nodeId, host: '127.0.0.1', port: 9000 + nodeId, rack: null, endpoints: [] })),
  partitions: [],
});

test('a follow waits for the leader’s endpoint, which UpdateMetadata brings', async () => {
  const { manager, fetchers } = setUp();
  await manager.leaderAndIsr(stamp, [state(2, 1)]);
  assert.deepEqual(fetchers.events, []);
  await manager.updateMetadata(stamp, brokers([1, 2]));
  assert.deepEqual(fetchers.events, ['follow t-0 from 2 at epoch 1']);
});

test('a newer state replaces a follow still waiting: this broker leading, or another leader already known', async () => {
  const { manager, fetchers } = setUp();
  await manager.leaderAndIsr(stamp, [state(2, 1)]);
  await manager.leaderAndIsr(stamp, [state(SELF, 2)]);
  await manager.updateMetadata(stamp, brokers([1, 2]));
  assert.deepEqual(fetchers.events, ['unfollow t-0'], 'no follow of the old leader once this broker leads');

  const other = setUp();
  await other.manager.updateMetadata(stamp, brokers([1, 3]));
  await other.manager.leaderAndIsr(stamp, [state(2, 1)]);
  await other.manager.leaderAndIsr(stamp, [state(3, 2)]);
  await other.manager.updateMetadata(stamp, brokers([1, 2, 3]));
  assert.deepEqual(other.fetchers.events, ['follow t-0 from 3 at epoch 2'], 'the newer leader only');
});
