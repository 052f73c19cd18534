/**
 * `npm run bench:groups`: group coordinator benchmarks, Sluice against Apache Kafka in the same
 * run with the same client and settings. Both brokers run for the whole benchmark and the
 * workloads alternate between them, so load from other users of a shared machine falls on both
 * alike. Writes bench/results/groups-<date>.json and .md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { KAFKA_VERSION, repoRoot } from '../../tools/kafka/kafka-release.js';
import { createTopic, GROUP_SETTINGS, startBroker, type BrokerName, type RunningBroker } from './brokers.js';
import { runCommits, type CommitSample } from './commit.js';
import { runRebalance, type PhaseSample } from './rebalance.js';
import { PINNED_VERSIONS, WireConnection } from './wire.js';

const USAGE = `npm run bench:groups -- [--quick] [--members 10,100] [--reps N] [--heartbeat-ms MS]
  [--commit-partitions 1,100] [--commit-connections 1,8] [--commit-rounds N] [--duration-ms MS] [--out DIR]`;

interface Options {
  readonly members: number[];
  readonly reps: number;
  readonly heartbeatMs: number;
  readonly assignedPartitions: number;
  readonly commitPartitions: number[];
  readonly commitConnections: number[];
  readonly commitRounds: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  readonly outDir: string;
}

function options(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      members: { type: 'string', default: '10,100' },
      reps: { type: 'string' },
      'heartbeat-ms': { type: 'string', default: '100' },
      'commit-partitions': { type: 'string', default: '1,100' },
      'commit-connections': { type: 'string', default: '1,8' },
      'commit-rounds': { type: 'string' },
      'duration-ms': { type: 'string' },
      out: { type: 'string', default: join(repoRoot(), 'bench', 'results') },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const list = (s: string): number[] =>
    s.split(',').map((x) => {
      const n = Number(x);
      if (!Number.isInteger(n) || n < 1) throw new Error(`not a positive integer: ${x}\n${USAGE}`);
      return n;
    });
  const quick = values.quick;
  return {
    members: list(values.members),
    reps: Number(values.reps ?? (quick ? 2 : 7)),
    heartbeatMs: Number(values['heartbeat-ms']),
    assignedPartitions: 100,
    commitPartitions: list(values['commit-partitions']),
    commitConnections: list(values['commit-connections']),
    commitRounds: Number(values['commit-rounds'] ?? (quick ? 1 : 3)),
    warmupMs: quick ? 500 : 1000,
    durationMs: Number(values['duration-ms'] ?? (quick ? 2000 : 5000)),
    outDir: values.out,
  };
}

/** One workload's numbers per broker; `better` says which direction wins. */
interface WorkloadResult {
  readonly workload: string;
  readonly unit: string;
  readonly better: 'lower' | 'higher';
  readonly sluice: Summary;
  readonly kafka: Summary;
  /** Sluice median / Kafka median. */
  readonly ratio: number;
  readonly detail: Record<BrokerName, unknown[]>;
}

interface Summary {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly samples: number[];
}

function summary(samples: number[]): Summary {
  const s = [...samples].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, min: s[0]!, max: s.at(-1)!, samples };
}

function result(
  workload: string,
  unit: string,
  better: 'lower' | 'higher',
  values: Record<BrokerName, number[]>,
  detail: Record<BrokerName, unknown[]>,
): WorkloadResult {
  const sluice = summary(values.sluice);
  const kafka = summary(values.kafka);
  return { workload, unit, better, sluice, kafka, ratio: sluice.median / kafka.median, detail };
}

const BROKERS: readonly BrokerName[] = ['sluice', 'kafka'];
const COMMIT_TOPIC = 'bench-groups-commits';

async function main(): Promise<void> {
  const opts = options(process.argv.slice(2));
  const started = new Date();
  const loadBefore = loadavg();
  const brokers = new Map<BrokerName, RunningBroker>();
  const results: WorkloadResult[] = [];
  try {
    for (const name of BROKERS) {
      process.stderr.write(`starting ${name}\n`);
      const b = await startBroker(name);
      brokers.set(name, b);
      const conn = await WireConnection.open(b.host, b.port, 'bench-setup');
      await createTopic(conn, COMMIT_TOPIC, Math.max(...opts.commitPartitions));
      conn.close();
      // Untimed: the JVM's JIT and the first group on a coordinator (both brokers) would
      // otherwise land in the first repetitions — Kafka's first 10-member join took over 1 s.
      process.stderr.write(`warming up ${name}\n`);
      for (const n of opts.members)
        await runRebalance(
          b,
          {
            members: n,
            repetitions: 1,
            partitions: opts.assignedPartitions,
            heartbeatIntervalMs: opts.heartbeatMs,
            phaseTimeoutMs: 120_000,
          },
          'warmup',
        );
      for (const partitions of opts.commitPartitions) {
        await runCommits(
          b,
          {
            topic: COMMIT_TOPIC,
            partitionsPerRequest: partitions,
            connections: Math.max(...opts.commitConnections),
            warmupMs: 0,
            durationMs: opts.warmupMs * 2,
          },
          'warmup',
        );
      }
    }

    for (const n of opts.members) {
      const join: Record<BrokerName, PhaseSample[]> = { sluice: [], kafka: [] };
      const leave: Record<BrokerName, PhaseSample[]> = { sluice: [], kafka: [] };
      const afterNotice: Record<BrokerName, number[]> = { sluice: [], kafka: [] };
      // One repetition per broker in turn, so slow spells of the shared machine hit both.
      for (let rep = 0; rep < opts.reps; rep++) {
        for (const name of BROKERS) {
          const s = await runRebalance(
            brokers.get(name)!,
            {
              members: n,
              repetitions: 1,
              partitions: opts.assignedPartitions,
              heartbeatIntervalMs: opts.heartbeatMs,
              phaseTimeoutMs: 120_000,
            },
            `r${rep}`,
          );
          join[name].push(...s.join);
          leave[name].push(...s.leave);
          afterNotice[name].push(...s.leaveAfterNotice);
          process.stderr.write(
            `rebalance ${n} members ${name} rep ${rep}: join ${s.join[0]!.ms.toFixed(1)} ms (${s.join[0]!.generations} generations), leave ${s.leave[0]!.ms.toFixed(1)} ms\n`,
          );
        }
      }
      const ms = (x: Record<BrokerName, PhaseSample[]>): Record<BrokerName, number[]> => ({
        sluice: x.sluice.map((s) => s.ms),
        kafka: x.kafka.map((s) => s.ms),
      });
      results.push(result(`${n} members join → Stable`, 'ms', 'lower', ms(join), join));
      results.push(result(`${n} members, 1 leaves → Stable`, 'ms', 'lower', ms(leave), leave));
      results.push(result(`${n} members, 1 leaves: first heartbeat told → Stable`, 'ms', 'lower', afterNotice, { sluice: [], kafka: [] }));
    }

    for (const partitions of opts.commitPartitions) {
      for (const connections of opts.commitConnections) {
        const samples: Record<BrokerName, CommitSample[]> = { sluice: [], kafka: [] };
        for (let round = 0; round < opts.commitRounds; round++) {
          for (const name of BROKERS) {
            const s = await runCommits(
              brokers.get(name)!,
              { topic: COMMIT_TOPIC, partitionsPerRequest: partitions, connections, warmupMs: opts.warmupMs, durationMs: opts.durationMs },
              `r${round}`,
            );
            samples[name].push(s);
            process.stderr.write(
              `commit ${partitions}p × ${connections}c ${name} round ${round}: ${s.requestsPerSecond.toFixed(0)} req/s, p50 ${s.p50Ms.toFixed(2)} ms\n`,
            );
          }
        }
        const pick = (f: (s: CommitSample) => number): Record<BrokerName, number[]> => ({
          sluice: samples.sluice.map(f),
          kafka: samples.kafka.map(f),
        });
        const cell = `OffsetCommit ${partitions} partition${partitions === 1 ? '' : 's'}/request, ${connections} connection${connections === 1 ? '' : 's'}`;
        results.push(
          result(
            `${cell}: requests/s`,
            'req/s',
            'higher',
            pick((s) => s.requestsPerSecond),
            samples,
          ),
        );
        if (partitions > 1)
          results.push(
            result(
              `${cell}: partitions/s`,
              'partitions/s',
              'higher',
              pick((s) => s.partitionsPerSecond),
              { sluice: [], kafka: [] },
            ),
          );
        results.push(
          result(
            `${cell}: p50 latency`,
            'ms',
            'lower',
            pick((s) => s.p50Ms),
            { sluice: [], kafka: [] },
          ),
        );
        results.push(
          result(
            `${cell}: broker CPU/request`,
            'ms',
            'lower',
            pick((s) => s.brokerCpuMsPerRequest),
            { sluice: [], kafka: [] },
          ),
        );
      }
    }
  } finally {
    for (const b of brokers.values()) await b.stop();
  }

  const date = started.toISOString().slice(0, 10);
  const report = {
    date: started.toISOString(),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? '',
      node: process.version,
      loadavgBefore: loadBefore,
      loadavgAfter: loadavg(),
    },
    kafkaVersion: KAFKA_VERSION,
    brokerSettings: GROUP_SETTINGS,
    requestVersions: PINNED_VERSIONS,
    settings: opts,
    results,
  };
  mkdirSync(opts.outDir, { recursive: true });
  const base = join(opts.outDir, `groups-${date}`);
  writeFileSync(`${base}.json`, JSON.stringify(report, null, 2) + '\n');
  writeFileSync(`${base}.md`, markdown(report.date, opts, report.machine.loadavgBefore, results));
  process.stdout.write(markdown(report.date, opts, report.machine.loadavgBefore, results));
  process.stderr.write(`wrote ${base}.json and .md\n`);
}

function fmt(v: number): string {
  if (v >= 1000) return Math.round(v).toLocaleString('en-US');
  if (v >= 10) return v.toFixed(1);
  return v.toFixed(3);
}

function markdown(date: string, opts: Options, load: number[], results: readonly WorkloadResult[]): string {
  const lines = [
    `# Group coordinator benchmarks, Sluice vs Apache Kafka ${KAFKA_VERSION} (${date})`,
    '',
    `${cpus().length} vCPU (shared; load average ${load.map((l) => l.toFixed(2)).join(' ')} at start), Node ${process.version}. ` +
      `Both brokers: ${Object.entries(GROUP_SETTINGS)
        .map(([k, v]) => `\`${k}=${v}\``)
        .join(', ')}. ` +
      `Rebalances: ${opts.reps} repetitions, heartbeat every ${opts.heartbeatMs} ms, ${opts.assignedPartitions} partitions assigned round-robin. ` +
      `Commits: ${opts.commitRounds} rounds of ${opts.durationMs} ms after ${opts.warmupMs} ms warm-up, one request in flight per connection. ` +
      'Medians (min–max); ratio = Sluice / Kafka.',
    '',
    '| Workload | Sluice | Kafka | Sluice/Kafka | better |',
    '|---|---:|---:|---:|---|',
  ];
  for (const r of results) {
    const cell = (s: Summary): string => `${fmt(s.median)} ${r.unit} (${fmt(s.min)}–${fmt(s.max)})`;
    lines.push(`| ${r.workload} | ${cell(r.sluice)} | ${cell(r.kafka)} | ${r.ratio.toFixed(2)} | ${r.better} |`);
  }
  return lines.join('\n') + '\n';
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exit(1);
});
