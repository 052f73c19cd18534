// A broker with two log dirs, one a small tmpfs that fills up: the partitions in the full dir go
// offline on that broker alone (their leaderships move to other in-sync replicas, it leaves
// their ISRs, metadata lists it as their offline replica), acks=all produce goes on without
// losing an acknowledged record, and the partitions in its healthy dir keep their leader. Once
// the dir has room again, a restart brings the broker back into every ISR.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { CreateTopicsRequest, CreateTopicsResponse, type MetadataResponseData } from '@sluice/protocol/messages/index.js';
import type { BrokerProcess } from '../../helpers/broker-process.js';
import { startCluster, type TestCluster } from '../../helpers/cluster.js';
import { kcat, kcatRead } from '../../helpers/interop.js';
import { kcatSkip, zooKeeperSkip } from '../../helpers/requirements.js';
import { fillUntilFull, mountTmpfs, unmountTmpfs } from '../../helpers/tmpfs.js';
import { waitFor, when } from '../../helpers/wait-for.js';
import { wireCall } from '../../helpers/wire-call.js';

const TOPIC = 'disks';
const PARTITIONS = 4;
const FAILING = 3;
/** Bigger than the slack in the last page of a segment file, so the first produce after the fill needs new blocks. */
const PADDING = 'x'.repeat(1000);
const root = mkdtempSync(join(tmpdir(), 'sluice-log-dir-failure-'));
const small = join(root, 'small');
const healthy = join(root, 'healthy');
const filler = join(small, 'filler');

/** The last lines a broker wrote, for a failure's message. */
function logTail(broker: BrokerProcess): string {
  return broker.stderr().split('\n').slice(-40).join('\n');
}

function partitionsOf(m: MetadataResponseData): MetadataResponseData['topics'][number]['partitions'] {
  return m.topics.find((t) => t.name === TOPIC)?.partitions ?? [];
}

const mountProblem = zooKeeperSkip() ?? kcatSkip() ?? mountTmpfs(small, '16m');

describe('a failed log dir in a cluster', { skip: mountProblem, timeout: 240_000 }, () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startCluster(3, { 'replica.lag.time.max.ms': '2000' }, (id): Record<string, string> =>
      id === FAILING ? { 'log.dirs': `${healthy},${small}` } : {},
    );
  });
  after(async () => {
    await cluster?.stop();
    unmountTmpfs(small);
    rmSync(root, { recursive: true, force: true });
  });

  test('its partitions move to other brokers, nothing acknowledged is lost, its other dir serves on; a restart heals it', async () => {
    // Broker 3 leads every partition; it places them alternately in its two dirs. Small indexes:
    // they are preallocated, and the default 10 MiB ones would fill the tmpfs by themselves.
    const created = await wireCall(cluster.anyBroker(), CreateTopicsRequest, CreateTopicsResponse, 7, {
      topics: [
        {
          name: TOPIC,
          numPartitions: -1,
          replicationFactor: -1,
          assignments: Array.from({ length: PARTITIONS }, (_, i) => ({
            partitionIndex: i,
            brokerIds: [FAILING, 1 + (i % 2), 2 - (i % 2)],
          })),
          configs: [{ name: 'segment.index.bytes', value: String(64 * 1024) }],
        },
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);
    const replicated = (m: MetadataResponseData): boolean =>
      partitionsOf(m).length === PARTITIONS && partitionsOf(m).every((p) => p.isrNodes.length === 3 && p.offlineReplicas.length === 0);
    await cluster.waitFor('the topic replicated', replicated);
    const hosted = (dir: string): Set<number> =>
      new Set(
        readdirSync(dir)
          .filter((d) => d.startsWith(`${TOPIC}-`))
          .map((d) => Number(d.slice(TOPIC.length + 1))),
      );
    // The ISR starts full: broker 3 may still be creating its replicas.
    await waitFor("broker 3's replicas of every partition on disk", 30_000, () =>
      when(hosted(small).size + hosted(healthy).size >= PARTITIONS),
    );
    const inSmall = hosted(small);
    const inHealthy = hosted(healthy);
    assert.ok(inSmall.size > 0 && inHealthy.size > 0, `partitions in both dirs (small: ${[...inSmall]}, healthy: ${[...inHealthy]})`);

    const lines = (prefix: string, keep: (i: number) => boolean = () => true): string =>
      Array.from({ length: 200 }, (_, i) => i)
        .filter(keep)
        .map((i) => `${prefix}-${i}-${PADDING}`)
        .join('\n') + '\n';
    const produce = async (prefix: string): Promise<void> => {
      await kcat(['-b', cluster.bootstrap(), '-P', '-t', TOPIC, '-X', 'acks=all'], lines(prefix));
    };
    await produce('before');
    fillUntilFull(filler);
    // The next appends in the full dir fail there; kcat retries on the new leaders. Each partition
    // gets its share by number: keyless records stick to one partition per linger window
    // (librdkafka's sticky partitioner), which may be one in the healthy dir.
    for (let partition = 0; partition < PARTITIONS; partition++) {
      await kcat(
        ['-b', cluster.bootstrap(), '-P', '-t', TOPIC, '-p', String(partition), '-X', 'acks=all'],
        lines('after', (i) => i % PARTITIONS === partition),
      );
    }

    const moved = await cluster
      .waitFor(
        'the full dir’s partitions moved away from broker 3',
        (m) =>
          partitionsOf(m).every((p) =>
            inSmall.has(p.partitionIndex)
              ? p.leaderId !== FAILING && !p.isrNodes.includes(FAILING) && p.offlineReplicas.includes(FAILING)
              : p.leaderId === FAILING && p.isrNodes.length === 3 && p.offlineReplicas.length === 0,
          ),
        30_000,
        1,
      )
      .catch((err: unknown) => {
        throw new Error(`${(err as Error).message}\nbroker 3's log ends:\n${logTail(cluster.brokers[FAILING - 1]!)}`);
      });
    assert.equal(moved.brokers.length, 3, 'broker 3 stays in the cluster');
    await produce('moved');

    const values = new Set((await kcatRead(cluster.bootstrap(), TOPIC)).map((r) => Buffer.from(r.value!, 'hex').toString()));
    for (const prefix of ['before', 'after', 'moved']) {
      for (let i = 0; i < 200; i++) assert.ok(values.has(`${prefix}-${i}-${PADDING}`), `acknowledged record ${prefix}-${i} is there`);
    }

    // Room again, and a restart: broker 3 recovers the dir, follows the new leaders and rejoins.
    await cluster.brokers[FAILING - 1]!.stop();
    unlinkSync(filler);
    await cluster.startBroker(FAILING);
    await cluster.waitFor('broker 3 back in every ISR', (m) => m.brokers.length === 3 && replicated(m), 60_000, 1);
  });

  test('with every log dir failed the broker exits with status 1, as Kafka halts, and its leaderships move', async () => {
    // Broker 3 again, now with the tmpfs as its only log dir.
    const previous = cluster.brokers[FAILING - 1]!;
    assert.equal(await previous.stop(), 0, `broker 3 stops cleanly; its log ends:\n${logTail(previous)}`);
    const doomed = await cluster.startBroker(FAILING, { 'log.dirs': small });
    await cluster.waitFor('broker 3 registered again', (m) => m.brokers.some((b) => b.nodeId === FAILING));
    const created = await wireCall(cluster.anyBroker(), CreateTopicsRequest, CreateTopicsResponse, 7, {
      topics: [
        {
          name: 'doomed',
          numPartitions: -1,
          replicationFactor: -1,
          assignments: [{ partitionIndex: 0, brokerIds: [FAILING, 1, 2] }],
          configs: [{ name: 'segment.index.bytes', value: String(64 * 1024) }],
        },
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);
    const partition = (m: MetadataResponseData) => m.topics.find((t) => t.name === 'doomed')?.partitions[0];
    await cluster.waitFor(
      'doomed led by broker 3 with a full ISR',
      (m) => partition(m)?.leaderId === FAILING && partition(m)?.isrNodes.length === 3,
    );
    const exited = new Promise<number | null>((resolve) => doomed.child.once('exit', (code) => resolve(code)));
    const produce = (prefix: string): Promise<Buffer> =>
      kcat(
        ['-b', cluster.bootstrap(), '-P', '-t', 'doomed', '-X', 'acks=all'],
        Array.from({ length: 200 }, (_, i) => `${prefix}-${i}-${PADDING}`).join('\n') + '\n',
      );
    await produce('before');
    fillUntilFull(filler);
    await produce('after');
    assert.equal(await exited, 1, 'the broker exits with status 1');
    assert.match(doomed.stderr(), /all log dirs in .* have failed/);
    await cluster.waitFor('doomed led by another broker', (m) => [1, 2].includes(partition(m)?.leaderId ?? -1), 30_000, 1);
    const values = new Set((await kcatRead(cluster.bootstrap(), 'doomed')).map((r) => Buffer.from(r.value!, 'hex').toString()));
    for (const prefix of ['before', 'after']) {
      for (let i = 0; i < 200; i++) assert.ok(values.has(`${prefix}-${i}-${PADDING}`), `acknowledged record ${prefix}-${i} is there`);
    }
    // The tmpfs holds broker 3's replicas of both topics now: it stays down (the other dir has
    // older copies of the first topic, and a partition in two log dirs is refused at start-up).
    unlinkSync(filler);
  });
});
