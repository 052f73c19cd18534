/**
 * `--workloads soak`: sustained load for `soakMinutes` per broker (the C generator's fixed-rate
 * producer and consumer, 1 KiB records, acks=all), with the broker's RSS read every minute. The
 * question is whether memory plateaus: RSS after the warm-up must stay within 10%. The topic
 * keeps at most 256 MiB per partition so the disk does not fill.
 */
import type { BrokerUnderTest, BrokerName } from './brokers.js';
import { loadgenArgs, runLoadgen } from './loadgen.js';
import { table } from './md-table.js';
import { rssMiB } from './proc-stats.js';
import type { JavaTools } from './java-tools.js';
import { createTopic, deleteTopic, freshTopic, type RunContext } from './workloads.js';

export const SOAK_PARTITIONS = 16;
const SAMPLE_EVERY_MS = 60_000;
const RETENTION_BYTES_PER_PARTITION = 256 * 1024 * 1024;
const SEGMENT_BYTES = 64 * 1024 * 1024;
/** RSS may vary this much after the warm-up and still count as flat. */
export const FLAT_WITHIN = 0.1;

export interface RssSample {
  readonly minute: number;
  readonly rssMiB: number;
}

export interface SoakResult {
  readonly broker: BrokerName;
  readonly minutes: number;
  readonly ratePerSecond: number;
  readonly samples: readonly RssSample[];
  readonly flatness: SoakFlatness | null;
  readonly achievedMBps: number;
  readonly p99Ms: number;
  readonly generatorCpuSeconds: number;
}

export interface SoakFlatness {
  /** Samples before this minute are warm-up (buffers and caches filling) and not judged. */
  readonly fromMinute: number;
  readonly minMiB: number;
  readonly maxMiB: number;
  readonly lastMiB: number;
  /** max / min - 1 over the judged samples. */
  readonly spread: number;
  readonly flat: boolean;
}

/** The warm-up is the first sixth of the soak, at least one minute and at most five. */
export function soakFlatness(samples: readonly RssSample[], minutes: number): SoakFlatness | null {
  const fromMinute = Math.min(5, Math.max(1, Math.floor(minutes / 6)));
  const judged = samples.filter((s) => s.minute >= fromMinute);
  if (judged.length < 2) return null;
  const rss = judged.map((s) => s.rssMiB);
  const minMiB = Math.min(...rss);
  const maxMiB = Math.max(...rss);
  const spread = maxMiB / minMiB - 1;
  return { fromMinute, minMiB, maxMiB, lastMiB: rss[rss.length - 1]!, spread, flat: spread <= FLAT_WITHIN };
}

export interface SoakOptions {
  readonly loadgen: string;
  /** e.g. taskset for the generator under --pin. */
  readonly launcher: readonly string[];
  readonly minutes: number;
  readonly ratePerSecond: number;
  readonly clientProps: readonly string[];
}

export async function runSoak(ctx: RunContext, so: SoakOptions): Promise<SoakResult> {
  const b: BrokerUnderTest = ctx.broker;
  if (b.pid === null) throw new Error("the soak reads the broker's RSS: give --pid with --bootstrap");
  const pid = b.pid;
  const topic = freshTopic('soak');
  await createTopic(ctx, topic, SOAK_PARTITIONS, [`retention.bytes=${RETENTION_BYTES_PER_PARTITION}`, `segment.bytes=${SEGMENT_BYTES}`]);
  const samples: RssSample[] = [{ minute: 0, rssMiB: rssMiB(pid) }];
  const started = Date.now();
  const timer = setInterval(
    () => samples.push({ minute: Math.round((Date.now() - started) / 60_000), rssMiB: rssMiB(pid) }),
    SAMPLE_EVERY_MS,
  );
  try {
    const args = loadgenArgs(
      b.bootstrap,
      topic,
      {
        mode: 'latency',
        partitions: SOAK_PARTITIONS,
        ratePerSecond: so.ratePerSecond,
        recordSize: 1024,
        seconds: so.minutes * 60,
        warmupSeconds: 0,
        acks: 'all',
        lingerMs: 1,
        batchSize: 131_072,
      },
      so.clientProps,
    );
    const { summary } = await runLoadgen(so.loadgen, args, so.launcher, (so.minutes * 60 + 300) * 1000);
    samples.push({ minute: Math.round((Date.now() - started) / 60_000), rssMiB: rssMiB(pid) });
    return {
      broker: b.name,
      minutes: so.minutes,
      ratePerSecond: so.ratePerSecond,
      samples,
      flatness: soakFlatness(samples, so.minutes),
      achievedMBps: summary.bytes / summary.seconds / 1e6,
      p99Ms: summary.latency?.p99Ms ?? NaN,
      generatorCpuSeconds: summary.cpuSeconds,
    };
  } finally {
    clearInterval(timer);
    await deleteTopic(ctx, topic);
  }
}

/** The soak on each broker in turn; a failed one goes to `failures` and the next broker still runs. */
export async function soakEach(
  tools: JavaTools,
  brokers: readonly BrokerUnderTest[],
  so: SoakOptions,
  log: (message: string) => void,
  failures: string[],
): Promise<SoakResult[]> {
  const results: SoakResult[] = [];
  for (const b of brokers) {
    log(`soak, ${so.minutes} min at ${so.ratePerSecond} msg/s on ${b.name}`);
    try {
      results.push(await runSoak({ tools, broker: b, rep: 0 }, so));
    } catch (e) {
      failures.push(`soak on ${b.name}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return results;
}

export function soakSection(results: readonly SoakResult[]): string[] {
  if (results.length === 0) return [];
  const md = [
    `## Soak: RSS under sustained load (${results[0]!.minutes} min, ${results[0]!.ratePerSecond} × 1 KiB/s produced and consumed, acks=all)`,
    '',
  ];
  md.push(
    table(
      [
        'broker',
        'achieved MB/s',
        'p99 ms',
        'judged from minute',
        'RSS min / max / last MiB',
        'spread',
        `flat within ${FLAT_WITHIN * 100}%`,
      ],
      results.map((r) => {
        const f = r.flatness;
        return [
          r.broker,
          r.achievedMBps.toFixed(1),
          r.p99Ms.toFixed(1),
          f ? String(f.fromMinute) : '–',
          f ? `${f.minMiB.toFixed(0)} / ${f.maxMiB.toFixed(0)} / ${f.lastMiB.toFixed(0)}` : '–',
          f ? `${(f.spread * 100).toFixed(1)}%` : '–',
          f ? (f.flat ? 'yes' : 'no') : '–',
        ];
      }),
    ),
    '',
  );
  md.push('RSS by minute:', '');
  md.push(
    table(
      ['minute', ...results.map((r) => `${r.broker} MiB`)],
      results[0]!.samples.map((s, i) => [String(s.minute), ...results.map((r) => r.samples[i]?.rssMiB.toFixed(0) ?? '–')]),
    ),
    '',
  );
  return md;
}
