/**
 * One measured run of one workload against one broker: create a fresh topic, run the load
 * generator, read the broker's CPU and peak RSS around it, delete the topic (so a long run does
 * not fill the disk and every run starts from the same state).
 */
import { execFileSync } from 'node:child_process';
import type { BrokerName, BrokerUnderTest } from './brokers.js';
import type { GrowthCurve } from './growth-curve.js';
import { SEGMENT_BYTES } from './brokers.js';
import { lastJson, parseProducerPerformance, runJava, type JavaTools, type ToolRun } from './java-tools.js';
import { loadavg } from 'node:os';
import { cpuBusy, cpuSeconds, peakRssMiB, resetPeakRss } from './proc-stats.js';

export interface ProduceWorkload {
  readonly kind: 'produce';
  readonly id: string;
  readonly label: string;
  readonly partitions: number;
  readonly recordSize: number;
  readonly records: number;
  readonly acks: '1' | 'all';
  readonly compression: 'none' | 'lz4';
}

export interface LatencyResult {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
  readonly sent: number;
  readonly received: number;
}

export interface Measurement {
  readonly workload: string;
  readonly broker: BrokerName;
  readonly rep: number;
  readonly records: number;
  /** Payload bytes moved (uncompressed record values). */
  readonly bytes: number;
  readonly seconds: number;
  readonly recordsPerSecond: number;
  /** 10^6 bytes per second. */
  readonly mbPerSecond: number;
  readonly brokerCpuSeconds: number | null;
  readonly brokerCpuSecondsPerGB: number | null;
  readonly brokerPeakRssMiB: number | null;
  readonly generatorCpuSeconds: number;
  /** Generator CPU seconds per wall second, JVM start included: 2 would be both cores. */
  readonly generatorCpuCores: number;
  /** CPU cores used by everything else on the machine during the run (other engineers' work). */
  readonly otherCpuCores: number;
  readonly loadAverage1m: number;
  readonly topicCreateSeconds?: number;
  readonly producerAvgLatencyMs?: number;
  readonly latency?: LatencyResult;
  readonly growth?: GrowthCurve;
}

export interface RunContext {
  readonly tools: JavaTools;
  readonly broker: BrokerUnderTest;
  readonly rep: number;
  /** key=value producer settings added to ProducerPerformance's. */
  readonly producerProps?: readonly string[];
}

let topicSerial = 0;
export function freshTopic(id: string): string {
  topicSerial += 1;
  return `bench-${id}-${process.pid}-${topicSerial}`;
}

/** `configs`: topic-level settings beyond the segment size, key=value. */
export async function createTopic(ctx: RunContext, topic: string, partitions: number, configs: readonly string[] = []): Promise<number> {
  const r = lastJson<{ createSeconds: number }>(
    await runJava(ctx.tools, 'BenchTool', ['create', ctx.broker.bootstrap, topic, String(partitions), String(SEGMENT_BYTES), ...configs]),
  );
  return r.createSeconds;
}

export async function deleteTopic(ctx: RunContext, topic: string): Promise<void> {
  await runJava(ctx.tools, 'BenchTool', ['delete', ctx.broker.bootstrap, topic]);
}

export interface Observed {
  readonly run: ToolRun;
  readonly brokerCpuSeconds: number | null;
  readonly brokerPeakRssMiB: number | null;
  readonly machineBusySeconds: number;
  /** Busy seconds of each CPU during the run (its core's utilisation, under --pin). */
  readonly busyByCpu: ReadonlyMap<number, number>;
  readonly wallSeconds: number;
}

/**
 * Runs the generator with the broker's CPU read before and after. Dirty pages left by the
 * previous run are written back first (sync), so one broker does not pay for the other's writes.
 */
export async function observe(broker: BrokerUnderTest, generate: () => Promise<ToolRun>): Promise<Observed> {
  execFileSync('sync');
  const pid = broker.pid;
  if (pid !== null) resetPeakRss(pid);
  const before = pid === null ? 0 : cpuSeconds(pid);
  const busyBefore = cpuBusy();
  const started = process.hrtime.bigint();
  const run = await generate();
  const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const busyAfter = cpuBusy();
  const busy = busyAfter.machine - busyBefore.machine;
  const busyByCpu = new Map([...busyAfter.byCpu].map(([cpu, s]) => [cpu, s - (busyBefore.byCpu.get(cpu) ?? 0)]));
  if (pid === null) return { run, brokerCpuSeconds: null, brokerPeakRssMiB: null, machineBusySeconds: busy, busyByCpu, wallSeconds };
  return {
    run,
    brokerCpuSeconds: cpuSeconds(pid) - before,
    brokerPeakRssMiB: peakRssMiB(pid),
    machineBusySeconds: busy,
    busyByCpu,
    wallSeconds,
  };
}

export function measurement(
  ctx: RunContext,
  workload: string,
  o: Observed,
  records: number,
  bytes: number,
  seconds: number,
  extra: Partial<Measurement> = {},
): Measurement {
  return {
    workload,
    broker: ctx.broker.name,
    rep: ctx.rep,
    records,
    bytes,
    seconds,
    recordsPerSecond: records / seconds,
    mbPerSecond: bytes / seconds / 1e6,
    brokerCpuSeconds: o.brokerCpuSeconds,
    brokerCpuSecondsPerGB: o.brokerCpuSeconds === null ? null : o.brokerCpuSeconds / (bytes / 1e9),
    brokerPeakRssMiB: o.brokerPeakRssMiB,
    generatorCpuSeconds: o.run.generatorCpuSeconds,
    generatorCpuCores: o.run.generatorCpuSeconds / o.wallSeconds,
    otherCpuCores: Math.max(0, o.machineBusySeconds - (o.brokerCpuSeconds ?? 0) - o.run.generatorCpuSeconds) / o.wallSeconds,
    loadAverage1m: loadavg()[0] ?? 0,
    ...extra,
  };
}

export interface ProducerPerformanceOptions {
  /** Period of ProducerPerformance's window lines (its default is 5,000 ms). */
  readonly reportingIntervalMs?: number;
  /** Kill the generator after this long (runJava's default otherwise). */
  readonly timeoutMs?: number;
}

export function producerPerformance(
  ctx: RunContext,
  topic: string,
  w: Omit<ProduceWorkload, 'kind' | 'id' | 'label' | 'partitions'>,
  opts: ProducerPerformanceOptions = {},
): Promise<ToolRun> {
  return runJava(
    ctx.tools,
    'org.apache.kafka.tools.ProducerPerformance',
    [
      '--topic',
      topic,
      '--num-records',
      String(w.records),
      '--record-size',
      String(w.recordSize),
      '--throughput',
      '-1',
      ...(opts.reportingIntervalMs === undefined ? [] : ['--reporting-interval', String(opts.reportingIntervalMs)]),
      // One --command-property with several values: repeating the flag keeps only the last.
      '--command-property',
      `bootstrap.servers=${ctx.broker.bootstrap}`,
      `acks=${w.acks}`,
      `compression.type=${w.compression}`,
      ...(ctx.producerProps ?? []),
    ],
    opts.timeoutMs,
  );
}

export async function runProduce(ctx: RunContext, w: ProduceWorkload): Promise<Measurement> {
  const topic = freshTopic(w.id);
  const topicCreateSeconds = await createTopic(ctx, topic, w.partitions);
  try {
    const o = await observe(ctx.broker, () => producerPerformance(ctx, topic, w));
    const p = parseProducerPerformance(o.run.stdout);
    const seconds = p.records / p.recordsPerSecond;
    return measurement(ctx, w.id, o, p.records, p.records * w.recordSize, seconds, {
      topicCreateSeconds,
      producerAvgLatencyMs: p.avgLatencyMs,
    });
  } finally {
    await deleteTopic(ctx, topic);
  }
}

/**
 * Consume from page cache: the topic is written once (not measured), then read back `reads`
 * times from the beginning by the assign() consumer; the data is still in the page cache.
 */
export async function runConsume(ctx: RunContext, records: number, recordSize: number, reads: number): Promise<Measurement[]> {
  const topic = freshTopic('consume');
  await createTopic(ctx, topic, 16);
  try {
    await producerPerformance(ctx, topic, { records, recordSize, acks: '1', compression: 'none' });
    const out: Measurement[] = [];
    for (let i = 0; i < reads; i++) {
      const o = await observe(ctx.broker, () => runJava(ctx.tools, 'BenchTool', ['consume', ctx.broker.bootstrap, topic]));
      const r = lastJson<{ records: number; bytes: number; seconds: number }>(o.run);
      out.push(measurement({ ...ctx, rep: i }, 'consume', o, r.records, r.bytes, r.seconds));
    }
    return out;
  } finally {
    await deleteTopic(ctx, topic);
  }
}

export interface LatencyWorkload {
  readonly ratePerSecond: number;
  readonly recordSize: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
}

export async function runLatency(ctx: RunContext, w: LatencyWorkload): Promise<Measurement> {
  const topic = freshTopic('latency');
  await createTopic(ctx, topic, 16);
  try {
    const o = await observe(ctx.broker, () =>
      runJava(ctx.tools, 'BenchTool', [
        'latency',
        ctx.broker.bootstrap,
        topic,
        String(w.ratePerSecond),
        String(w.recordSize),
        String(w.seconds),
        String(w.warmupSeconds),
      ]),
    );
    const r = lastJson<LatencyResult & { seconds: number }>(o.run);
    const latency: LatencyResult = { p50Ms: r.p50Ms, p99Ms: r.p99Ms, p999Ms: r.p999Ms, maxMs: r.maxMs, sent: r.sent, received: r.received };
    return measurement(ctx, 'latency', o, r.received, r.received * w.recordSize, r.seconds, { latency });
  } finally {
    await deleteTopic(ctx, topic);
  }
}
