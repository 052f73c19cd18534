/**
 * Command line of `npm run bench`. Full mode is sized for ~15 minutes on a 2-core machine plus
 * the growth workload (20 GB per broker, a few minutes each), --quick for ~5 minutes while
 * developing (growth: 3 GB); every size can be overridden.
 */
import { parseArgs } from 'node:util';
import { MIN_GROWTH_GB } from './growth-curve.js';
import { COMPRESSIONS, type Compression } from './loadgen.js';

export const WORKLOAD_GROUPS = ['produce', 'partitions', 'consume', 'latency', 'growth', 'share', 'soak'] as const;
export type WorkloadGroup = (typeof WORKLOAD_GROUPS)[number];
/** The soak takes half an hour per broker: it runs only when asked for. */
const DEFAULT_GROUPS: readonly WorkloadGroup[] = WORKLOAD_GROUPS.filter((g) => g !== 'soak');

export interface BenchOptions {
  readonly quick: boolean;
  /** Target an already running broker instead of spawning Sluice and Kafka. */
  readonly bootstrap: string | null;
  /** Its process id, for CPU and RSS (same machine only). */
  readonly pid: number | null;
  readonly brokers: readonly ('sluice' | 'kafka')[];
  /** Which workload groups run (default all). */
  readonly workloads: ReadonlySet<WorkloadGroup>;
  readonly reps: number;
  /** Records per run of the 1 KiB produce workloads (and the consume data set). */
  readonly records1k: number;
  readonly records100b: number;
  readonly partitionCounts: readonly number[];
  /** Records per run at the largest partition counts (≥ 1024), which take long to create. */
  readonly recordsManyPartitions: number;
  readonly latencyRatePerSecond: number;
  readonly latencySeconds: number;
  readonly latencyWarmupSeconds: number;
  /** GB (10^9 payload bytes) the growth workload writes into one topic per broker. */
  readonly growthGB: number;
  readonly diskMiB: number;
  /** 1 KiB records the share-group workload writes and then reads with 1, 4 and 16 share consumers. */
  readonly shareRecords: number;
  readonly loopbackSeconds: number;
  /** Extra `--override key=value` settings for the Sluice this run starts. */
  readonly sluiceOverrides: readonly string[];
  /** Node flags for the Sluice this run starts, besides the broker's own (e.g. --trace-gc, --min-semi-space-size=16). */
  readonly sluiceNodeFlags: readonly string[];
  /** Extra producer properties for the throughput workloads (default: the client's defaults). */
  readonly producerProps: readonly string[];
  readonly profile: boolean;
  /** --pin: brokers on pinBrokerCpus, the C load generator on pinGeneratorCpus (bench/e2e/pinned.ts). */
  readonly pin: boolean;
  readonly pinBrokerCpus: string;
  readonly pinGeneratorCpus: string;
  /** Codecs of the pinned compressed-produce rows. */
  readonly pinCompressions: readonly Compression[];
  /** 1 KiB records per second of the pinned latency row (default ~50 MB/s). */
  readonly pinLatencyRatePerSecond: number;
  /** librdkafka properties for every run of the C generator, key=value. */
  readonly clientProps: readonly string[];
  readonly soakMinutes: number;
  /** 1 KiB records per second the soak sends (and reads back). */
  readonly soakRatePerSecond: number;
  readonly workDir: string;
  readonly outDir: string | null;
}

const USAGE = `npm run bench -- [--quick] [--bootstrap HOST:PORT [--pid PID]] [--brokers sluice,kafka]
  [--workloads produce,partitions,consume,latency,growth,share] [--share-records N]
  [--reps N] [--records-1k N] [--records-100b N] [--partitions 1,16,256,4096] [--records-many N]
  [--latency-rate MSGS_PER_S] [--latency-seconds S] [--growth-gb N] [--disk-mib N] [--no-profile]
  [--producer-props batch.size=65536,linger.ms=5] [--sluice-override num.partition.workers=1,...]
  [--sluice-node-flags '--trace-gc --min-semi-space-size=16']
  [--pin [--pin-broker-cpus 0] [--pin-generator-cpus 1] [--pin-compressions lz4,gzip,snappy,zstd]
   [--pin-latency-rate MSGS_PER_S] [--client-props key=value,...]]
  [--workloads soak [--soak-minutes 30] [--soak-rate MSGS_PER_S]]
  [--work-dir DIR] [--out DIR]`;

/** "a=1,b=2" → ["a=1", "b=2"]; entries without '=' are dropped. */
function keyValues(list: string | undefined): string[] {
  return (list ?? '').split(',').filter((p) => p.includes('='));
}

export function parseOptions(argv: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: 'boolean', default: false },
      bootstrap: { type: 'string' },
      pid: { type: 'string' },
      brokers: { type: 'string', default: 'sluice,kafka' },
      workloads: { type: 'string', default: DEFAULT_GROUPS.join(',') },
      reps: { type: 'string' },
      'records-1k': { type: 'string' },
      'records-100b': { type: 'string' },
      partitions: { type: 'string' },
      'records-many': { type: 'string' },
      'latency-rate': { type: 'string' },
      'latency-seconds': { type: 'string' },
      'growth-gb': { type: 'string' },
      'disk-mib': { type: 'string' },
      'share-records': { type: 'string' },
      'producer-props': { type: 'string', default: '' },
      'sluice-override': { type: 'string', default: '' },
      'sluice-node-flags': { type: 'string', default: '' },
      'no-profile': { type: 'boolean', default: false },
      pin: { type: 'boolean', default: false },
      'pin-broker-cpus': { type: 'string', default: '0' },
      'pin-generator-cpus': { type: 'string', default: '1' },
      'pin-compressions': { type: 'string', default: 'lz4,gzip,snappy,zstd' },
      'pin-latency-rate': { type: 'string' },
      'client-props': { type: 'string', default: '' },
      'soak-minutes': { type: 'string' },
      'soak-rate': { type: 'string' },
      'work-dir': { type: 'string', default: '/tmp/sluice-bench-e2e' },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const quick = values.quick ?? false;
  const num = (v: string | undefined, full: number, quickValue: number): number => {
    if (v === undefined) return quick ? quickValue : full;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`not a positive number: ${v}\n${USAGE}`);
    return n;
  };
  // Per-GB throughput needs whole GBs, and flatness is judged from GB 2 on.
  const growthGB = (n: number): number => {
    if (!Number.isInteger(n) || n < MIN_GROWTH_GB) throw new Error(`--growth-gb must be a whole number ≥ ${MIN_GROWTH_GB}: ${n}\n${USAGE}`);
    return n;
  };
  const brokers = (values.brokers ?? '').split(',').map((b) => b.trim());
  for (const b of brokers) if (b !== 'sluice' && b !== 'kafka') throw new Error(`unknown broker ${b}\n${USAGE}`);
  const workloads = (values.workloads ?? '').split(',').map((w) => w.trim());
  for (const w of workloads)
    if (!(WORKLOAD_GROUPS as readonly string[]).includes(w)) throw new Error(`unknown workload group ${w}\n${USAGE}`);
  const bootstrap = values.bootstrap ?? null;
  const pinCompressions = (values['pin-compressions'] ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
  for (const c of pinCompressions)
    if (!(COMPRESSIONS as readonly string[]).includes(c) || c === 'none') throw new Error(`unknown compression ${c}\n${USAGE}`);
  const pin = values.pin ?? false;
  return {
    quick,
    bootstrap,
    pid: values.pid === undefined ? null : Number(values.pid),
    brokers: brokers as ('sluice' | 'kafka')[],
    workloads: new Set(workloads as WorkloadGroup[]),
    reps: num(values.reps, 3, 1),
    records1k: num(values['records-1k'], 500_000, 150_000),
    records100b: num(values['records-100b'], 2_000_000, 500_000),
    partitionCounts: (values.partitions ?? (quick ? '1,16,256' : '1,16,256,4096')).split(',').map(Number),
    recordsManyPartitions: num(values['records-many'], 100_000, 100_000),
    latencyRatePerSecond: num(values['latency-rate'], 20_000, 20_000),
    latencySeconds: num(values['latency-seconds'], 15, 10),
    latencyWarmupSeconds: quick ? 2 : 5,
    growthGB: growthGB(num(values['growth-gb'], 20, MIN_GROWTH_GB)),
    diskMiB: num(values['disk-mib'], 1024, 256),
    shareRecords: num(values['share-records'], 1_000_000, 100_000),
    loopbackSeconds: quick ? 2 : 5,
    sluiceOverrides: keyValues(values['sluice-override']),
    sluiceNodeFlags: (values['sluice-node-flags'] ?? '').split(/\s+/).filter((f) => f.startsWith('--')),
    producerProps: keyValues(values['producer-props']),
    // The profile needs a Sluice this run starts, unpinned.
    profile: !(values['no-profile'] ?? false) && !pin && bootstrap === null && brokers.includes('sluice') && workloads.includes('produce'),
    pin,
    pinBrokerCpus: values['pin-broker-cpus'] ?? '0',
    pinGeneratorCpus: values['pin-generator-cpus'] ?? '1',
    pinCompressions: pinCompressions as Compression[],
    // 48,828 × 1 KiB/s is 50 MB/s.
    pinLatencyRatePerSecond: num(values['pin-latency-rate'], 48_828, 48_828),
    clientProps: keyValues(values['client-props']),
    soakMinutes: num(values['soak-minutes'], 30, 3),
    soakRatePerSecond: num(values['soak-rate'], 20_000, 20_000),
    workDir: values['work-dir'] ?? '/tmp/sluice-bench-e2e',
    outDir: values.out ?? null,
  };
}
