/**
 * The lean load generator (bench/e2e/loadgen/loadgen.c, on Debian's librdkafka): compiled on
 * first use into .cache/loadgen/<hash of the source>/, run as a child process, its one JSON line
 * parsed and checked. It reports its own CPU (getrusage, librdkafka's threads included), so the
 * report can put the generator's cost per GB next to the broker's.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../tools/kafka/kafka-release.js';
import { runTool, type ToolRun } from './java-tools.js';

export const COMPRESSIONS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
export type Compression = (typeof COMPRESSIONS)[number];

export interface LoadgenSummary {
  readonly mode: 'produce' | 'consume' | 'latency';
  /** Records delivered (produce), read (consume) or received by the probe's consumer (latency). */
  readonly records: number;
  /** Their payload bytes. */
  readonly bytes: number;
  readonly seconds: number;
  readonly errors: number;
  /** The generator's own user + system CPU over the timed part. */
  readonly cpuSeconds: number;
  /** Bytes librdkafka sent to and received from brokers (its statistics): shows compression and fetch overhead. */
  readonly wireTxBytes: number;
  readonly wireRxBytes: number;
  readonly latency?: LoadgenLatency;
}

export interface LoadgenLatency {
  readonly sent: number;
  readonly received: number;
  /** Records sent after the warm-up, the ones the percentiles cover. */
  readonly measured: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
}

function field(o: Record<string, unknown>, key: string, line: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`loadgen summary has no numeric ${key}: ${line}`);
  return v;
}

/** The last line of the generator's stdout, checked field by field. */
export function parseLoadgenSummary(stdout: string): LoadgenSummary {
  const line = stdout.trim().split('\n').pop() ?? '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new Error(`loadgen printed no JSON summary: ${stdout.slice(-500)}`);
  }
  if (typeof parsed !== 'object' || parsed === null) throw new Error(`loadgen summary is not an object: ${line}`);
  const o = parsed as Record<string, unknown>;
  const mode = o['mode'];
  if (mode !== 'produce' && mode !== 'consume' && mode !== 'latency') throw new Error(`loadgen summary has an unknown mode: ${line}`);
  const n = (key: string): number => field(o, key, line);
  const summary: LoadgenSummary = {
    mode,
    records: n('records'),
    bytes: n('bytes'),
    seconds: n('seconds'),
    errors: n('errors'),
    cpuSeconds: n('cpuSeconds'),
    wireTxBytes: n('wireTxBytes'),
    wireRxBytes: n('wireRxBytes'),
  };
  if (mode !== 'latency') return summary;
  return {
    ...summary,
    latency: {
      sent: n('sent'),
      received: n('received'),
      measured: n('measured'),
      p50Ms: n('p50Ms'),
      p99Ms: n('p99Ms'),
      p999Ms: n('p999Ms'),
      maxMs: n('maxMs'),
    },
  };
}

/**
 * Compiles the generator unless this version of its source is already built. The binary is
 * written under a temporary name and renamed, so a concurrent bench never runs half a file.
 */
export function ensureLoadgen(): string {
  const source = join(repoRoot(), 'bench', 'e2e', 'loadgen', 'loadgen.c');
  const hash = createHash('sha256').update(readFileSync(source)).digest('hex').slice(0, 16);
  const dir = join(repoRoot(), '.cache', 'loadgen', hash);
  const binary = join(dir, 'loadgen');
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  const partial = `${binary}.${process.pid}`;
  try {
    execFileSync('cc', ['-O2', '-Wall', '-Wextra', '-Werror', '-o', partial, source, '-lrdkafka', '-lpthread'], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  } catch (e) {
    throw new Error(
      `building the load generator failed (needs cc and librdkafka-dev: apt-get install build-essential librdkafka-dev): ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  renameSync(partial, binary);
  return binary;
}

export interface ProduceArgs {
  readonly records: number;
  readonly recordSize: number;
  readonly acks: '1' | 'all';
  readonly compression: Compression;
  readonly lingerMs: number;
  readonly batchSize: number;
}

export interface LatencyArgs {
  readonly partitions: number;
  readonly ratePerSecond: number;
  readonly recordSize: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly acks: '1' | 'all';
  readonly lingerMs: number;
  readonly batchSize: number;
}

export type LoadgenCommand =
  | ({ readonly mode: 'produce' } & ProduceArgs)
  | { readonly mode: 'consume'; readonly partitions: number; readonly records: number }
  | ({ readonly mode: 'latency' } & LatencyArgs);

/** The generator's command line for one run; `extra` are librdkafka properties, key=value. */
export function loadgenArgs(bootstrap: string, topic: string, c: LoadgenCommand, extra: readonly string[] = []): string[] {
  const common = ['--bootstrap', bootstrap, '--topic', topic];
  const sets = extra.flatMap((kv) => ['--set', kv]);
  switch (c.mode) {
    case 'produce':
      return [
        'produce',
        ...common,
        '--records',
        String(c.records),
        '--record-size',
        String(c.recordSize),
        '--acks',
        c.acks,
        '--compression',
        c.compression,
        '--linger-ms',
        String(c.lingerMs),
        '--batch-size',
        String(c.batchSize),
        ...sets,
      ];
    case 'consume':
      return ['consume', ...common, '--partitions', String(c.partitions), '--records', String(c.records), ...sets];
    case 'latency':
      return [
        'latency',
        ...common,
        '--partitions',
        String(c.partitions),
        '--rate',
        String(c.ratePerSecond),
        '--record-size',
        String(c.recordSize),
        '--seconds',
        String(c.seconds),
        '--warmup',
        String(c.warmupSeconds),
        '--acks',
        c.acks,
        '--linger-ms',
        String(c.lingerMs),
        '--batch-size',
        String(c.batchSize),
        ...sets,
      ];
  }
}

export interface LoadgenRun {
  readonly tool: ToolRun;
  readonly summary: LoadgenSummary;
}

/** Runs the generator (behind `launcher`, e.g. taskset) to its end; delivery errors fail the run. */
export async function runLoadgen(
  binary: string,
  args: readonly string[],
  launcher: readonly string[] = [],
  timeoutMs = 900_000,
): Promise<LoadgenRun> {
  const [command, ...pre] = [...launcher, binary];
  const tool = await runTool(command, [...pre, ...args], timeoutMs);
  const summary = parseLoadgenSummary(tool.stdout);
  if (summary.errors > 0) throw new Error(`loadgen ${args[0]}: ${summary.errors} records failed`);
  return { tool, summary };
}
