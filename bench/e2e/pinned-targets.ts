/**
 * The per-core performance targets against Kafka, judged from one pinned run: each row says what
 * was asked, what was measured, and whether it was met. A throughput row whose generator core was
 * saturated is judged by broker CPU per GB (≤ 0.7× Kafka's) instead: the generator, not the
 * broker, set its pace.
 */
import type { PinnedSummary } from './pinned-report.js';
import type { SoakResult } from './soak.js';
import type { StartupSample } from './startup.js';
import { median } from './report.js';

export interface TargetVerdict {
  readonly target: string;
  readonly measured: string;
  /** null when the run did not measure it. */
  readonly met: boolean | null;
}

export interface TargetInputs {
  readonly summaries: readonly PinnedSummary[];
  readonly startup: readonly StartupSample[];
  readonly soak: readonly SoakResult[];
}

/** Broker CPU per GB a saturated-generator row (and every produce row) must stay under, as a share of Kafka's. */
export const CPU_SHARE_OF_KAFKA = 0.7;
const IDLE_RSS_MIB = 60;
const START_SECONDS = 0.2;
const SOAK_RSS_SHARE_OF_KAFKA = 0.25;

const x = (v: number): string => `${v.toFixed(2)}×`;

export function judgeTargets(inputs: TargetInputs): TargetVerdict[] {
  const get = (w: string, b: 'sluice' | 'kafka'): PinnedSummary | undefined =>
    inputs.summaries.find((s) => s.workload === w && s.broker === b);
  const pair = (w: string): { s: PinnedSummary; k: PinnedSummary } | null => {
    const s = get(w, 'sluice');
    const k = get(w, 'kafka');
    return s && k ? { s, k } : null;
  };
  const cpuRatio = (p: { s: PinnedSummary; k: PinnedSummary }): number | null =>
    p.s.brokerCpuSecondsPerGB && p.k.brokerCpuSecondsPerGB ? p.s.brokerCpuSecondsPerGB.median / p.k.brokerCpuSecondsPerGB.median : null;
  const out: TargetVerdict[] = [];

  /** Throughput ≥ `goal`× Kafka, or broker CPU ≤ 0.7× Kafka's where the generator set the pace. */
  const speed = (w: string, label: string, goal: number, by: 'bytes' | 'records'): void => {
    const p = pair(w);
    if (p === null) return;
    if (p.s.generatorSaturated || p.k.generatorSaturated) {
      const c = cpuRatio(p);
      out.push({
        target: `${label}: ≥ ${goal}× Kafka (generator-bound: broker CPU/GB ≤ ${CPU_SHARE_OF_KAFKA}× Kafka's)`,
        measured: c === null ? '–' : `CPU/GB ${x(c)}`,
        met: c === null ? null : c <= CPU_SHARE_OF_KAFKA,
      });
      return;
    }
    const r = by === 'bytes' ? p.s.mbPerSecond.median / p.k.mbPerSecond.median : p.s.recordsPerSecond / p.k.recordsPerSecond;
    out.push({ target: `${label}: ≥ ${goal}× Kafka${by === 'records' ? ' records/s' : ''}`, measured: x(r), met: r >= goal });
  };

  speed('pin-consume-1k', 'consume 1 KiB', 1.5, 'bytes');
  const consume = pair('pin-consume-1k');
  if (consume) {
    const r = consume.s.generatorCpuSecondsPerGB / consume.k.generatorCpuSecondsPerGB;
    out.push({
      target: 'consumer CPU/GB reading from Sluice ≤ from Kafka',
      measured: `${consume.s.generatorCpuSecondsPerGB.toFixed(2)} / ${consume.k.generatorCpuSecondsPerGB.toFixed(2)} s/GB (${x(r)})`,
      met: r <= 1,
    });
  }
  for (const codec of ['lz4', 'gzip', 'snappy', 'zstd']) speed(`pin-p1k-acks1-${codec}`, `produce 1 KiB ${codec}`, 1.3, 'bytes');
  speed('pin-p1k-acks1-none', 'produce 1 KiB acks=1', 1.5, 'bytes');
  speed('pin-p1k-acksall-none', 'produce 1 KiB acks=all', 1.5, 'bytes');
  speed('pin-p100b-acks1-none', 'produce 100 B', 1.5, 'records');
  for (const [w, label] of [
    ['pin-p1k-acks1-none', '1 KiB acks=1'],
    ['pin-p1k-acksall-none', '1 KiB acks=all'],
    ['pin-p100b-acks1-none', '100 B'],
  ] as const) {
    const p = pair(w);
    const c = p === null ? null : cpuRatio(p);
    if (c !== null)
      out.push({
        target: `produce ${label}: broker CPU/GB ≤ ${CPU_SHARE_OF_KAFKA}× Kafka's`,
        measured: x(c),
        met: c <= CPU_SHARE_OF_KAFKA,
      });
  }
  const lat = pair('pin-latency');
  if (lat?.s.p99Ms && lat.k.p99Ms) {
    const r = lat.s.p99Ms.median / lat.k.p99Ms.median;
    out.push({
      target: 'end-to-end p99 ≤ 0.5× Kafka',
      measured: `${lat.s.p99Ms.median.toFixed(1)} / ${lat.k.p99Ms.median.toFixed(1)} ms (${x(r)})`,
      met: r <= 0.5,
    });
  }
  if (inputs.startup.length > 0) {
    const idle = median(inputs.startup.map((s) => s.idleRssMiB));
    const start = median(inputs.startup.map((s) => s.startSeconds));
    out.push({ target: `idle RSS ≤ ${IDLE_RSS_MIB} MiB`, measured: `${idle.toFixed(1)} MiB`, met: idle <= IDLE_RSS_MIB });
    out.push({
      target: `start to accepting connections ≤ ${START_SECONDS * 1000} ms`,
      measured: `${Math.round(start * 1000)} ms`,
      met: start <= START_SECONDS,
    });
  }
  const soakS = inputs.soak.find((s) => s.broker === 'sluice');
  const soakK = inputs.soak.find((s) => s.broker === 'kafka');
  if (soakS?.flatness) {
    out.push({
      target: 'RSS under sustained load flat within 10%',
      measured: `${(soakS.flatness.spread * 100).toFixed(1)}% (${soakS.flatness.minMiB.toFixed(0)}–${soakS.flatness.maxMiB.toFixed(0)} MiB)`,
      met: soakS.flatness.flat,
    });
    if (soakK?.flatness) {
      const r = soakS.flatness.maxMiB / soakK.flatness.maxMiB;
      out.push({
        target: `RSS under sustained load ≤ ${SOAK_RSS_SHARE_OF_KAFKA}× Kafka's`,
        measured: `${soakS.flatness.maxMiB.toFixed(0)} / ${soakK.flatness.maxMiB.toFixed(0)} MiB (${x(r)})`,
        met: r <= SOAK_RSS_SHARE_OF_KAFKA,
      });
    }
  }
  return out;
}
