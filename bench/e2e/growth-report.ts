/**
 * The growth workload's part of results.md and its chart: throughput in the first, second and
 * last GB of a log growing to N GB, the ratio against the flat target, and the whole curve.
 */
import type { BrokerName } from './brokers.js';
import { BYTES_PER_GB, FLAT_RATIO, type GrowthCurve } from './growth-curve.js';
import { table } from './md-table.js';
import { lineChart } from './svg.js';
import type { Measurement } from './workloads.js';

export interface GrowthRun {
  readonly broker: BrokerName;
  readonly run: Measurement;
  readonly curve: GrowthCurve;
}

export function growthRuns(runs: readonly Measurement[]): GrowthRun[] {
  return runs.flatMap((run) => (run.growth === undefined ? [] : [{ broker: run.broker, run, curve: run.growth }]));
}

const mbps = (v: number): string => v.toFixed(1);

/** Markdown lines of the section; empty when the workload did not run. */
export function growthSection(growth: readonly GrowthRun[], label: string): string[] {
  if (growth.length === 0) return [];
  const md: string[] = [`## Cost as the log grows (${label})`, ''];
  md.push(
    `One run per broker, one topic growing without retention; MB/s from ProducerPerformance's 1 s windows, split at each GB (10^9 payload bytes) written. GB 1 includes the fresh generator JVM's warm-up, so flatness is judged from GB 2 (the log holding 1 to 2 GB) to the last: flat means last / GB 2 ≥ ${FLAT_RATIO}.`,
    '',
  );
  md.push(
    table(
      [
        'broker',
        'GB 1 MB/s',
        'GB 2 MB/s',
        'last GB MB/s',
        'last / GB 2',
        'flat',
        'last / GB 1',
        'whole run MB/s',
        'log on disk GB',
        'CPU s/GB',
        'peak RSS MiB',
        'other load cores',
      ],
      growth.map(({ broker, run, curve }) => [
        broker,
        mbps(curve.firstGBMBps),
        mbps(curve.secondGBMBps),
        mbps(curve.lastGBMBps),
        curve.lastToSecond.toFixed(2),
        curve.lastToSecond >= FLAT_RATIO ? 'yes' : 'no',
        curve.lastToFirst.toFixed(2),
        mbps(run.mbPerSecond),
        curve.logBytesOnDisk === null ? '–' : (curve.logBytesOnDisk / BYTES_PER_GB).toFixed(2),
        run.brokerCpuSecondsPerGB === null ? '–' : run.brokerCpuSecondsPerGB.toFixed(2),
        run.brokerPeakRssMiB === null ? '–' : run.brokerPeakRssMiB.toFixed(0),
        run.otherCpuCores.toFixed(2),
      ]),
    ),
    '',
  );
  const gbs = Math.max(...growth.map((g) => g.curve.gb));
  md.push(
    table(
      ['GB', ...growth.map((g) => `${g.broker} MB/s`)],
      Array.from({ length: gbs }, (_, i) => [
        String(i + 1),
        ...growth.map((g) => {
          const v = g.curve.mbPerSecondByGB[i];
          return v === undefined ? '–' : mbps(v);
        }),
      ]),
    ),
    '',
  );
  return md;
}

export function growthChart(growth: readonly GrowthRun[], colors: Readonly<Record<BrokerName, string>>, label: string): string {
  return lineChart({
    title: `Throughput as the log grows (${label})`,
    xUnit: 'GB written (each point: throughput within the GB ending there)',
    yUnit: 'MB/s',
    series: growth.map((g) => ({
      name: g.broker,
      color: colors[g.broker],
      points: g.curve.mbPerSecondByGB.map((v, i): [number, number] => [i + 1, v]),
    })),
  });
}
