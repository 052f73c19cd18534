/**
 * `npm run bench -- --pin`: the brokers on one core, the lean C generator (loadgen.ts) on
 * another, so each row measures a broker per core rather than the client. Rows: produce 1 KiB
 * acks=1 and acks=all, 100 B, 1 KiB compressed with each codec, consume 1 KiB from page cache,
 * end-to-end latency at a fixed rate. Rounds alternate which broker goes first.
 */
import { execFileSync } from 'node:child_process';
import type { BrokerUnderTest } from './brokers.js';
import type { BenchOptions } from './options.js';
import { loadgenArgs, runLoadgen, type Compression, type LoadgenCommand, type LoadgenSummary } from './loadgen.js';
import { pinLauncher, type PinPlan } from './pin.js';
import {
  createTopic,
  deleteTopic,
  freshTopic,
  measurement,
  observe,
  type Measurement,
  type Observed,
  type RunContext,
} from './workloads.js';
import type { JavaTools } from './java-tools.js';

export const PINNED_PARTITIONS = 16;
/** The producer settings of every throughput row (the measurement the targets are stated for). */
export const PINNED_LINGER_MS = 5;
export const PINNED_BATCH_BYTES = 262_144;
/** The latency probe sends small batches quickly, as a latency-sensitive producer would. */
const LATENCY_LINGER_MS = 1;
const LATENCY_BATCH_BYTES = 131_072;

export type PinnedRow =
  | {
      readonly kind: 'produce';
      readonly id: string;
      readonly label: string;
      readonly recordSize: number;
      readonly records: number;
      readonly acks: '1' | 'all';
      readonly compression: Compression;
    }
  | { readonly kind: 'consume'; readonly id: string; readonly label: string; readonly recordSize: number; readonly records: number }
  | {
      readonly kind: 'latency';
      readonly id: string;
      readonly label: string;
      readonly recordSize: number;
      readonly ratePerSecond: number;
      readonly seconds: number;
      readonly warmupSeconds: number;
    };

export function pinnedRows(o: BenchOptions): PinnedRow[] {
  const kib = (acks: '1' | 'all', compression: Compression): PinnedRow => ({
    kind: 'produce',
    id: `pin-p1k-acks${acks}-${compression}`,
    label: `produce 1 KiB, acks=${acks}${compression === 'none' ? '' : `, ${compression}`}`,
    recordSize: 1024,
    records: o.records1k,
    acks,
    compression,
  });
  const rows: PinnedRow[] = [
    kib('1', 'none'),
    kib('all', 'none'),
    {
      kind: 'produce',
      id: 'pin-p100b-acks1-none',
      label: 'produce 100 B, acks=1',
      recordSize: 100,
      records: o.records100b,
      acks: '1',
      compression: 'none',
    },
    ...o.pinCompressions.map((c) => kib('1', c)),
  ];
  if (o.workloads.has('consume'))
    rows.push({ kind: 'consume', id: 'pin-consume-1k', label: 'consume 1 KiB (page cache)', recordSize: 1024, records: o.records1k });
  if (o.workloads.has('latency')) {
    const mbps = (o.pinLatencyRatePerSecond * 1024) / 1e6;
    rows.push({
      kind: 'latency',
      id: 'pin-latency',
      label: `end-to-end latency, 1 KiB at ${mbps.toFixed(0)} MB/s, acks=all`,
      recordSize: 1024,
      ratePerSecond: o.pinLatencyRatePerSecond,
      seconds: o.latencySeconds,
      warmupSeconds: o.latencyWarmupSeconds,
    });
  }
  return o.workloads.has('produce') ? rows : rows.filter((r) => r.kind !== 'produce');
}

/** One pinned run: a Measurement plus what the generator cost and how busy each side's cores were. */
export interface PinnedRun extends Measurement {
  readonly generatorCpuSecondsPerGB: number;
  /** Busy fraction of the generator's CPUs (everything on them, not only the generator) over the run. */
  readonly generatorCoreBusy: number;
  readonly brokerCoreBusy: number;
  /** Bytes on the wire per payload byte: below 1 when compressed, above 1 by the protocol's framing. */
  readonly wireBytesPerPayloadByte: number;
  /** The generator's core was (nearly) full: the row is judged by broker CPU per GB, not throughput. */
  readonly generatorSaturated: boolean;
}

/** A generator core busier than this limits the row. */
export const SATURATED_CORE_BUSY = 0.9;

export function coreBusy(busyByCpu: ReadonlyMap<number, number>, cpus: readonly number[], wallSeconds: number): number {
  const busy = cpus.reduce((sum, c) => sum + (busyByCpu.get(c) ?? 0), 0);
  return wallSeconds > 0 ? busy / (wallSeconds * cpus.length) : 0;
}

export function pinnedRun(ctx: RunContext, row: PinnedRow, o: Observed, s: LoadgenSummary, plan: PinPlan): PinnedRun {
  const generatorCoreBusy = coreBusy(o.busyByCpu, plan.generatorCpus, o.wallSeconds);
  const wire = s.mode === 'consume' ? s.wireRxBytes : s.wireTxBytes;
  const base = measurement(ctx, row.id, o, s.records, s.bytes, s.seconds, {
    generatorCpuSeconds: s.cpuSeconds,
    generatorCpuCores: s.seconds > 0 ? s.cpuSeconds / s.seconds : 0,
    ...(s.latency
      ? {
          latency: {
            p50Ms: s.latency.p50Ms,
            p99Ms: s.latency.p99Ms,
            p999Ms: s.latency.p999Ms,
            maxMs: s.latency.maxMs,
            sent: s.latency.sent,
            received: s.latency.received,
          },
        }
      : {}),
  });
  return {
    ...base,
    generatorCpuSecondsPerGB: s.bytes > 0 ? s.cpuSeconds / (s.bytes / 1e9) : 0,
    generatorCoreBusy,
    brokerCoreBusy: coreBusy(o.busyByCpu, plan.brokerCpus, o.wallSeconds),
    wireBytesPerPayloadByte: s.bytes > 0 ? wire / s.bytes : 0,
    generatorSaturated:
      row.kind !== 'latency' && Math.max(generatorCoreBusy, base.generatorCpuCores / plan.generatorCpus.length) >= SATURATED_CORE_BUSY,
  };
}

export interface PinnedContext {
  readonly tools: JavaTools;
  readonly loadgen: string;
  readonly plan: PinPlan;
  /** librdkafka properties added to every generator run. */
  readonly clientProps: readonly string[];
  log(message: string): void;
}

function command(row: PinnedRow): LoadgenCommand {
  switch (row.kind) {
    case 'produce':
      return {
        mode: 'produce',
        records: row.records,
        recordSize: row.recordSize,
        acks: row.acks,
        compression: row.compression,
        lingerMs: PINNED_LINGER_MS,
        batchSize: PINNED_BATCH_BYTES,
      };
    case 'consume':
      return { mode: 'consume', partitions: PINNED_PARTITIONS, records: row.records };
    case 'latency':
      return {
        mode: 'latency',
        partitions: PINNED_PARTITIONS,
        ratePerSecond: row.ratePerSecond,
        recordSize: row.recordSize,
        seconds: row.seconds,
        warmupSeconds: row.warmupSeconds,
        acks: 'all',
        lingerMs: LATENCY_LINGER_MS,
        batchSize: LATENCY_BATCH_BYTES,
      };
  }
}

async function generate(pc: PinnedContext, ctx: RunContext, row: PinnedRow, topic: string): Promise<PinnedRun> {
  let summary: LoadgenSummary | null = null;
  const o = await observe(ctx.broker, async () => {
    const r = await runLoadgen(
      pc.loadgen,
      loadgenArgs(ctx.broker.bootstrap, topic, command(row), pc.clientProps),
      pinLauncher(pc.plan.generatorCpus),
    );
    summary = r.summary;
    return r.tool;
  });
  return pinnedRun(ctx, row, o, summary!, pc.plan);
}

/** Writes the data a consume row reads, once per broker; not measured. */
async function prepareConsume(pc: PinnedContext, ctx: RunContext, row: PinnedRow & { kind: 'consume' }): Promise<string> {
  const topic = freshTopic(row.id);
  await createTopic(ctx, topic, PINNED_PARTITIONS);
  const produce: LoadgenCommand = {
    mode: 'produce',
    records: row.records,
    recordSize: row.recordSize,
    acks: '1',
    compression: 'none',
    lingerMs: PINNED_LINGER_MS,
    batchSize: PINNED_BATCH_BYTES,
  };
  await runLoadgen(pc.loadgen, loadgenArgs(ctx.broker.bootstrap, topic, produce, pc.clientProps), pinLauncher(pc.plan.generatorCpus));
  // The data stays in the page cache; written back now, so the first read does not pay for it.
  execFileSync('sync');
  return topic;
}

/**
 * Every row on every broker, `reps` rounds; even rounds take the brokers in the given order,
 * odd rounds reversed. A failed run is recorded and the others go on.
 */
export async function runPinned(
  pc: PinnedContext,
  brokers: readonly BrokerUnderTest[],
  rows: readonly PinnedRow[],
  reps: number,
  failures: string[],
): Promise<PinnedRun[]> {
  const runs: PinnedRun[] = [];
  const ctxOf = (b: BrokerUnderTest, rep: number): RunContext => ({ tools: pc.tools, broker: b, rep });
  const consumeTopics = new Map<BrokerUnderTest, string>();
  const attempt = async (what: string, fn: () => Promise<PinnedRun>): Promise<void> => {
    pc.log(what);
    try {
      const r = await fn();
      runs.push(r);
      pc.log(
        `  ${r.mbPerSecond.toFixed(1)} MB/s, ${Math.round(r.recordsPerSecond)} rec/s, broker ${r.brokerCpuSecondsPerGB?.toFixed(2) ?? '?'} CPU s/GB (core ${(r.brokerCoreBusy * 100).toFixed(0)}%), generator ${r.generatorCpuSecondsPerGB.toFixed(2)} CPU s/GB (core ${(r.generatorCoreBusy * 100).toFixed(0)}%)${r.latency ? `, p50 ${r.latency.p50Ms} p99 ${r.latency.p99Ms} p99.9 ${r.latency.p999Ms} ms` : ''}`,
      );
    } catch (e) {
      const message = `${what}: ${e instanceof Error ? e.message : String(e)}`;
      failures.push(message);
      pc.log(`  FAILED ${message}`);
    }
  };
  try {
    // Unmeasured warm-up: the JVM broker's JIT (and V8's) would otherwise tax whichever run comes first.
    const warm = rows.find((r) => r.kind === 'produce');
    for (const b of warm ? brokers : []) {
      pc.log(`warm-up on ${b.name}`);
      const topic = freshTopic('pin-warmup');
      await createTopic(ctxOf(b, -1), topic, PINNED_PARTITIONS);
      await runLoadgen(pc.loadgen, loadgenArgs(b.bootstrap, topic, command(warm!), pc.clientProps), pinLauncher(pc.plan.generatorCpus));
      await deleteTopic(ctxOf(b, -1), topic);
    }
    for (let rep = 0; rep < reps; rep++) {
      const order = rep % 2 === 0 ? brokers : [...brokers].reverse();
      for (const row of rows) {
        for (const b of order) {
          const ctx = ctxOf(b, rep);
          await attempt(`round ${rep + 1}/${reps} ${row.label} on ${b.name}`, async () => {
            if (row.kind === 'consume') {
              if (!consumeTopics.has(b)) consumeTopics.set(b, await prepareConsume(pc, ctx, row));
              return generate(pc, ctx, row, consumeTopics.get(b)!);
            }
            const topic = freshTopic(row.id);
            await createTopic(ctx, topic, PINNED_PARTITIONS);
            try {
              return await generate(pc, ctx, row, topic);
            } finally {
              await deleteTopic(ctx, topic);
            }
          });
        }
      }
    }
  } finally {
    for (const [b, topic] of consumeTopics) await deleteTopic(ctxOf(b, 0), topic);
  }
  return runs;
}
