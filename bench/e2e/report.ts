/**
 * Turns the raw runs into medians per (workload, broker), Sluice/Kafka ratios, a Markdown
 * report and SVG charts. The JSON keeps every run so later comparisons can use their spread.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrokerName } from './brokers.js';
import type { MachineLimits } from './machine-limits.js';
import { GROWTH_WORKLOAD_ID } from './growth.js';
import { growthChart, growthRuns, growthSection } from './growth-report.js';
import type { ProfileReport } from './profile.js';
import { table } from './md-table.js';
import { groupedBarChart, type Series } from './svg.js';
import type { Measurement } from './workloads.js';

export interface WorkloadInfo {
  readonly id: string;
  readonly label: string;
  readonly group: 'produce' | 'consume' | 'latency' | 'partitions' | 'growth' | 'share';
  readonly partitions: number;
}

export interface StartupInfo {
  readonly sluiceStartSeconds: readonly number[];
  readonly sluiceIdleRssMiB: readonly number[];
  readonly kafkaStartSeconds: number | null;
  readonly kafkaIdleRssMiB: number | null;
}

export interface Summary {
  readonly workload: string;
  readonly broker: BrokerName;
  readonly runs: number;
  readonly mbPerSecond: number;
  readonly mbPerSecondMin: number;
  readonly mbPerSecondMax: number;
  readonly recordsPerSecond: number;
  readonly brokerCpuSecondsPerGB: number | null;
  readonly brokerPeakRssMiB: number | null;
  readonly generatorCpuCores: number;
  readonly otherCpuCores: number;
  readonly p50Ms: number | null;
  readonly p99Ms: number | null;
  readonly p999Ms: number | null;
  readonly topicCreateSeconds: number | null;
}

export interface BenchResults {
  readonly date: string;
  readonly mode: 'quick' | 'full';
  readonly environment: Record<string, string | number>;
  readonly workloads: readonly WorkloadInfo[];
  readonly machine: MachineLimits | null;
  readonly startup: StartupInfo | null;
  readonly summaries: readonly Summary[];
  readonly runs: readonly Measurement[];
  readonly failures: readonly string[];
  readonly profile: ProfileReport | null;
}

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function medianOrNull(values: readonly (number | null | undefined)[]): number | null {
  const present = values.filter((v): v is number => typeof v === 'number');
  return present.length === 0 ? null : median(present);
}

/** The runs of each (workload, broker), in order of first appearance: what a summary row is a median over. */
export function byWorkloadAndBroker<R extends { readonly workload: string; readonly broker: BrokerName }>(runs: readonly R[]): R[][] {
  const groups = new Map<string, R[]>();
  for (const r of runs) {
    const key = `${r.workload}\u0000${r.broker}`;
    const group = groups.get(key);
    if (group) group.push(r);
    else groups.set(key, [r]);
  }
  return [...groups.values()];
}

export function summarize(runs: readonly Measurement[]): Summary[] {
  return byWorkloadAndBroker(runs).map((g) => {
    const mb = g.map((r) => r.mbPerSecond);
    return {
      workload: g[0]!.workload,
      broker: g[0]!.broker,
      runs: g.length,
      mbPerSecond: median(mb),
      mbPerSecondMin: Math.min(...mb),
      mbPerSecondMax: Math.max(...mb),
      recordsPerSecond: median(g.map((r) => r.recordsPerSecond)),
      brokerCpuSecondsPerGB: medianOrNull(g.map((r) => r.brokerCpuSecondsPerGB)),
      brokerPeakRssMiB: g.some((r) => r.brokerPeakRssMiB !== null) ? Math.max(...g.map((r) => r.brokerPeakRssMiB ?? 0)) : null,
      generatorCpuCores: median(g.map((r) => r.generatorCpuCores)),
      otherCpuCores: median(g.map((r) => r.otherCpuCores)),
      p50Ms: medianOrNull(g.map((r) => r.latency?.p50Ms)),
      p99Ms: medianOrNull(g.map((r) => r.latency?.p99Ms)),
      p999Ms: medianOrNull(g.map((r) => r.latency?.p999Ms)),
      topicCreateSeconds: medianOrNull(g.map((r) => r.topicCreateSeconds)),
    };
  });
}

/** A table cell: '–' for no value, else `digits` decimals, or by default fewer the larger the value. */
export function fmt(v: number | null | undefined, digits?: number): string {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  if (digits !== undefined) return v.toFixed(digits);
  return v >= 1000 ? Math.round(v).toLocaleString('en-US') : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
}

/** a / b as a table cell, '–' when either is missing or b is 0. */
export function ratio(a: number | null | undefined, b: number | null | undefined): string {
  if (a === null || a === undefined || b === null || b === undefined || b === 0) return '–';
  return `${(a / b).toFixed(2)}×`;
}

const COLORS: Record<BrokerName, string> = { sluice: '#2b7bb9', kafka: '#d9822b', target: '#5a9e4b' };

export function writeReport(dir: string, results: BenchResults): string {
  writeFileSync(join(dir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  const brokers = [...new Set(results.summaries.map((s) => s.broker))];
  const get = (w: string, b: BrokerName): Summary | undefined => results.summaries.find((s) => s.workload === w && s.broker === b);
  const pair = brokers.includes('sluice') && brokers.includes('kafka');
  // A --bootstrap target takes Sluice's column.
  const first = brokers.includes('target') ? 'Target' : 'Sluice';
  const label = (id: string): string => results.workloads.find((w) => w.id === id)?.label ?? id;
  const md: string[] = [];
  md.push(`# End-to-end benchmark, ${results.date} (${results.mode})`, '');
  md.push(
    Object.entries(results.environment)
      .map(([k, v]) => `${k}: ${v}`)
      .join(' · '),
    '',
  );
  md.push(
    'Medians of the runs shown (n); MB = 10^6 bytes of record payload. Load generator and broker share the',
    'same 2 vCPUs, on a machine other engineers also use: numbers are indicative and vary run to run.',
    '',
  );

  // Latency and growth have sections of their own.
  const throughputIds = results.workloads.filter((w) => w.group !== 'latency' && w.group !== 'growth').map((w) => w.id);
  const rows = throughputIds.flatMap((id) => {
    const s = get(id, 'sluice') ?? get(id, 'target');
    const k = get(id, 'kafka');
    if (!s && !k) return [];
    return [
      [
        label(id),
        `${fmt(s?.mbPerSecond)} (${s?.runs ?? 0})`,
        fmt(k?.mbPerSecond),
        ratio(s?.mbPerSecond, k?.mbPerSecond),
        fmt(s?.recordsPerSecond),
        fmt(k?.recordsPerSecond),
        fmt(s?.brokerCpuSecondsPerGB),
        fmt(k?.brokerCpuSecondsPerGB),
        ratio(s?.brokerCpuSecondsPerGB, k?.brokerCpuSecondsPerGB),
        fmt(s?.brokerPeakRssMiB),
        fmt(k?.brokerPeakRssMiB),
        `${fmt(s?.generatorCpuCores, 2)} / ${fmt(k?.generatorCpuCores, 2)}`,
        `${fmt(s?.otherCpuCores, 2)} / ${fmt(k?.otherCpuCores, 2)}`,
      ],
    ];
  });
  md.push('## Throughput', '');
  md.push(
    table(
      [
        'workload',
        `${first} MB/s (n)`,
        'Kafka MB/s',
        'ratio',
        `${first} rec/s`,
        'Kafka rec/s',
        `${first} CPU s/GB`,
        'Kafka CPU s/GB',
        'CPU ratio',
        `${first} peak RSS MiB`,
        'Kafka peak RSS MiB',
        'generator cores S / K',
        'other load cores S / K',
      ],
      rows,
    ),
    '',
  );
  md.push(
    "CPU s/GB: broker process user+system seconds (all threads) per 10^9 payload bytes. Generator cores: the Java load generator's CPU seconds per wall second (2 = both cores). Other load: CPU cores used by everything else on the machine during the run (other engineers' builds and tests) — when it is high, treat the row as noise.",
    '',
  );

  const lat = results.workloads.filter((w) => w.group === 'latency').map((w) => w.id);
  if (lat.length > 0) {
    md.push('## End-to-end latency (fixed rate, send time in the record, measured at an assign() consumer)', '');
    md.push(
      table(
        ['workload', 'broker', 'p50 ms', 'p99 ms', 'p99.9 ms', 'achieved MB/s', 'CPU s/GB'],
        lat.flatMap((id) =>
          brokers.map((b) => {
            const s = get(id, b);
            return [label(id), b, fmt(s?.p50Ms), fmt(s?.p99Ms), fmt(s?.p999Ms), fmt(s?.mbPerSecond), fmt(s?.brokerCpuSecondsPerGB)];
          }),
        ),
      ),
      '',
    );
    if (pair) {
      const s = get(lat[0]!, 'sluice');
      const k = get(lat[0]!, 'kafka');
      md.push(
        `Sluice/Kafka: p50 ${ratio(s?.p50Ms, k?.p50Ms)}, p99 ${ratio(s?.p99Ms, k?.p99Ms)}, p99.9 ${ratio(s?.p999Ms, k?.p999Ms)}.`,
        '',
      );
    }
  }

  const parts = results.workloads
    .filter((w) => w.group === 'partitions' || w.id === 'p16-acks1-none')
    .sort((a, b) => a.partitions - b.partitions);
  if (parts.length > 0) {
    md.push('## Cost of partitions (1 KiB, acks=1, no compression)', '');
    md.push(
      table(
        [
          'partitions',
          `${first} MB/s`,
          'Kafka MB/s',
          'ratio',
          `${first} CPU s/GB`,
          'Kafka CPU s/GB',
          `${first} create s`,
          'Kafka create s',
          `${first} peak RSS MiB`,
          'Kafka peak RSS MiB',
        ],
        parts.map((w) => {
          const s = get(w.id, 'sluice') ?? get(w.id, 'target');
          const k = get(w.id, 'kafka');
          return [
            String(w.partitions),
            fmt(s?.mbPerSecond),
            fmt(k?.mbPerSecond),
            ratio(s?.mbPerSecond, k?.mbPerSecond),
            fmt(s?.brokerCpuSecondsPerGB),
            fmt(k?.brokerCpuSecondsPerGB),
            fmt(s?.topicCreateSeconds),
            fmt(k?.topicCreateSeconds),
            fmt(s?.brokerPeakRssMiB),
            fmt(k?.brokerPeakRssMiB),
          ];
        }),
      ),
      '',
    );
  }

  const growth = growthRuns(results.runs);
  const growthLabel = label(GROWTH_WORKLOAD_ID);
  md.push(...growthSection(growth, growthLabel));

  if (results.machine) {
    const m = results.machine;
    const best = (id: string): number | undefined => (get(id, 'sluice') ?? get(id, 'target'))?.mbPerSecond;
    md.push('## The machine in the same run', '');
    md.push(
      table(
        ['limit', 'MB/s', 'Sluice 1 KiB acks=1 produce as a fraction', 'Sluice consume as a fraction'],
        [
          [
            'loopback TCP, one stream (Java, 1 MiB writes)',
            fmt(m.loopbackMBps),
            ratio(best('p16-acks1-none'), m.loopbackMBps),
            ratio(best('consume'), m.loopbackMBps),
          ],
          ['sequential write, page cache only', fmt(m.disk.bufferedMBps), ratio(best('p16-acks1-none'), m.disk.bufferedMBps), '–'],
          [
            'sequential write + one fdatasync at the end',
            fmt(m.disk.bufferedThenSyncMBps),
            ratio(best('p16-acks1-none'), m.disk.bufferedThenSyncMBps),
            '–',
          ],
          [
            'sequential write, fdatasync every 1 MiB',
            fmt(m.disk.syncEachMiBMBps),
            ratio(best('p16-acks1-none'), m.disk.syncEachMiBMBps),
            '–',
          ],
        ],
      ),
      '',
    );
  }

  if (results.startup) {
    const st = results.startup;
    md.push('## Start-up and idle memory (empty data dir)', '');
    md.push(
      table(
        ['broker', 'start to accepting connections, s', 'idle RSS MiB'],
        [
          [
            'Sluice',
            `${fmt(median(st.sluiceStartSeconds), 2)} (median of ${st.sluiceStartSeconds.length})`,
            fmt(median(st.sluiceIdleRssMiB)),
          ],
          ['Kafka (incl. storage format, -Xms1g)', fmt(st.kafkaStartSeconds, 2), fmt(st.kafkaIdleRssMiB)],
        ],
      ),
      '',
    );
  }

  if (results.profile) {
    const p = results.profile;
    md.push(`## Sluice CPU profile, 1 KiB acks=1 produce (${fmt(p.recordsPerSecond)} rec/s under the profilers)`, '');
    md.push(
      `V8 profiles of each JS thread, counted over the same ${p.windowSeconds} s steady-state window as perf (start-up, topic creation and shutdown excluded). Idle includes a worker parked in Atomics.wait.`,
      '',
    );
    for (const t of p.threads) {
      md.push(`### ${t.thread}: busy ${fmt(t.busyMs / 1000, 1)} s, idle ${fmt(t.idleMs / 1000, 1)} s`, '');
      md.push(
        table(
          ['self time by function', 'ms', '% busy'],
          t.topFunctions.map((c) => [`\`${c.name}\``, fmt(c.ms), fmt(c.percent, 1)]),
        ),
        '',
      );
      md.push(
        table(
          ['self time by file', 'ms', '% busy'],
          t.topFiles.map((c) => [`\`${c.name}\``, fmt(c.ms), fmt(c.percent, 1)]),
        ),
        '',
      );
    }
    if (p.perf) {
      md.push(`### perf, whole process (all threads, kernel included): ~${p.perf.samples} samples over ${p.perf.seconds} s at 499 Hz`, '');
      md.push(
        table(
          ['where', '% of samples'],
          p.perf.byCategory.map((c) => [c.category, fmt(c.percent, 1)]),
        ),
        '',
      );
      md.push(
        table(
          ['top symbols', 'dso', '%'],
          p.perf.topSymbols.map((l) => [`\`${l.symbol.slice(0, 110)}\``, l.dso, fmt(l.percent, 2)]),
        ),
        '',
      );
    }
    md.push(`Raw profiles: \`${p.dir}\` (open in Chrome DevTools → Performance).`, '');
  }

  if (results.failures.length > 0) md.push('## Failures', '', ...results.failures.map((f) => `- ${f.split('\n')[0]}`), '');
  md.push(`Charts: throughput.svg, cpu-per-gb.svg, latency.svg, partitions.svg${growth.length > 0 ? ', growth.svg' : ''}.`, '');
  const markdown = md.join('\n');
  writeFileSync(join(dir, 'results.md'), markdown);
  writeCharts(dir, results, brokers, get, label, throughputIds, lat, parts);
  if (growth.length > 0) writeFileSync(join(dir, 'growth.svg'), growthChart(growth, COLORS, growthLabel));
  return markdown;
}

function writeCharts(
  dir: string,
  results: BenchResults,
  brokers: readonly BrokerName[],
  get: (w: string, b: BrokerName) => Summary | undefined,
  label: (id: string) => string,
  throughputIds: readonly string[],
  lat: readonly string[],
  parts: readonly WorkloadInfo[],
): void {
  const series = (ids: readonly string[], pick: (s: Summary) => number | null): Series[] =>
    brokers.map((b) => ({
      name: b,
      color: COLORS[b],
      values: ids.map((id) => {
        const s = get(id, b);
        return s ? pick(s) : null;
      }),
    }));
  const wrap = (text: string): string => text.replace(/, /g, '\n');
  const thr = throughputIds.filter((id) => results.workloads.find((w) => w.id === id)?.group !== 'partitions');
  writeFileSync(
    join(dir, 'throughput.svg'),
    groupedBarChart({
      title: 'Throughput (median)',
      unit: 'MB/s',
      categories: thr.map((id) => wrap(label(id))),
      series: series(thr, (s) => s.mbPerSecond),
    }),
  );
  writeFileSync(
    join(dir, 'cpu-per-gb.svg'),
    groupedBarChart({
      title: 'Broker CPU seconds per GB moved',
      unit: 'CPU s / GB',
      categories: thr.map((id) => wrap(label(id))),
      series: series(thr, (s) => s.brokerCpuSecondsPerGB),
    }),
  );
  if (lat.length > 0) {
    const id = lat[0]!;
    writeFileSync(
      join(dir, 'latency.svg'),
      groupedBarChart({
        title: `End-to-end latency: ${label(id)}`,
        unit: 'ms',
        categories: ['p50', 'p99', 'p99.9'],
        series: brokers.map((b) => {
          const s = get(id, b);
          return { name: b, color: COLORS[b], values: [s?.p50Ms ?? null, s?.p99Ms ?? null, s?.p999Ms ?? null] };
        }),
      }),
    );
  }
  if (parts.length > 0) {
    const ids = parts.map((w) => w.id);
    writeFileSync(
      join(dir, 'partitions.svg'),
      groupedBarChart({
        title: 'Produce throughput by partition count (1 KiB, acks=1)',
        unit: 'MB/s',
        categories: parts.map((w) => `${w.partitions}`),
        series: series(ids, (s) => s.mbPerSecond),
      }),
    );
  }
}
