/**
 * A real cluster for the integration tests: a ZooKeeper (Debian's package) and N broker
 * processes (`sluice start` with `zookeeper.connect`), each on a free port with its own log dir,
 * stopped by PID. `metadata` asks any live broker; `waitFor` polls until a condition on the
 * metadata holds, bounded in time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  ListOffsetsRequest,
  ListOffsetsResponse,
  MetadataRequest,
  MetadataResponse,
  type MetadataResponseData,
} from '@sluice/protocol/messages/index.js';
import { startBrokerProcess, type BrokerProcess } from './broker-process.js';
import { freePort } from './interop.js';
import { waitFor } from './wait-for.js';
import { wireCall } from './wire-call.js';
import { startZooKeeper, type ZooKeeperServer } from './zookeeper-server.js';

export interface TestCluster {
  readonly zookeeper: ZooKeeperServer;
  /** Indexed by broker id - 1; a stopped broker's slot keeps its last process. */
  readonly brokers: BrokerProcess[];
  readonly dir: string;
  /** Every live broker's address, comma-separated (for clients). */
  bootstrap(): string;
  /** One live broker's address (for a single connection). */
  anyBroker(): string;
  logDir(id: number): string;
  /** Starts (again) broker `id` with the cluster's settings, and `overrides` of them for this start. */
  startBroker(id: number, overrides?: Record<string, string>): Promise<BrokerProcess>;
  metadata(topics: string[] | null, via?: number): Promise<MetadataResponseData>;
  waitFor(what: string, ready: (m: MetadataResponseData) => boolean, timeoutMs?: number, via?: number): Promise<MetadataResponseData>;
  /**
   * Until every live broker's metadata names a leader for each partition of `topics` and each
   * leader answers ListOffsets for it. CreateTopics answers before the controller's LeaderAndIsr
   * and UpdateMetadata reach the brokers, and one broker's metadata says nothing of the others':
   * a client producing at once can meet a leader that does not serve the partition yet.
   */
  waitForLeaders(topics: readonly string[], timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const METADATA_VERSION = 12;

/** `brokerOverrides` adds settings for one broker (its own `log.dirs`, say) over `overrides`. */
export async function startCluster(
  size: number,
  overrides: Record<string, string> = {},
  brokerOverrides: (id: number) => Record<string, string> = () => ({}),
): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-cluster-test-'));
  const zookeeper = await startZooKeeper();
  const brokers: BrokerProcess[] = [];
  const live = new Set<number>();
  // A broker keeps its address across restarts, as a real one does: clients know it by it.
  const ports = new Map<number, number>();
  const settings = (id: number, port: number): Record<string, string> => ({
    'node.id': String(id),
    listeners: `PLAINTEXT://127.0.0.1:${port}`,
    'log.dirs': join(dir, `broker-${id}`),
    'zookeeper.connect': `${zookeeper.connect}/sluice`,
    'zookeeper.session.timeout.ms': '6000',
    'offsets.topic.replication.factor': String(Math.min(3, size)),
    'num.partition.workers': '1',
    ...overrides,
    ...brokerOverrides(id),
  });
  const cluster: TestCluster = {
    zookeeper,
    brokers,
    dir,
    bootstrap: () => [...live].map((id) => brokers[id - 1]!.bootstrap).join(','),
    anyBroker: () => brokers[[...live][0]! - 1]!.bootstrap,
    logDir: (id) => join(dir, `broker-${id}`),
    async startBroker(id, brokerOverrides = {}) {
      const port = ports.get(id) ?? (await freePort());
      ports.set(id, port);
      const b = await startBrokerProcess({ ...settings(id, port), ...brokerOverrides });
      brokers[id - 1] = b;
      live.add(id);
      b.child.once('exit', () => live.delete(id));
      return b;
    },
    async metadata(topics, via) {
      const id = via ?? [...live][0]!;
      return wireCall(brokers[id - 1]!.bootstrap, MetadataRequest, MetadataResponse, METADATA_VERSION, {
        topics: topics === null ? null : topics.map((name) => ({ name })),
        allowAutoTopicCreation: false,
      });
    },
    async waitFor(what, ready, timeoutMs = 30_000, via) {
      let last: MetadataResponseData | null = null;
      return waitFor(what, timeoutMs, async () => {
        try {
          last = await cluster.metadata(null, via);
          return ready(last) ? last : undefined;
        } catch {
          // A broker between start and registration may refuse: ask again.
          return undefined;
        }
      }).catch((err: unknown) => {
        throw new Error(
          `${(err as Error).message}; last metadata: ${JSON.stringify(last, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`,
        );
      });
    },
    async waitForLeaders(topics, timeoutMs = 30_000) {
      let waiting = 'no metadata yet';
      await waitFor(`the leaders of ${topics.join(', ')}`, timeoutMs, async () => {
        waiting = await leadersNotServing(cluster, topics, [...live]).catch((err: unknown) => `asking failed: ${(err as Error).message}`);
        return waiting === '' ? true : undefined;
      }).catch((err: unknown) => {
        throw new Error(`${(err as Error).message}: ${waiting}`);
      });
    },
    async stop() {
      await Promise.all([...live].map((id) => brokers[id - 1]!.stop()));
      await zookeeper.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    for (let id = 1; id <= size; id++) await cluster.startBroker(id);
    await cluster.waitFor(`${size} brokers and a controller`, (m) => m.brokers.length === size && m.controllerId > 0);
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

/** What still keeps `topics` from being served by their leaders as every broker sees them; '' when nothing does. */
async function leadersNotServing(cluster: TestCluster, topics: readonly string[], brokerIds: readonly number[]): Promise<string> {
  const leaders = new Map<string, { name: string; partitionIndex: number; leader: number }>();
  for (const id of brokerIds) {
    const m = await cluster.metadata([...topics], id);
    for (const t of m.topics) {
      if (t.errorCode !== ErrorCode.NONE || t.partitions.length === 0) return `broker ${id} answers ${t.name} with error ${t.errorCode}`;
      for (const p of t.partitions) {
        const key = `${t.name}-${p.partitionIndex}`;
        if (p.leaderId < 0) return `broker ${id} knows no leader of ${key}`;
        if ((leaders.get(key)?.leader ?? p.leaderId) !== p.leaderId) return `brokers disagree on the leader of ${key}`;
        leaders.set(key, { name: t.name!, partitionIndex: p.partitionIndex, leader: p.leaderId });
      }
    }
  }
  for (const [key, { name, partitionIndex, leader }] of leaders) {
    const answer = await wireCall(cluster.brokers[leader - 1]!.bootstrap, ListOffsetsRequest, ListOffsetsResponse, 7, {
      replicaId: -1,
      isolationLevel: 0,
      topics: [{ name, partitions: [{ partitionIndex, currentLeaderEpoch: -1, timestamp: -1n }] }],
    });
    const errorCode = answer.topics[0]?.partitions[0]?.errorCode;
    if (errorCode !== ErrorCode.NONE) return `leader ${leader} answers ListOffsets for ${key} with error ${errorCode}`;
  }
  return '';
}
