/**
 * `npm run bench:transactions`: transactional produce and read_committed consumption, Sluice and
 * Apache Kafka 4.4 side by side under the same Java client (transaction version 2 on both),
 * alternating broker order from one repetition to the next. Workloads, each on a fresh 16-partition
 * topic of 1 KiB records:
 *   - txn-1000: a transaction every 1,000 records;
 *   - txn-100ms: a transaction every 100 ms;
 *   - then, on the txn-1000 topic with every 10th transaction aborted, the same assign() consumer
 *     at read_uncommitted and at read_committed (which drops the aborted records itself, from the
 *     aborted-transaction lists the broker returns).
 * Broker CPU comes from /proc around each run. Writes bench/results/<date>-transactions/
 * results.{json,md}.
 *
 * Options: --records N (default 300000), --reps N (default 2), --out DIR.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../../tools/kafka/kafka-release.js';
import { SEGMENT_BYTES, startKafkaBroker, startSluice, type BrokerName, type BrokerUnderTest } from './brokers.js';
import { lastJson, prepareJavaTools, runJava, type JavaTools } from './java-tools.js';
import { table } from './md-table.js';
import { cpuSeconds } from './proc-stats.js';

const PARTITIONS = 16;
const RECORD_BYTES = 1024;
const ABORT_EVERY = 10;

interface Run {
  readonly records: number;
  readonly bytes: number;
  readonly seconds: number;
  readonly transactions?: number;
  readonly aborted?: number;
}

interface Measurement {
  readonly workload: string;
  readonly broker: BrokerName;
  readonly rep: number;
  readonly records: number;
  readonly mbPerSecond: number;
  readonly recordsPerSecond: number;
  readonly brokerCpuSecondsPerGB: number;
  readonly generatorCpuSeconds: number;
  readonly transactions: number | null;
}

const { values } = parseArgs({ options: { records: { type: 'string' }, reps: { type: 'string' }, out: { type: 'string' } } });
const records = Number(values.records ?? 300_000);
const reps = Number(values.reps ?? 2);
const outDir = values.out ?? join(repoRoot(), 'bench', 'results', `${new Date().toISOString().slice(0, 10)}-transactions`);
const workDir = '/tmp/sluice-bench-transactions';

function log(message: string): void {
  console.error(`[bench:transactions] ${message}`);
}

async function measure(
  tools: JavaTools,
  broker: BrokerUnderTest,
  rep: number,
  workload: string,
  args: readonly string[],
): Promise<Measurement> {
  const before = cpuSeconds(broker.pid!);
  const run = await runJava(tools, 'BenchTool', args);
  const brokerCpu = cpuSeconds(broker.pid!) - before;
  const result = lastJson<Run>(run);
  const gb = result.bytes / 1e9;
  return {
    workload,
    broker: broker.name,
    rep,
    records: result.records,
    mbPerSecond: result.bytes / 1e6 / result.seconds,
    recordsPerSecond: result.records / result.seconds,
    brokerCpuSecondsPerGB: brokerCpu / gb,
    generatorCpuSeconds: run.generatorCpuSeconds,
    transactions: result.transactions ?? null,
  };
}

async function runBroker(tools: JavaTools, name: 'sluice' | 'kafka', rep: number): Promise<Measurement[]> {
  const dataDir = join(workDir, `${name}-${rep}`);
  rmSync(dataDir, { recursive: true, force: true });
  const broker = name === 'sluice' ? await startSluice({ dataDir }) : await startKafkaBroker(dataDir);
  const create = (topic: string) =>
    runJava(tools, 'BenchTool', ['create', broker.bootstrap, topic, String(PARTITIONS), String(SEGMENT_BYTES)]);
  const out: Measurement[] = [];
  try {
    await create('txn-1000');
    out.push(
      await measure(tools, broker, rep, 'txn-1000', [
        'txnProduce',
        broker.bootstrap,
        'txn-1000',
        String(records),
        String(RECORD_BYTES),
        '1000',
        '0',
        String(ABORT_EVERY),
      ]),
    );
    await create('txn-100ms');
    out.push(
      await measure(tools, broker, rep, 'txn-100ms', [
        'txnProduce',
        broker.bootstrap,
        'txn-100ms',
        String(records),
        String(RECORD_BYTES),
        '0',
        '100',
        '0',
      ]),
    );
    for (const isolation of ['read_uncommitted', 'read_committed']) {
      out.push(await measure(tools, broker, rep, `consume-${isolation}`, ['consumeAt', broker.bootstrap, 'txn-1000', isolation]));
    }
  } finally {
    await broker.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  for (const m of out)
    log(`${name} rep ${rep} ${m.workload}: ${m.mbPerSecond.toFixed(1)} MB/s, broker ${m.brokerCpuSecondsPerGB.toFixed(2)} CPU s/GB`);
  return out;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const LABELS: Record<string, string> = {
  'txn-1000': 'transactional produce, commit every 1,000 records (every 10th aborted)',
  'txn-100ms': 'transactional produce, commit every 100 ms',
  'consume-read_uncommitted': 'consume read_uncommitted (the txn-1000 topic)',
  'consume-read_committed': 'consume read_committed (the txn-1000 topic, 10% aborted)',
};

function report(all: readonly Measurement[]): string {
  const rows = Object.keys(LABELS).map((w) => {
    const of = (b: BrokerName, f: (m: Measurement) => number): number =>
      median(all.filter((m) => m.workload === w && m.broker === b).map(f));
    const s = of('sluice', (m) => m.mbPerSecond);
    const k = of('kafka', (m) => m.mbPerSecond);
    return [
      LABELS[w]!,
      s.toFixed(1),
      k.toFixed(1),
      (s / k).toFixed(2),
      of('sluice', (m) => m.brokerCpuSecondsPerGB).toFixed(2),
      of('kafka', (m) => m.brokerCpuSecondsPerGB).toFixed(2),
    ];
  });
  return [
    `# Transactions: Sluice vs Apache Kafka 4.4`,
    '',
    `${records} records of ${RECORD_BYTES} B, ${PARTITIONS} partitions, ${reps} repetitions alternating the broker order, medians; the Java client (kafka-clients 4.4.0, transaction version 2, linger.ms=5, batch.size=256 KiB) on the same 2-core machine as the broker.`,
    '',
    table(['workload', 'Sluice MB/s', 'Kafka MB/s', 'Sluice/Kafka', 'Sluice broker CPU s/GB', 'Kafka broker CPU s/GB'], rows),
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  mkdirSync(workDir, { recursive: true });
  mkdirSync(outDir, { recursive: true });
  const tools = await prepareJavaTools(workDir);
  const all: Measurement[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const order: Array<'sluice' | 'kafka'> = rep % 2 === 0 ? ['sluice', 'kafka'] : ['kafka', 'sluice'];
    for (const name of order) all.push(...(await runBroker(tools, name, rep)));
  }
  writeFileSync(
    join(outDir, 'results.json'),
    JSON.stringify(
      { records, recordBytes: RECORD_BYTES, partitions: PARTITIONS, abortEvery: ABORT_EVERY, reps, measurements: all },
      null,
      2,
    ) + '\n',
  );
  const md = report(all);
  writeFileSync(join(outDir, 'results.md'), md);
  console.log(md);
}

await main();
