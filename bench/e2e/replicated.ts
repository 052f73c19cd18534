/**
 * `npm run bench:replicated`: a 3-broker Sluice cluster (on a ZooKeeper) against a 3-node Apache
 * Kafka KRaft cluster on this machine, RF 3, `min.insync.replicas=2`, `acks=all`, 1 KiB records
 * from Kafka's ProducerPerformance, the two clusters alternating from one repetition to the next.
 * Reports throughput, average and p99 latency, the three brokers' CPU seconds per GB and each
 * broker's peak RSS, and Sluice/Kafka ratios. Writes <out>/replicated.{json,md}.
 *
 *   npm run bench:replicated -- [--records N] [--reps N] [--partitions N] [--out DIR] [--brokers sluice,kafka]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KafkaAdminClient, KafkaCluster, parseBootstrapServers } from '@sluice/client/index.js';
import { startZooKeeper } from '../../src/zk/zookeeper-server.js';
import { randomClusterId, startKafka } from '../../tools/kafka/kafka-process.js';
import { repoRoot } from '../../tools/kafka/kafka-release.js';
import { spawnSluice } from '../../tools/sluice/sluice-process.js';
import { freePort } from './brokers.js';
import { parseProducerPerformance, prepareJavaTools, runJava, type JavaTools } from './java-tools.js';
import { table } from './md-table.js';
import { cpuSeconds, peakRssMiB, resetPeakRss } from './proc-stats.js';

interface Options {
  records: number;
  reps: number;
  partitions: number;
  out: string;
  brokers: ('sluice' | 'kafka')[];
}

interface ClusterUnderTest {
  readonly name: 'sluice' | 'kafka';
  readonly bootstrap: string;
  readonly pids: readonly number[];
  stop(): Promise<void>;
}

interface Result {
  readonly broker: 'sluice' | 'kafka';
  readonly rep: number;
  readonly records: number;
  readonly mbPerSecond: number;
  readonly avgLatencyMs: number;
  readonly p99LatencyMs: number;
  readonly brokerCpuSecondsPerGB: number;
  readonly peakRssMiB: readonly number[];
}

const RECORD_SIZE = 1024;
const SIZE = 3;

function parse(argv: readonly string[]): Options {
  const o: Options = {
    records: 500_000,
    reps: 2,
    partitions: 16,
    out: join(repoRoot(), 'bench', 'results', new Date().toISOString().slice(0, 10), 'replicated'),
    brokers: ['sluice', 'kafka'],
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (v === undefined) throw new Error(`${k} needs a value`);
    if (k === '--records') o.records = Number(v);
    else if (k === '--reps') o.reps = Number(v);
    else if (k === '--partitions') o.partitions = Number(v);
    else if (k === '--out') o.out = v;
    else if (k === '--brokers') o.brokers = v.split(',') as Options['brokers'];
    else throw new Error(`unknown option ${k}`);
  }
  return o;
}

const log = (m: string): void => void process.stderr.write(`[bench:replicated] ${m}\n`);

async function startSluiceCluster(dir: string): Promise<ClusterUnderTest> {
  const zookeeper = await startZooKeeper({ dataDir: join(dir, 'zookeeper') });
  const brokers = await Promise.all(
    [1, 2, 3].map(async (id) => {
      const port = await freePort();
      return spawnSluice({
        overrides: [
          `node.id=${id}`,
          `listeners=PLAINTEXT://127.0.0.1:${port}`,
          `log.dirs=${join(dir, `sluice-${id}`)}`,
          `zookeeper.connect=${zookeeper.connect}/bench`,
          'num.partition.workers=1',
          'log.segment.delete.delay.ms=1000',
        ],
        env: process.env,
        startTimeoutMs: 30_000,
      });
    }),
  );
  return {
    name: 'sluice',
    bootstrap: brokers.map((b) => b.bootstrap).join(','),
    pids: brokers.map((b) => b.child.pid!),
    async stop() {
      await Promise.all(
        brokers.map(
          (b) =>
            new Promise<void>((resolve) => {
              if (b.child.exitCode !== null) return resolve();
              b.child.once('exit', () => resolve());
              b.child.kill('SIGTERM');
            }),
        ),
      );
      await zookeeper.stop();
    },
  };
}

async function startKafkaCluster(dir: string): Promise<ClusterUnderTest> {
  const ports = await Promise.all([1, 2, 3].map(async () => ({ port: await freePort(), controller: await freePort() })));
  const voters = ports.map((p, i) => `${i + 1}@127.0.0.1:${p.controller}`).join(',');
  const clusterId = randomClusterId();
  const nodes = await Promise.all(
    ports.map((p, i) =>
      startKafka({
        port: p.port,
        controllerPort: p.controller,
        logDir: join(dir, `kafka-${i + 1}`),
        clusterId,
        heap: '1g',
        config: {
          'node.id': String(i + 1),
          'controller.quorum.voters': voters,
          'offsets.topic.replication.factor': '3',
          'transaction.state.log.replication.factor': '3',
          'transaction.state.log.min.isr': '2',
          'log.segment.delete.delay.ms': '1000',
        },
      }),
    ),
  );
  return {
    name: 'kafka',
    bootstrap: nodes.map((n) => n.bootstrap).join(','),
    pids: nodes.map((n) => n.pid),
    stop: async () => void (await Promise.all(nodes.map((n) => n.stop()))),
  };
}

async function createReplicatedTopic(bootstrap: string, topic: string, partitions: number): Promise<void> {
  const cluster = new KafkaCluster({ bootstrap: parseBootstrapServers(bootstrap) });
  try {
    // A broker knows the others once the controller's first metadata reaches it.
    const ready = Date.now() + 60_000;
    while ((await cluster.metadata([])).brokers.size < SIZE) {
      if (Date.now() > ready) throw new Error('the cluster never showed three brokers');
      await new Promise((r) => setTimeout(r, 200));
    }
    await new KafkaAdminClient(cluster).createTopic({
      name: topic,
      partitions,
      replicationFactor: SIZE,
      configs: new Map([['min.insync.replicas', '2']]),
    });
    const deadline = Date.now() + 60_000;
    for (;;) {
      const t = (await cluster.metadata([topic])).topics.get(topic);
      if (t !== undefined && t.partitions.length === partitions && t.partitions.every((p) => p.isr.length === SIZE)) return;
      if (Date.now() > deadline) throw new Error(`${topic} never reached a full ISR`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    cluster.close();
  }
}

async function measure(tools: JavaTools, c: ClusterUnderTest, o: Options, rep: number): Promise<Result> {
  const topic = `replicated-${rep}`;
  await createReplicatedTopic(c.bootstrap, topic, o.partitions);
  for (const pid of c.pids) resetPeakRss(pid);
  const before = c.pids.map(cpuSeconds);
  const run = await runJava(tools, 'org.apache.kafka.tools.ProducerPerformance', [
    '--topic',
    topic,
    '--num-records',
    String(o.records),
    '--record-size',
    String(RECORD_SIZE),
    '--throughput',
    '-1',
    '--command-property',
    `bootstrap.servers=${c.bootstrap}`,
    'acks=all',
    'linger.ms=5',
    'batch.size=262144',
    'compression.type=none',
  ]);
  const cpu = c.pids.reduce((sum, pid, i) => sum + cpuSeconds(pid) - before[i]!, 0);
  const p = parseProducerPerformance(run.stdout);
  const bytes = p.records * RECORD_SIZE;
  return {
    broker: c.name,
    rep,
    records: p.records,
    mbPerSecond: (p.recordsPerSecond * RECORD_SIZE) / 1e6,
    avgLatencyMs: p.avgLatencyMs,
    p99LatencyMs: p.p99LatencyMs,
    brokerCpuSecondsPerGB: cpu / (bytes / 1e9),
    peakRssMiB: c.pids.map(peakRssMiB),
  };
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  mkdirSync(o.out, { recursive: true });
  // The compiled load-generator classes are scratch, not results.
  const scratch = mkdtempSync(join(tmpdir(), 'bench-replicated-tools-'));
  const tools = await prepareJavaTools(scratch);
  const results: Result[] = [];
  for (let rep = 0; rep < o.reps; rep++) {
    const order = rep % 2 === 0 ? o.brokers : [...o.brokers].reverse();
    for (const name of order) {
      const dir = mkdtempSync(join(tmpdir(), `bench-replicated-${name}-`));
      log(`rep ${rep + 1}/${o.reps}: ${name}, ${o.records} x 1 KiB, RF 3, min.insync.replicas=2, acks=all`);
      const cluster = name === 'sluice' ? await startSluiceCluster(dir) : await startKafkaCluster(dir);
      try {
        const r = await measure(tools, cluster, o, rep);
        log(
          `  ${r.mbPerSecond.toFixed(1)} MB/s, p99 ${r.p99LatencyMs} ms, ${r.brokerCpuSecondsPerGB.toFixed(2)} broker CPU s/GB, RSS ${r.peakRssMiB.map((x) => x.toFixed(0)).join('/')} MiB`,
        );
        results.push(r);
      } finally {
        await cluster.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  const summary = o.brokers.map((b) => {
    const rs = results.filter((r) => r.broker === b);
    return {
      broker: b,
      mbPerSecond: median(rs.map((r) => r.mbPerSecond)),
      p99LatencyMs: median(rs.map((r) => r.p99LatencyMs)),
      cpuPerGB: median(rs.map((r) => r.brokerCpuSecondsPerGB)),
      rssMiB: median(rs.flatMap((r) => r.peakRssMiB)),
    };
  });
  writeFileSync(join(o.out, 'replicated.json'), `${JSON.stringify({ options: o, results, summary }, null, 2)}\n`);
  const s = summary.find((x) => x.broker === 'sluice');
  const k = summary.find((x) => x.broker === 'kafka');
  const rows = summary.map((x) => [
    x.broker,
    x.mbPerSecond.toFixed(1),
    x.p99LatencyMs.toFixed(0),
    x.cpuPerGB.toFixed(2),
    x.rssMiB.toFixed(0),
  ]);
  if (s !== undefined && k !== undefined)
    rows.push([
      'Sluice/Kafka',
      (s.mbPerSecond / k.mbPerSecond).toFixed(2),
      (s.p99LatencyMs / k.p99LatencyMs).toFixed(2),
      (s.cpuPerGB / k.cpuPerGB).toFixed(2),
      (s.rssMiB / k.rssMiB).toFixed(2),
    ]);
  const md = [
    `# Replicated cluster: 3 brokers, RF 3, min.insync.replicas=2, acks=all`,
    '',
    `${o.records} records of 1 KiB per run, ${o.partitions} partitions, Kafka's ProducerPerformance (linger.ms=5, batch.size=262144), ${o.reps} repetitions alternating the clusters, medians. All three brokers, the ZooKeeper (Sluice) and the generator share this machine's cores.`,
    '',
    table(['cluster', 'MB/s', 'p99 ms', 'broker CPU s/GB (3 brokers)', 'peak RSS MiB per broker'], rows),
    '',
  ].join('\n');
  writeFileSync(join(o.out, 'replicated.md'), md);
  process.stdout.write(md);
  rmSync(scratch, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:replicated failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
