/**
 * The two brokers under test, started with the same group settings: no initial rebalance delay
 * (so a join is timed, not Kafka's default 3 s wait) and one `__consumer_offsets` partition (what
 * tools/kafka gives Kafka; Sluice's default is Kafka's 50). Sluice is the `sluice start` process
 * a user runs (test/helpers' starter, which takes overrides); Kafka a KRaft node from tools/kafka
 * with the 1 GiB heap bench/e2e uses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBrokerProcess } from '../../test/helpers/broker-process.js';
import { startKafka } from '../../tools/kafka/kafka-process.js';
import { freePort } from '../e2e/brokers.js';
import { ErrorCode, errorName } from '@sluice/protocol/errors.js';
import {
  CreateTopicsRequest,
  CreateTopicsResponse,
  FindCoordinatorRequest,
  FindCoordinatorResponse,
  HeartbeatRequest,
  HeartbeatResponse,
} from '@sluice/protocol/messages/index.js';
import { PINNED_VERSIONS, type WireConnection } from './wire.js';

export type BrokerName = 'sluice' | 'kafka';

export const GROUP_SETTINGS: Readonly<Record<string, string>> = {
  'group.initial.rebalance.delay.ms': '0',
  'offsets.topic.num.partitions': '1',
  'offsets.topic.replication.factor': '1',
};

export interface RunningBroker {
  readonly name: BrokerName;
  readonly host: string;
  readonly port: number;
  readonly pid: number;
  stop(): Promise<void>;
}

export async function startBroker(name: BrokerName): Promise<RunningBroker> {
  const dir = mkdtempSync(join(tmpdir(), `bench-groups-${name}-`));
  if (name === 'sluice') {
    const b = await startBrokerProcess({ ...GROUP_SETTINGS, 'log.dirs': dir });
    return {
      name,
      host: b.host,
      port: b.port,
      pid: b.child.pid!,
      async stop() {
        await b.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const [port, controllerPort] = [await freePort(), await freePort()];
  const k = await startKafka({ port, controllerPort, logDir: dir, heap: '1g', config: { ...GROUP_SETTINGS } });
  return {
    name,
    host: '127.0.0.1',
    port,
    pid: k.pid,
    async stop() {
      await k.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const COORDINATOR_NOT_READY: ReadonlySet<number> = new Set([
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.NOT_COORDINATOR,
]);

/**
 * Waits until the broker coordinates `groupId`: right after start Kafka answers
 * COORDINATOR_NOT_AVAILABLE while it creates `__consumer_offsets`, then NOT_COORDINATOR while
 * it loads the partition, and a JoinGroup sent then would time that, not the rebalance. A
 * Heartbeat of a member that does not exist is answered from the loaded coordinator only.
 */
export async function awaitCoordinator(conn: WireConnection, groupId: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = await conn.request(FindCoordinatorRequest, FindCoordinatorResponse, PINNED_VERSIONS.FindCoordinator, {
      keyType: 0,
      coordinatorKeys: [groupId],
    });
    let code = found.coordinators[0]?.errorCode ?? ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (code === ErrorCode.NONE) {
      const probe = await conn.request(HeartbeatRequest, HeartbeatResponse, PINNED_VERSIONS.Heartbeat, {
        groupId,
        generationId: -1,
        memberId: 'bench-probe',
        groupInstanceId: null,
      });
      code = probe.errorCode;
      if (!COORDINATOR_NOT_READY.has(code)) return;
    }
    if (Date.now() > deadline) throw new Error(`no coordinator for ${groupId}: ${errorName(code)}`);
    await sleep(200);
  }
}

/** OffsetCommit needs the topic to exist on Kafka (UNKNOWN_TOPIC_OR_PARTITION otherwise). */
export async function createTopic(conn: WireConnection, name: string, partitions: number): Promise<void> {
  const res = await conn.request(CreateTopicsRequest, CreateTopicsResponse, PINNED_VERSIONS.CreateTopics, {
    topics: [{ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 30_000,
  });
  const t = res.topics[0];
  if (t === undefined || t.errorCode !== 0) throw new Error(`CreateTopics ${name}: error ${t?.errorCode} ${t?.errorMessage ?? ''}`);
}
