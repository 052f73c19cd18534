/**
 * `sluice tune`: a producer batching profiler. Sweeps `batch.size` × `linger.ms` with the
 * batching producer against any Kafka-compatible broker, shows progress on stderr, writes
 * `results.json` and `report.html` (heatmaps, curves, recommendation) to `--out`, and prints the
 * recommendation. The sweep itself lives in `src/tune/`.
 */
import type { Acks } from '../../client/producer-request.js';
import { COMPRESSION_NAMES, isCompressionName, type CompressionName } from '../../client/compression-codecs.js';
import { SweepProgress } from '../../tune/progress.js';
import { recommend } from '../../tune/recommend.js';
import { writeReport } from '../../tune/report.js';
import { runSweep, type SweepSettings } from '../../tune/sweep.js';
import { OBSERVE_USAGE, runObserve } from './tune-observe.js';
import { integerOption, parseOptions, required, UsageError, withCluster, writeOut, type Command } from './command-support.js';

const USAGE = `usage: sluice tune --bootstrap-server HOST:PORT [--batch-sizes 16KiB,64KiB,256KiB,1MiB] [--linger-ms 0,1,5,10,25,50]
         [--cell-seconds 3] [--warmup-seconds 1] [--target-rate RECORDS_PER_S] [--record-size 1024]
         [--acks -1|0|1|all] [--compression ${COMPRESSION_NAMES.join('|')}] [--max-in-flight 5]
         [--topic T | --partitions 1] [--p99-bound-ms MS] [--metrics-url http://HOST:PORT/metrics] [--out DIR]
         [--repeat 1]
  runs every batch.size × linger.ms cell for --cell-seconds, flat out unless --target-rate is given;
  --repeat N runs the whole grid N times and reports each cell's medians and spread;
  sizes take B, k/KiB, m/MiB suffixes; without --topic a fresh topic is created and deleted afterwards
${OBSERVE_USAGE}`;

const OPTIONS = {
  'bootstrap-server': { type: 'string' },
  'batch-sizes': { type: 'string' },
  'linger-ms': { type: 'string' },
  'cell-seconds': { type: 'string' },
  'warmup-seconds': { type: 'string' },
  'target-rate': { type: 'string' },
  'record-size': { type: 'string' },
  acks: { type: 'string' },
  compression: { type: 'string' },
  'max-in-flight': { type: 'string' },
  topic: { type: 'string' },
  partitions: { type: 'string' },
  'p99-bound-ms': { type: 'string' },
  'metrics-url': { type: 'string' },
  out: { type: 'string' },
  repeat: { type: 'string' },
} as const;

const DEFAULT_BATCH_SIZES = '16KiB,64KiB,256KiB,1MiB';
const DEFAULT_LINGER_MS = '0,1,5,10,25,50';
/** The recommendation's throughput target: this share of the sweep's peak. */
const MIN_THROUGHPUT_FRACTION = 0.9;
/** More runs than this of every cell is a typo, not a plan: 100 × the default 24 cells of 3 s is two hours. */
const MAX_REPEAT = 100;

export interface TuneOptions {
  readonly bootstrap: string;
  readonly settings: SweepSettings;
  readonly p99BoundMs: number | null;
  /** `--out`; null: a directory named after the start time. */
  readonly out: string | null;
}

/** The command line as a sweep: every option checked, usage errors for anything wrong. */
export function parseTuneOptions(args: string[]): TuneOptions {
  const o = parseOptions(args, OPTIONS);
  const bootstrap = required(o['bootstrap-server'], 'bootstrap-server');
  const compression = o.compression ?? 'none';
  if (!isCompressionName(compression)) throw new UsageError(`--compression must be one of ${COMPRESSION_NAMES.join(', ')}, not '${compression}'`);
  if (o.topic !== undefined && o.partitions !== undefined) throw new UsageError('--partitions is for the topic tune creates; not with --topic');
  const settings: SweepSettings = {
    batchSizes: list(o['batch-sizes'] ?? DEFAULT_BATCH_SIZES, 'batch-sizes', parseByteSize),
    lingerMs: list(o['linger-ms'] ?? DEFAULT_LINGER_MS, 'linger-ms', (t) => integerOption(t, 'linger-ms', 0, 3_600_000)!),
    cellSeconds: positiveNumber(o['cell-seconds'] ?? '3', 'cell-seconds'),
    warmupSeconds: positiveNumber(o['warmup-seconds'] ?? '1', 'warmup-seconds', true),
    recordSize: integerOption(o['record-size'], 'record-size', 1, 16 * 1024 * 1024) ?? 1024,
    targetRate: o['target-rate'] === undefined ? null : positiveNumber(o['target-rate'], 'target-rate'),
    acks: (o.acks === 'all' ? -1 : (integerOption(o.acks, 'acks', -1, 1) ?? -1)) as Acks,
    compression: compression as CompressionName,
    maxInFlight: integerOption(o['max-in-flight'], 'max-in-flight', 1, 1000) ?? 5,
    topic: o.topic ?? null,
    partitions: integerOption(o.partitions, 'partitions', 1, 10_000) ?? 1,
    metricsUrl: o['metrics-url'] ?? null,
    repeat: integerOption(o.repeat, 'repeat', 1, MAX_REPEAT) ?? 1,
  };
  const p99BoundMs = o['p99-bound-ms'] === undefined ? null : positiveNumber(o['p99-bound-ms'], 'p99-bound-ms');
  return { bootstrap, settings, p99BoundMs, out: o.out ?? null };
}

async function run(args: string[]): Promise<void> {
  if (args.includes('--observe')) return runObserve(args);
  const { bootstrap, settings, p99BoundMs, out } = parseTuneOptions(args);
  const startedAt = new Date();
  const outDir = out ?? `tune-report-${startedAt.toISOString().replace(/[:.]/g, '-')}`;

  const outcome = await withCluster({ 'bootstrap-server': bootstrap }, async (cluster) => {
    const runs = settings.batchSizes.length * settings.lingerMs.length * settings.repeat;
    const progress = new SweepProgress(process.stderr, runs, settings.cellSeconds, settings.repeat > 1 ? 'runs' : 'cells');
    try {
      return await runSweep(cluster, settings, { cellStarted: (label) => progress.cellStarted(label), cellFinished: () => progress.cellFinished() });
    } finally {
      progress.finish();
    }
  });
  const recommendation = recommend(
    outcome.cells.map((c) => ({ batchSize: c.batchSize, lingerMs: c.lingerMs, recordsPerSecond: c.recordsPerSecond, p99Ms: c.latency.p99Ms, failedRecords: c.failedRecords })),
    { minThroughputFraction: MIN_THROUGHPUT_FRACTION, p99BoundMs },
  );
  const files = writeReport(outDir, {
    tool: 'sluice tune',
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    bootstrap,
    topic: outcome.topic,
    client: { name: 'sluice', version: 'BatchingProducer, TypeScript, in the tune process' },
    settings: { ...settings, p99BoundMs, minThroughputFraction: MIN_THROUGHPUT_FRACTION },
    cells: outcome.cells,
    recommendation,
    brokerMetricsNote: outcome.brokerMetricsNote,
  });
  const failed = outcome.cells.filter((c) => c.failedRecords > 0);
  for (const c of failed) process.stderr.write(`sluice tune: batch.size=${c.batchSize} linger.ms=${c.lingerMs}: ${c.failedRecords} records failed: ${c.firstError ?? ''}\n`);
  if ('missing' in files.png) process.stderr.write(`sluice tune: no report.png: ${files.png.missing}\n`);
  const png = 'png' in files.png ? `png: ${files.png.png}\n` : '';
  await writeOut(`${recommendation.text}\nreport: ${files.html}\n${png}results: ${files.json}\n`);
  if (failed.length > 0) process.exitCode = 1;
}

/** "16384", "16k", "16KiB", "1m", "1MiB" → bytes. */
export function parseByteSize(text: string): number {
  const m = /^(\d+)\s*(b|k|kb|kib|m|mb|mib)?$/i.exec(text.trim());
  if (!m) throw new UsageError(`'${text}' is not a size (bytes, or with a k/KiB/m/MiB suffix)`);
  const unit = (m[2] ?? 'b').toLowerCase();
  const bytes = Number(m[1]) * (unit.startsWith('k') ? 1024 : unit.startsWith('m') ? 1024 * 1024 : 1);
  if (bytes < 1 || bytes > 0x7fffffff) throw new UsageError(`size '${text}' is out of range`);
  return bytes;
}

function list<T>(text: string, option: string, parse: (item: string) => T): T[] {
  const items = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (items.length === 0) throw new UsageError(`--${option} needs at least one value`);
  const values = items.map(parse);
  if (new Set(values).size !== values.length) throw new UsageError(`--${option} has a value twice: '${text}'`);
  return values;
}

function positiveNumber(text: string, option: string, zeroAllowed = false): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0 || (n === 0 && !zeroAllowed)) {
    throw new UsageError(`--${option} must be a ${zeroAllowed ? 'non-negative' : 'positive'} number, not '${text}'`);
  }
  return n;
}

export const tuneCommand: Command = { usage: USAGE, run };
