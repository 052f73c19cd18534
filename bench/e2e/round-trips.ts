/**
 * `npm run bench:round-trips`: how many main → worker commands (ring round trips and posts) a
 * replicated partition's leader spends per acks=all produce and per ISR change, read from its
 * `sluice_worker_commands_total{op,kind}` before and after.
 *
 * A 3-broker Sluice cluster on a real ZooKeeper (the integration tests' `startCluster`, each
 * broker with `metrics.listener`), one topic of one partition, replication factor 3,
 * `min.insync.replicas=2`. KafkaJS sends N produce requests of one record each, acks=all, one at
 * a time (each waits for its answer) to the leader. Then a follower is stopped (SIGSTOP) until it
 * leaves the ISR (`replica.lag.time.max.ms` set low) and continued (SIGCONT) until it is back.
 * Every window also counts what runs on timers (the ISR check every lag/2, checkpoints, the
 * other follower's fetches): an idle window of the same kind is reported beside them. The
 * scrape's own `metrics` command is left out of every count.
 *
 *   npm run bench:round-trips -- [--produces N] [--label before|after] [--out DIR]
 *
 * Writes <out>/round-trips-<label>.{json,md}.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import { repoRoot } from '../../tools/kafka/kafka-release.js';
import { metricsUrl } from '../../test/helpers/broker-process.js';
import { startCluster, type TestCluster } from '../../test/helpers/cluster.js';
import { table } from './md-table.js';

interface Options {
  produces: number;
  label: string;
  out: string;
}

/** Commands by "op/kind". */
type Counts = Map<string, number>;

const TOPIC = 'round-trips';
const LAG_MS = 2000;
const WARM_UP = 20;
/** The scrape's own command: one per scrape, not the workload's. */
const SCRAPE_OP = 'metrics';

function parse(argv: readonly string[]): Options {
  const o: Options = {
    produces: 500,
    label: 'run',
    out: join(repoRoot(), 'bench', 'results', `${new Date().toISOString().slice(0, 10)}-round-trips`),
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (v === undefined) throw new Error(`${k} needs a value`);
    if (k === '--produces') o.produces = Number(v);
    else if (k === '--label') o.label = v;
    else if (k === '--out') o.out = v;
    else throw new Error(`unknown option ${k}`);
  }
  return o;
}

const log = (m: string): void => void process.stderr.write(`[bench:round-trips] ${m}\n`);

async function scrape(url: string): Promise<Counts> {
  const text = await (await fetch(url)).text();
  const counts: Counts = new Map();
  for (const m of text.matchAll(/^sluice_worker_commands_total\{([^}]*)\} (\S+)$/gm)) {
    const labels = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1]!, l[2]!]));
    if (labels['op'] === SCRAPE_OP) continue;
    counts.set(`${labels['op']}/${labels['kind']}`, Number(m[2]));
  }
  return counts;
}

function diff(after: Counts, before: Counts): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of [...after].sort(([a], [b]) => a.localeCompare(b))) {
    const d = v - (before.get(k) ?? 0);
    if (d > 0) out[k] = d;
  }
  return out;
}

const sum = (counts: Record<string, number>, kind?: string): number =>
  Object.entries(counts).reduce((s, [k, v]) => (kind === undefined || k.endsWith(`/${kind}`) ? s + v : s), 0);

interface Window {
  readonly name: string;
  readonly seconds: number;
  readonly commands: Record<string, number>;
}

async function measureWindow(name: string, url: string, run: () => Promise<void>): Promise<Window> {
  const before = await scrape(url);
  const started = performance.now();
  await run();
  const seconds = (performance.now() - started) / 1000;
  return { name, seconds, commands: diff(await scrape(url), before) };
}

function partitionOf(cluster: TestCluster, via?: number) {
  return cluster.metadata([TOPIC], via).then((m) => ({
    controllerId: m.controllerId,
    p: m.topics.find((t) => t.name === TOPIC)?.partitions.find((x) => x.partitionIndex === 0),
  }));
}

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  mkdirSync(o.out, { recursive: true });
  log(
    `3 brokers, RF 3, min.insync.replicas=2, replica.lag.time.max.ms=${LAG_MS}; ${o.produces} sequential acks=all produces of one record`,
  );
  const cluster = await startCluster(3, {
    'metrics.listener': 'http://127.0.0.1:0',
    'replica.lag.time.max.ms': String(LAG_MS),
    'num.partition.workers': '1',
  });
  try {
    const kafka = new Kafka({
      brokers: cluster.bootstrap().split(','),
      logLevel: logLevel.NOTHING,
      retry: { retries: 10, initialRetryTime: 200 },
    });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: [{ topic: TOPIC, numPartitions: 1, replicationFactor: 3, configEntries: [{ name: 'min.insync.replicas', value: '2' }] }],
    });
    await admin.disconnect();
    await cluster.waitFor(`${TOPIC} with a full ISR`, (m) => m.topics.find((t) => t.name === TOPIC)?.partitions[0]?.isrNodes.length === 3);
    await cluster.waitForLeaders([TOPIC]);
    const { p, controllerId } = await partitionOf(cluster);
    const leader = p!.leaderId;
    const url = await metricsUrl(cluster.brokers[leader - 1]!);
    log(`leader ${leader}, metrics ${url}`);

    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const send = async (i: number, acks: number): Promise<void> =>
      void (await producer.send({ topic: TOPIC, acks, messages: [{ partition: 0, value: `r${i}` }] }));
    for (let i = 0; i < WARM_UP; i++) await send(i, -1);

    const idle = await measureWindow('idle (1 s, no produce)', url, () => sleep(1000));
    const latencies: number[] = [];
    const produce = await measureWindow(`${o.produces} acks=all produces`, url, async () => {
      for (let i = 0; i < o.produces; i++) {
        const t = performance.now();
        await send(i, -1);
        latencies.push(performance.now() - t);
      }
    });
    const perProduce = Object.fromEntries(Object.entries(produce.commands).map(([k, v]) => [k, v / o.produces]));

    // A follower that is not the controller, as the membership test picks it.
    const follower = p!.replicaNodes.find((id) => id !== leader && id !== controllerId) ?? p!.replicaNodes.find((id) => id !== leader)!;
    const child = cluster.brokers[follower - 1]!.child;
    let continued = false;
    const shrink = await measureWindow('ISR shrink (follower stopped)', url, async () => {
      child.kill('SIGSTOP');
      // A record it cannot fetch makes the stopped follower fall behind.
      await send(0, 1);
      await cluster.waitFor(
        'the stopped follower out of the ISR',
        (m) => m.topics.find((t) => t.name === TOPIC)?.partitions[0]?.isrNodes.includes(follower) === false,
        30_000,
        leader,
      );
    }).catch((err: unknown) => {
      child.kill('SIGCONT');
      continued = true;
      throw err;
    });
    const expand = await measureWindow('ISR expansion (follower continued)', url, async () => {
      if (!continued) child.kill('SIGCONT');
      await cluster.waitFor(
        'the follower back in the ISR',
        (m) => m.topics.find((t) => t.name === TOPIC)?.partitions[0]?.isrNodes.includes(follower) === true,
        30_000,
        leader,
      );
    });
    await producer.disconnect();

    const windows = [idle, produce, shrink, expand];
    const latency = {
      avgMs: latencies.reduce((a, b) => a + b, 0) / latencies.length,
      p50Ms: quantile(latencies, 0.5),
      p99Ms: quantile(latencies, 0.99),
    };
    const result = {
      label: o.label,
      commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot() }).toString().trim(),
      options: { ...o, lagMs: LAG_MS, warmUp: WARM_UP },
      leader,
      follower,
      perProduce: { total: sum(perProduce), requests: sum(perProduce, 'request'), posts: sum(perProduce, 'post'), byOp: perProduce },
      produceLatency: latency,
      windows,
    };
    writeFileSync(join(o.out, `round-trips-${o.label}.json`), `${JSON.stringify(result, null, 2)}\n`);
    const ops = [...new Set(windows.flatMap((w) => Object.keys(w.commands)))].sort();
    const f2 = (x: number): string => x.toFixed(2);
    const md = [
      `# Main → worker commands on the leader (${o.label})`,
      '',
      `3 brokers on a ZooKeeper, one partition, RF 3, min.insync.replicas=2, replica.lag.time.max.ms=${LAG_MS}, one partition worker each; KafkaJS, one record per produce, each awaited. Counted from the leader's \`sluice_worker_commands_total\` (the scrape's own \`metrics\` command left out).`,
      '',
      `## Per acks=all produce (${o.produces} produces, ${f2(latency.avgMs)} ms average, p99 ${f2(latency.p99Ms)} ms)`,
      '',
      table(
        ['op/kind', 'per produce'],
        [
          ...Object.entries(perProduce).map(([k, v]) => [k, f2(v)]),
          ['**requests (round trips)**', f2(sum(perProduce, 'request'))],
          ['**posts**', f2(sum(perProduce, 'post'))],
          ['**total**', f2(sum(perProduce))],
        ],
      ),
      '',
      '## Per window (raw counts; the idle window shows what runs on timers)',
      '',
      table(
        ['op/kind', ...windows.map((w) => `${w.name}, ${f2(w.seconds)} s`)],
        [
          ...ops.map((k) => [k, ...windows.map((w) => String(w.commands[k] ?? 0))]),
          ['**total**', ...windows.map((w) => String(sum(w.commands)))],
        ],
      ),
      '',
    ].join('\n');
    writeFileSync(join(o.out, `round-trips-${o.label}.md`), md);
    process.stdout.write(md);
  } finally {
    await cluster.stop();
  }
}

function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:round-trips failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
