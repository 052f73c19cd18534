/**
 * `sluice tune`: a producer batching profiler. Sweeps `batch.size` × `linger.ms` with the user's
 * client (Kafka's Java producer, librdkafka, or Sluice's own) against any Kafka-compatible
 * broker, shows progress on stderr, writes `results.json`, `report.html` (heatmaps, curves,
 * recommendation) and, with Chromium, `report.png` to `--out`, and prints the recommendation.
 * `--observe` watches a running producer instead (`tune-observe.ts`). The sweep itself lives in `@sluice/tune`.
 */
import { loadPropertiesFile } from '@sluice/protocol/common/properties-file.js';
import type { Acks } from '@sluice/client/producer-request.js';
import { COMPRESSION_NAMES, isCompressionName } from '@sluice/client/compression-codecs.js';
import {
  chooseClient,
  CLIENT_NAMES,
  ClientUnavailableError,
  defaultCacheDir,
  isClientName,
  type ClientName,
} from '@sluice/tune/client-drivers.js';
import { TIMESTAMP_BYTES } from '@sluice/tune/driver-protocol.js';
import { SweepProgress } from '@sluice/tune/progress.js';
import { recommendationConfidence } from '@sluice/tune/recommend-confidence.js';
import { recommend, type CellOutcome } from '@sluice/tune/recommend.js';
import { writeReport } from '@sluice/tune/report.js';
import type { RunResult } from '@sluice/tune/run-aggregate.js';
import { runSweep, type SweepSettings } from '@sluice/tune/sweep.js';
import { OBSERVE_USAGE, runObserve } from './tune-observe.js';
import { integerOption, parseOptions, required, UsageError, withCluster, writeOut, type Command } from './command-support.js';

const USAGE = `usage: sluice tune --bootstrap-server HOST:PORT [--client ${CLIENT_NAMES.join('|')}] [--producer-config FILE]
         [--kafka-clients DIR_OR_CLASSPATH] [--batch-sizes 16KiB,64KiB,256KiB,1MiB] [--linger-ms 0,1,5,10,25,50]
         [--cell-seconds 3] [--warmup-seconds 1] [--target-rate RECORDS_PER_S] [--record-size 1024]
         [--acks -1|0|1|all] [--compression ${COMPRESSION_NAMES.join('|')}] [--max-in-flight 5]
         [--topic T | --partitions 1] [--p99-bound-ms MS] [--throughput-goal RECORDS_PER_S]
         [--probe-seconds 1] [--knee-steps 3] [--no-end-to-end | --consumer-config FILE]
         [--metrics-url http://HOST:PORT/metrics] [--out DIR] [--repeat 1]
  drives the client's own producer (default: the first present of java, librdkafka, sluice) in a
  process per cell with the cell's linger.ms and batch.size over the --producer-config properties;
  at --target-rate each cell runs once at that rate, else it finds its maximum sustainable rate and
  is measured at 50% and 80% of it; latency is send→ack and produce→consume, from each record's
  intended send time (the consumer takes the producer file's security keys, --consumer-config over
  them); --repeat N runs the whole grid N times and reports medians and spread;
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
  client: { type: 'string' },
  'producer-config': { type: 'string' },
  'consumer-config': { type: 'string' },
  'kafka-clients': { type: 'string' },
  'throughput-goal': { type: 'string' },
  'probe-seconds': { type: 'string' },
  'knee-steps': { type: 'string' },
  'no-end-to-end': { type: 'boolean' },
} as const;

const DEFAULT_BATCH_SIZES = '16KiB,64KiB,256KiB,1MiB';
const DEFAULT_LINGER_MS = '0,1,5,10,25,50';
/** The recommendation's throughput target: this share of the sweep's peak. */
const MIN_THROUGHPUT_FRACTION = 0.9;
/** More runs than this of every cell is a typo, not a plan: 100 × the default 24 cells of 3 s is two hours. */
const MAX_REPEAT = 100;

/** More bisection steps than this make a cell's knee search longer than its measurements for no visible gain. */
const MAX_KNEE_STEPS = 8;

export interface TuneOptions {
  readonly bootstrap: string;
  /** `--client`; null: the first present. */
  readonly client: ClientName | null;
  readonly producerConfigFile: string | null;
  readonly kafkaClients: string | null;
  readonly settings: SweepSettings;
  readonly p99BoundMs: number | null;
  readonly throughputGoal: number | null;
  /** `--out`; null: a directory named after the start time. */
  readonly out: string | null;
}

/** The command line as a sweep: every option checked, usage errors for anything wrong. */
export function parseTuneOptions(args: string[]): TuneOptions {
  const o = parseOptions(args, OPTIONS);
  const bootstrap = required(o['bootstrap-server'], 'bootstrap-server');
  const compression = o.compression ?? 'none';
  if (!isCompressionName(compression))
    throw new UsageError(`--compression must be one of ${COMPRESSION_NAMES.join(', ')}, not '${compression}'`);
  if (o.topic !== undefined && o.partitions !== undefined)
    throw new UsageError('--partitions is for the topic tune creates; not with --topic');
  if (o.client !== undefined && !isClientName(o.client))
    throw new UsageError(`--client must be one of ${CLIENT_NAMES.join(', ')}, not '${o.client}'`);
  const producerConfigFile = o['producer-config'] ?? null;
  if (o['consumer-config'] !== undefined && o['no-end-to-end'] === true)
    throw new UsageError('--consumer-config is for the end-to-end consumer; not with --no-end-to-end');
  const settings: SweepSettings = {
    batchSizes: list(o['batch-sizes'] ?? DEFAULT_BATCH_SIZES, 'batch-sizes', parseByteSize),
    lingerMs: list(o['linger-ms'] ?? DEFAULT_LINGER_MS, 'linger-ms', (t) => integerOption(t, 'linger-ms', 0, 3_600_000)!),
    cellSeconds: positiveNumber(o['cell-seconds'] ?? '3', 'cell-seconds'),
    warmupSeconds: positiveNumber(o['warmup-seconds'] ?? '1', 'warmup-seconds', true),
    recordSize: integerOption(o['record-size'], 'record-size', TIMESTAMP_BYTES, 16 * 1024 * 1024) ?? 1024,
    targetRate: o['target-rate'] === undefined ? null : positiveNumber(o['target-rate'], 'target-rate'),
    acks: (o.acks === 'all' ? -1 : (integerOption(o.acks, 'acks', -1, 1) ?? -1)) as Acks,
    compression: compression,
    maxInFlight: integerOption(o['max-in-flight'], 'max-in-flight', 1, 1000) ?? 5,
    topic: o.topic ?? null,
    partitions: integerOption(o.partitions, 'partitions', 1, 10_000) ?? 1,
    metricsUrl: o['metrics-url'] ?? null,
    repeat: integerOption(o.repeat, 'repeat', 1, MAX_REPEAT) ?? 1,
    producerConfig: propertiesOption(producerConfigFile, 'producer-config'),
    consumerConfig: propertiesOption(o['consumer-config'] ?? null, 'consumer-config'),
    endToEnd: o['no-end-to-end'] !== true,
    probeSeconds: positiveNumber(o['probe-seconds'] ?? '1', 'probe-seconds'),
    kneeSteps: integerOption(o['knee-steps'], 'knee-steps', 0, MAX_KNEE_STEPS) ?? 3,
  };
  const p99BoundMs = o['p99-bound-ms'] === undefined ? null : positiveNumber(o['p99-bound-ms'], 'p99-bound-ms');
  const throughputGoal = o['throughput-goal'] === undefined ? null : positiveNumber(o['throughput-goal'], 'throughput-goal');
  return {
    bootstrap,
    client: o.client ?? null,
    producerConfigFile,
    kafkaClients: o['kafka-clients'] ?? null,
    settings,
    p99BoundMs,
    throughputGoal,
    out: o.out ?? null,
  };
}

/** The properties in the file an option names (none without the option), a usage error for a file that cannot be read. */
function propertiesOption(file: string | null, option: string): Map<string, string> {
  if (file === null) return new Map();
  try {
    return loadPropertiesFile(file);
  } catch (err) {
    throw new UsageError(`--${option} ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** What the recommendation weighs for a cell: its knee (or the rate it ran at) and its p99 there. */
function outcomeOf(cell: { readonly batchSize: number; readonly lingerMs: number }, run: RunResult): CellOutcome {
  return {
    batchSize: cell.batchSize,
    lingerMs: cell.lingerMs,
    recordsPerSecond: run.knee?.maxSustainableRate ?? run.recordsPerSecond,
    p99Ms: run.latency.p99Ms,
    failedRecords: run.failedRecords,
  };
}

async function run(args: string[]): Promise<void> {
  if (args.includes('--observe')) return runObserve(args);
  const options = parseTuneOptions(args);
  const { bootstrap, settings, p99BoundMs, throughputGoal, out } = options;
  const startedAt = new Date();
  const outDir = out ?? `tune-report-${startedAt.toISOString().replace(/[:.]/g, '-')}`;
  const note = (text: string): boolean => process.stderr.write(`sluice tune: ${text}\n`);
  let chosen: ReturnType<typeof chooseClient>;
  try {
    chosen = chooseClient(options.client, { kafkaClients: options.kafkaClients, cacheDir: defaultCacheDir(), note });
  } catch (err) {
    if (err instanceof ClientUnavailableError) throw new UsageError(err.message);
    throw err;
  }
  for (const skipped of chosen.skipped) note(`skipped ${skipped}`);
  note(
    `client ${chosen.driver.client}${options.client === null ? ' (the first present of java, librdkafka, sluice; choose with --client)' : ''}`,
  );

  const connect = { 'bootstrap-server': bootstrap, 'command-config': options.producerConfigFile ?? undefined };
  const outcome = await withCluster(connect, async (cluster) => {
    const runs = settings.batchSizes.length * settings.lingerMs.length * settings.repeat;
    const progress = new SweepProgress(process.stderr, runs, settings.cellSeconds, settings.repeat > 1 ? 'runs' : 'cells');
    try {
      return await runSweep(cluster, chosen.driver, bootstrap, settings, {
        cellStarted: (label) => progress.cellStarted(label),
        cellFinished: () => progress.cellFinished(),
      });
    } finally {
      progress.finish();
    }
  });
  const rule = { minThroughputFraction: MIN_THROUGHPUT_FRACTION, p99BoundMs, throughputGoal };
  const recommendation = recommend(
    outcome.cells.map((c) => outcomeOf(c, c)),
    rule,
  );
  const confidence = recommendationConfidence(
    recommendation,
    outcome.cells.map((c) => c.runs.map((r) => outcomeOf(c, r))),
    rule,
  );
  const files = writeReport(outDir, {
    tool: 'sluice tune',
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    bootstrap,
    topic: outcome.topic,
    client: { name: chosen.driver.client, version: outcome.client },
    settings: { ...settings, p99BoundMs, throughputGoal, minThroughputFraction: MIN_THROUGHPUT_FRACTION },
    cells: outcome.cells,
    recommendation,
    confidence,
    brokerMetricsNote: outcome.brokerMetricsNote,
  });
  const failed = outcome.cells.filter((c) => c.failedRecords > 0);
  for (const c of failed)
    process.stderr.write(
      `sluice tune: batch.size=${c.batchSize} linger.ms=${c.lingerMs}: ${c.failedRecords} records failed: ${c.firstError ?? ''}\n`,
    );
  if ('missing' in files.png) note(`no report.png: ${files.png.missing}`);
  const png = 'png' in files.png ? `png: ${files.png.png}\n` : '';
  await writeOut(
    `${recommendation.text}\n${confidence.text}\nclient: ${outcome.client}\nreport: ${files.html}\n${png}results: ${files.json}\n`,
  );
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
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
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
