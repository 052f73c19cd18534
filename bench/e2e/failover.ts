/**
 * `npm run bench:failover`: how long partitions are unavailable when a broker dies. A 3-broker
 * Sluice cluster on a ZooKeeper, one RF 3 topic (`min.insync.replicas=2`), one acks=all writer
 * per partition producing continuously to its leader; then kill -9 of a broker (not the
 * controller) that leads some partitions. For each partition it led: the time from the kill to
 * Metadata (asked of a survivor) naming a new leader, and to the first acks=all produce the new
 * leader acknowledges. The controller's log says when it saw the broker go (the ZooKeeper session
 * expiry), which splits the time into detection and election + hand-over. Target: within
 * `zookeeper.session.timeout.ms` + 1 s. Repeated per session timeout and round; writes
 * <out>/failover.{json,md}.
 *
 *   npm run bench:failover -- [--rounds N] [--partitions N] [--session-timeouts 18000,6000] [--out DIR]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { KafkaAdminClient, KafkaCluster, KafkaConnection, parseBootstrapServers } from '@sluice/client/index.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { MetadataRequest, MetadataResponse, ProduceRequest, ProduceResponse } from '@sluice/protocol/messages/index.js';
import { encodeRecordBatch } from '@sluice/protocol/records/index.js';
import { startZooKeeper, type ZooKeeperServer } from '../../src/zk/zookeeper-server.js';
import { repoRoot } from '../../tools/kafka/kafka-release.js';
import { spawnSluice, type SluiceChild } from '../../tools/sluice/sluice-process.js';
import { freePort } from './brokers.js';
import { table } from './md-table.js';

interface Options {
  rounds: number;
  partitions: number;
  sessionTimeouts: number[];
  out: string;
}

interface PartitionFailover {
  readonly partition: number;
  /** Kill → Metadata from a survivor names a live leader. */
  readonly metadataMs: number;
  /** Kill → first acks=all produce acknowledged by the new leader. */
  readonly produceMs: number;
}

interface Round {
  readonly sessionTimeoutMs: number;
  readonly round: number;
  readonly killed: number;
  /** Kill → the controller logs the broker change (its ZooKeeper watch fired after the session expired). */
  readonly detectedMs: number | null;
  readonly partitions: readonly PartitionFailover[];
}

const SIZE = 3;
const TOPIC = 'failover';
const POLL_MS = 20;
const RETRY_MS = 20;
const REQUEST_TIMEOUT_MS = 5000;

function parse(argv: readonly string[]): Options {
  const o: Options = {
    rounds: 3,
    partitions: 6,
    sessionTimeouts: [18000, 6000],
    out: join(repoRoot(), 'bench', 'results', `${new Date().toISOString().slice(0, 10)}-failover`),
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (v === undefined) throw new Error(`${k} needs a value`);
    if (k === '--rounds') o.rounds = Number(v);
    else if (k === '--partitions') o.partitions = Number(v);
    else if (k === '--session-timeouts') o.sessionTimeouts = v.split(',').map(Number);
    else if (k === '--out') o.out = v;
    else throw new Error(`unknown option ${k}`);
  }
  return o;
}

class SluiceCluster {
  readonly brokers = new Map<number, SluiceChild>();
  private readonly ports = new Map<number, number>();

  private constructor(
    private readonly dir: string,
    private readonly zookeeper: ZooKeeperServer,
    private readonly sessionTimeoutMs: number,
  ) {}

  static async start(dir: string, sessionTimeoutMs: number): Promise<SluiceCluster> {
    const zookeeper = await startZooKeeper({ dataDir: join(dir, 'zookeeper') });
    const cluster = new SluiceCluster(dir, zookeeper, sessionTimeoutMs);
    for (let id = 1; id <= SIZE; id++) await cluster.startBroker(id);
    return cluster;
  }

  async startBroker(id: number): Promise<void> {
    const port = this.ports.get(id) ?? (await freePort());
    this.ports.set(id, port);
    const child = await spawnSluice({
      overrides: [
        `node.id=${id}`,
        `listeners=PLAINTEXT://127.0.0.1:${port}`,
        `log.dirs=${join(this.dir, `sluice-${id}`)}`,
        `zookeeper.connect=${this.zookeeper.connect}/bench`,
        `zookeeper.session.timeout.ms=${this.sessionTimeoutMs}`,
        'num.partition.workers=1',
        'offsets.topic.replication.factor=3',
      ],
      env: { ...process.env, SLUICE_LOG_LEVEL: 'info' },
      startTimeoutMs: 30_000,
    });
    this.brokers.set(id, child);
  }

  address(id: number): { host: string; port: number } {
    return { host: '127.0.0.1', port: this.ports.get(id)! };
  }

  bootstrap(except: number | null = null): string {
    return [...this.brokers.keys()]
      .filter((id) => id !== except)
      .map((id) => `127.0.0.1:${this.ports.get(id)}`)
      .join(',');
  }

  async kill(id: number): Promise<void> {
    const child = this.brokers.get(id)!.child;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
    this.brokers.delete(id);
  }

  async stop(): Promise<void> {
    await Promise.all(
      [...this.brokers.values()].map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
    await this.zookeeper.stop();
  }
}

type Leaders = Map<number, number>;

async function metadata(
  connection: KafkaConnection,
): Promise<{ controller: number; topicId: string; leaders: Leaders; isr: Map<number, number[]>; brokers: number }> {
  const m = await connection.request(MetadataRequest, MetadataResponse, () => ({
    topics: [{ name: TOPIC }],
    allowAutoTopicCreation: false,
  }));
  const t = m.topics.find((x) => x.name === TOPIC);
  return {
    controller: m.controllerId,
    topicId: t?.topicId ?? '',
    leaders: new Map((t?.partitions ?? []).map((p) => [p.partitionIndex, p.leaderId])),
    isr: new Map((t?.partitions ?? []).map((p) => [p.partitionIndex, p.isrNodes])),
    brokers: m.brokers.length,
  };
}

async function waitUntil(what: string, ready: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

/** One acks=all writer per partition, each on its own connections, following its partition's leader. */
class Writers {
  private stopped = false;
  private readonly loops: Promise<void>[] = [];
  /** Per partition: each acknowledged produce, as (time, leader). */
  readonly acks = new Map<number, { at: number; leader: number }[]>();

  constructor(
    private readonly cluster: SluiceCluster,
    partitions: number,
  ) {
    for (let p = 0; p < partitions; p++) {
      this.acks.set(p, []);
      this.loops.push(this.write(p));
    }
  }

  private async write(partition: number): Promise<void> {
    const connections = new Map<number, KafkaConnection>();
    const connect = async (id: number): Promise<KafkaConnection> => {
      let c = connections.get(id);
      if (c === undefined) {
        c = await KafkaConnection.connect({
          ...this.cluster.address(id),
          clientId: `writer-${partition}`,
          requestTimeoutMs: REQUEST_TIMEOUT_MS,
          connectTimeoutMs: 1000,
        });
        connections.set(id, c);
      }
      return c;
    };
    let leader = -1;
    // Produce v13 names topics by id.
    let topicId = '';
    let n = 0;
    while (!this.stopped) {
      try {
        if (leader < 0) {
          for (const id of this.cluster.brokers.keys()) {
            try {
              const m = await metadata(await connect(id));
              leader = m.leaders.get(partition) ?? -1;
              topicId = m.topicId;
              break;
            } catch {
              connections.get(id)?.close();
              connections.delete(id);
            }
          }
          if (leader < 0) {
            await sleep(RETRY_MS);
            continue;
          }
        }
        const c = await connect(leader);
        const r = await c.request(ProduceRequest, ProduceResponse, () => ({
          acks: -1,
          timeoutMs: REQUEST_TIMEOUT_MS,
          topicData: [
            {
              name: TOPIC,
              topicId,
              partitionData: [
                {
                  index: partition,
                  records: encodeRecordBatch({
                    records: [{ key: null, value: Buffer.from(`record-${n++}`), timestamp: BigInt(Date.now()) }],
                  }),
                },
              ],
            },
          ],
        }));
        const code = r.responses[0]?.partitionResponses[0]?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
        if (code === ErrorCode.NONE) this.acks.get(partition)!.push({ at: Date.now(), leader });
        else {
          leader = -1;
          await sleep(RETRY_MS);
        }
      } catch {
        connections.get(leader)?.close();
        connections.delete(leader);
        leader = -1;
        await sleep(RETRY_MS);
      }
    }
    for (const c of connections.values()) c.close();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }
}

/** The time of the controller's first "brokers changed" line after `since` that names `broker` as removed. */
function detectionTime(stderr: string, broker: number, since: number): number | null {
  for (const line of stderr.split('\n')) {
    const m = /^(\S+) INFO \[controller node=\d+\] brokers changed (\{.*\})$/.exec(line);
    if (m === null) continue;
    const at = Date.parse(m[1]!);
    const removed = (JSON.parse(m[2]!) as { removed: number[] }).removed;
    if (at >= since && removed.includes(broker)) return at;
  }
  return null;
}

async function runRound(cluster: SluiceCluster, partitions: number, sessionTimeoutMs: number, round: number): Promise<Round> {
  const probe = await KafkaConnection.connect({ ...cluster.address(1), clientId: 'probe', requestTimeoutMs: REQUEST_TIMEOUT_MS });
  let before: Awaited<ReturnType<typeof metadata>>;
  try {
    await waitUntil('a fully replicated topic', async () => {
      const m = await metadata(probe);
      return m.brokers === SIZE && m.isr.size === partitions && [...m.isr.values()].every((isr) => isr.length === SIZE);
    });
    before = await metadata(probe);
  } finally {
    probe.close();
  }
  // The broker (not the controller) leading the most partitions.
  const counts = new Map<number, number>();
  for (const l of before.leaders.values()) if (l !== before.controller) counts.set(l, (counts.get(l) ?? 0) + 1);
  const victim = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (victim === undefined) throw new Error('every partition is led by the controller');
  const led = [...before.leaders].filter(([, l]) => l === victim).map(([p]) => p);
  const survivor = [...cluster.brokers.keys()].find((id) => id !== victim && id !== before.controller) ?? before.controller;
  const controllerLog = cluster.brokers.get(before.controller)!;

  const writers = new Writers(cluster, partitions);
  await waitUntil('every writer acknowledged', async () => [...writers.acks.values()].every((a) => a.length > 0));
  const watcher = await KafkaConnection.connect({
    ...cluster.address(survivor),
    clientId: 'watcher',
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
  });
  const t0 = Date.now();
  await cluster.kill(victim);
  const metadataAt = new Map<number, number>();
  const deadline = t0 + sessionTimeoutMs * 4 + 30_000;
  try {
    while (metadataAt.size < led.length || !led.every((p) => writers.acks.get(p)!.some((a) => a.at >= t0 && a.leader !== victim))) {
      if (Date.now() > deadline) throw new Error(`partitions ${led.join(',')} did not fail over`);
      const m = await metadata(watcher);
      const now = Date.now();
      for (const p of led) {
        const l: number = m.leaders.get(p) ?? -1;
        if (!metadataAt.has(p) && l >= 0 && l !== victim) metadataAt.set(p, now);
      }
      await sleep(POLL_MS);
    }
  } finally {
    watcher.close();
    await writers.stop();
  }
  const result: Round = {
    sessionTimeoutMs,
    round,
    killed: victim,
    detectedMs: ((at) => (at === null ? null : at - t0))(detectionTime(controllerLog.stderr(), victim, t0)),
    partitions: led.map((p) => ({
      partition: p,
      metadataMs: metadataAt.get(p)! - t0,
      produceMs: writers.acks.get(p)!.find((a) => a.at >= t0 && a.leader !== victim)!.at - t0,
    })),
  };
  await cluster.startBroker(victim);
  return result;
}

async function createTopic(cluster: SluiceCluster, partitions: number): Promise<void> {
  const client = new KafkaCluster({ bootstrap: parseBootstrapServers(cluster.bootstrap()) });
  try {
    await waitUntil('three brokers', async () => (await client.metadata([])).brokers.size === SIZE);
    await new KafkaAdminClient(client).createTopic({
      name: TOPIC,
      partitions,
      replicationFactor: SIZE,
      configs: new Map([['min.insync.replicas', '2']]),
    });
  } finally {
    client.close();
  }
}

const NOTE =
  'Times from the kill. "Detected" is when the controller logged the broker change: ZooKeeper expires a session a timeout after the last heartbeat it got, and an idle client sends one every third of the timeout, so detection comes up to a third early. "After detection" is the election, the LeaderAndIsr and UpdateMetadata round, and the writer finding the new leader (it retries every 20 ms).';

const stats = (xs: readonly number[]): { min: number; median: number; max: number } => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0]!, median: s[Math.floor(s.length / 2)]!, max: s[s.length - 1]! };
};

function report(rounds: readonly Round[]): string {
  const perRound = table(
    [
      'session timeout (ms)',
      'round',
      'killed',
      'detected (ms)',
      'partitions',
      'Metadata new leader (ms, max)',
      'first acks=all at new leader (ms, max)',
      'within target',
    ],
    rounds.map((r) => {
      const produce = Math.max(...r.partitions.map((p) => p.produceMs));
      return [
        String(r.sessionTimeoutMs),
        String(r.round),
        String(r.killed),
        String(r.detectedMs ?? '?'),
        r.partitions.map((p) => p.partition).join(','),
        String(Math.max(...r.partitions.map((p) => p.metadataMs))),
        String(produce),
        produce <= r.sessionTimeoutMs + 1000 ? 'yes' : 'NO',
      ];
    }),
  );
  const bySession = [...new Set(rounds.map((r) => r.sessionTimeoutMs))].map((timeout) => {
    const rs = rounds.filter((r) => r.sessionTimeoutMs === timeout);
    const produce = stats(rs.flatMap((r) => r.partitions.map((p) => p.produceMs)));
    const meta = stats(rs.flatMap((r) => r.partitions.map((p) => p.metadataMs)));
    const after = stats(rs.flatMap((r) => r.partitions.map((p) => p.produceMs - (r.detectedMs ?? 0))));
    return [
      String(timeout),
      String(rs.length),
      `${meta.min} / ${meta.median} / ${meta.max}`,
      `${produce.min} / ${produce.median} / ${produce.max}`,
      `${after.min} / ${after.median} / ${after.max}`,
      `${timeout + 1000}`,
    ];
  });
  const summary = table(
    [
      'session timeout (ms)',
      'rounds',
      'Metadata new leader, min / median / max (ms)',
      'first acks=all, min / median / max (ms)',
      'after detection, min / median / max (ms)',
      'target (ms)',
    ],
    bySession,
  );
  return `# Broker failover (kill -9), 3 brokers, RF 3, min.insync.replicas=2\n\n${summary}\n\n${NOTE}\n\n## Rounds\n\n${perRound}\n`;
}

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  const rounds: Round[] = [];
  for (const timeout of o.sessionTimeouts) {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-failover-'));
    const cluster = await SluiceCluster.start(dir, timeout);
    try {
      await createTopic(cluster, o.partitions);
      for (let round = 1; round <= o.rounds; round++) {
        const r = await runRound(cluster, o.partitions, timeout, round);
        rounds.push(r);
        console.log(JSON.stringify(r));
      }
    } finally {
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  mkdirSync(o.out, { recursive: true });
  writeFileSync(join(o.out, 'failover.json'), JSON.stringify({ date: new Date().toISOString(), options: o, rounds }, null, 2) + '\n');
  writeFileSync(join(o.out, 'failover.md'), report(rounds));
  console.log(report(rounds));
}

await main();
