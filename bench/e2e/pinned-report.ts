/**
 * The pinned-core report: per row and broker, medians over the rounds with their spread,
 * Sluice/Kafka ratios, broker and generator CPU per GB, and how busy the generator's core was.
 * A row whose generator core was saturated is judged by broker CPU per GB instead of
 * throughput: the generator, not the broker, set its pace.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrokerName } from './brokers.js';
import { table } from './md-table.js';
import type { PinPlan } from './pin.js';
import { SATURATED_CORE_BUSY, type PinnedRow, type PinnedRun } from './pinned.js';
import { byWorkloadAndBroker, fmt, median, ratio } from './report.js';
import { judgeTargets } from './pinned-targets.js';
import { soakSection, type SoakResult } from './soak.js';
import { startupTable, type StartupSample } from './startup.js';

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export function spread(values: readonly number[]): Spread {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

export interface PinnedSummary {
  readonly workload: string;
  readonly broker: BrokerName;
  readonly runs: number;
  readonly mbPerSecond: Spread;
  readonly recordsPerSecond: number;
  readonly brokerCpuSecondsPerGB: Spread | null;
  readonly generatorCpuSecondsPerGB: number;
  readonly generatorCoreBusy: number;
  readonly brokerCoreBusy: number;
  readonly wireBytesPerPayloadByte: number;
  /** Any round saturated the generator's core. */
  readonly generatorSaturated: boolean;
  readonly p50Ms: number | null;
  readonly p99Ms: Spread | null;
  readonly p999Ms: number | null;
}

export function summarizePinned(runs: readonly PinnedRun[]): PinnedSummary[] {
  return byWorkloadAndBroker(runs).map((g) => {
    const cpu = g.flatMap((r) => (r.brokerCpuSecondsPerGB === null ? [] : [r.brokerCpuSecondsPerGB]));
    const lat = g.flatMap((r) => (r.latency ? [r.latency] : []));
    return {
      workload: g[0]!.workload,
      broker: g[0]!.broker,
      runs: g.length,
      mbPerSecond: spread(g.map((r) => r.mbPerSecond)),
      recordsPerSecond: median(g.map((r) => r.recordsPerSecond)),
      brokerCpuSecondsPerGB: cpu.length === 0 ? null : spread(cpu),
      generatorCpuSecondsPerGB: median(g.map((r) => r.generatorCpuSecondsPerGB)),
      generatorCoreBusy: median(g.map((r) => r.generatorCoreBusy)),
      brokerCoreBusy: median(g.map((r) => r.brokerCoreBusy)),
      wireBytesPerPayloadByte: median(g.map((r) => r.wireBytesPerPayloadByte)),
      generatorSaturated: g.some((r) => r.generatorSaturated),
      p50Ms: lat.length === 0 ? null : median(lat.map((l) => l.p50Ms)),
      p99Ms: lat.length === 0 ? null : spread(lat.map((l) => l.p99Ms)),
      p999Ms: lat.length === 0 ? null : median(lat.map((l) => l.p999Ms)),
    };
  });
}

export interface PinnedResults {
  readonly date: string;
  readonly mode: 'pinned' | 'pinned-quick';
  readonly environment: Record<string, string | number>;
  readonly plan: PinPlan;
  /** Threads of each broker checked to be on the broker CPUs after start-up. */
  readonly pinnedThreads: Partial<Record<BrokerName, number>>;
  readonly rows: readonly PinnedRow[];
  readonly summaries: readonly PinnedSummary[];
  readonly runs: readonly PinnedRun[];
  readonly startup: readonly StartupSample[];
  readonly kafkaStart: { readonly startSeconds: number; readonly idleRssMiB: number } | null;
  readonly soak: readonly SoakResult[];
  readonly failures: readonly string[];
}

const big = (v: number): string => Math.round(v).toLocaleString('en-US');
const withSpread = (s: Spread | null, digits: number): string =>
  s === null ? '–' : `${fmt(s.median, digits)} (${fmt(s.min, digits)}–${fmt(s.max, digits)})`;
const pct = (v: number | undefined): string => (v === undefined ? '–' : `${Math.round(v * 100)}%`);

export function pinnedMarkdown(r: PinnedResults): string {
  const get = (w: string, b: BrokerName): PinnedSummary | undefined => r.summaries.find((s) => s.workload === w && s.broker === b);
  const md: string[] = [];
  md.push(`# Pinned-core benchmark, ${r.date} (${r.mode})`, '');
  if (r.mode === 'pinned-quick')
    md.push('**Quick run (--quick): fewer records and one round; a proof that the mode works, not a result to quote.**', '');
  md.push(
    Object.entries(r.environment)
      .map(([k, v]) => `${k}: ${v}`)
      .join(' · '),
    '',
  );
  md.push(
    `Each broker runs on CPU ${r.plan.brokerCpus.join(',')} (\`taskset\`, every thread: ${Object.entries(r.pinnedThreads)
      .map(([b, t]) => `${b} ${t}`)
      .join(', ')} threads checked), ` +
      `the C load generator (librdkafka) on CPU ${r.plan.generatorCpus.join(',')}. 16 partitions, linger.ms=5, batch.size=262144. ` +
      'Medians of the rounds with (min–max); MB = 10^6 payload bytes.',
    '',
  );
  const throughput = r.rows.filter((row) => row.kind !== 'latency');
  if (throughput.length > 0) {
    md.push('## Throughput per core', '');
    md.push(
      table(
        [
          'workload',
          'Sluice MB/s',
          'Kafka MB/s',
          'Sluice/Kafka',
          'rec/s S / K',
          'broker CPU s/GB, Sluice',
          'Kafka',
          'CPU ratio',
          'generator CPU s/GB S / K',
          'generator core busy S / K',
          'wire bytes per payload byte S / K',
          'judged by',
        ],
        throughput.map((row) => {
          const s = get(row.id, 'sluice') ?? get(row.id, 'target');
          const k = get(row.id, 'kafka');
          const saturated = (s?.generatorSaturated ?? false) || (k?.generatorSaturated ?? false);
          return [
            `${row.label} (${s?.runs ?? 0})`,
            withSpread(s?.mbPerSecond ?? null, 0),
            withSpread(k?.mbPerSecond ?? null, 0),
            ratio(s?.mbPerSecond.median, k?.mbPerSecond.median),
            `${s ? big(s.recordsPerSecond) : '–'} / ${k ? big(k.recordsPerSecond) : '–'}`,
            withSpread(s?.brokerCpuSecondsPerGB ?? null, 2),
            withSpread(k?.brokerCpuSecondsPerGB ?? null, 2),
            ratio(s?.brokerCpuSecondsPerGB?.median, k?.brokerCpuSecondsPerGB?.median),
            `${fmt(s?.generatorCpuSecondsPerGB, 2)} / ${fmt(k?.generatorCpuSecondsPerGB, 2)}`,
            `${pct(s?.generatorCoreBusy)} / ${pct(k?.generatorCoreBusy)}`,
            `${fmt(s?.wireBytesPerPayloadByte, 3)} / ${fmt(k?.wireBytesPerPayloadByte, 3)}`,
            saturated ? '**broker CPU/GB** (generator core saturated)' : 'throughput',
          ];
        }),
      ),
      '',
    );
    md.push(
      "Broker CPU s/GB: the broker process's user+system seconds (all threads) per 10^9 payload bytes. Generator CPU s/GB: the C generator's own " +
        "CPU (getrusage, librdkafka's threads included) per GB; on the consume row it is the consumer client's cost of reading from that broker. " +
        `Generator core busy: everything on the generator's CPU over the run (≥ ${SATURATED_CORE_BUSY * 100}% counts as saturated). Wire bytes: what librdkafka sent (produce) or received (consume) per payload byte.`,
      '',
    );
  }
  const lat = r.rows.filter((row) => row.kind === 'latency');
  if (lat.length > 0) {
    md.push('## End-to-end latency (fixed rate, intended send time in the record)', '');
    md.push(
      table(
        ['workload', 'broker', 'p50 ms', 'p99 ms (min–max)', 'p99.9 ms', 'achieved MB/s', 'broker CPU s/GB', 'broker core busy'],
        lat.flatMap((row) =>
          (['sluice', 'kafka', 'target'] as const).flatMap((b) => {
            const s = get(row.id, b);
            return s
              ? [
                  [
                    row.label,
                    b,
                    fmt(s.p50Ms, 1),
                    withSpread(s.p99Ms, 1),
                    fmt(s.p999Ms, 1),
                    fmt(s.mbPerSecond.median, 1),
                    withSpread(s.brokerCpuSecondsPerGB, 2),
                    pct(s.brokerCoreBusy),
                  ],
                ]
              : [];
          }),
        ),
      ),
      '',
    );
    const s = get(lat[0]!.id, 'sluice');
    const k = get(lat[0]!.id, 'kafka');
    if (s && k)
      md.push(
        `Sluice/Kafka: p50 ${ratio(s.p50Ms, k.p50Ms)}, p99 ${ratio(s.p99Ms?.median, k.p99Ms?.median)}, p99.9 ${ratio(s.p999Ms, k.p999Ms)}.`,
        '',
      );
  }
  if (r.startup.length > 0) {
    md.push('## Start-up and idle memory (empty data dir, pinned like the broker)', '', startupTable(r.startup), '');
    if (r.kafkaStart)
      md.push(
        `Kafka (storage format included, -Xms1g): ${r.kafkaStart.startSeconds.toFixed(2)} s to accepting connections, idle RSS ${r.kafkaStart.idleRssMiB.toFixed(0)} MiB.`,
        '',
      );
  }
  md.push(...soakSection(r.soak));
  const verdicts = judgeTargets(r);
  if (verdicts.length > 0) {
    md.push('## Per-core targets', '');
    md.push(
      table(
        ['target', 'measured (Sluice / Kafka)', 'met'],
        verdicts.map((v) => [v.target, v.measured, v.met === null ? '–' : v.met ? 'yes' : '**no**']),
      ),
      '',
    );
  }
  if (r.failures.length > 0) md.push('## Failures', '', ...r.failures.map((f) => `- ${f.split('\n')[0]}`), '');
  return md.join('\n');
}

export function writePinnedReport(dir: string, r: PinnedResults): string {
  writeFileSync(join(dir, 'results.json'), `${JSON.stringify(r, null, 2)}\n`);
  const md = pinnedMarkdown(r);
  writeFileSync(join(dir, 'results.md'), md);
  return md;
}
