/**
 * `npm run bench`: Sluice and Apache Kafka side by side under the same Java load generators,
 * alternating broker order from one repetition to the next so drift on this shared machine
 * does not favour either. Writes bench/results/<date>/results.{json,md} and SVG charts.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../../tools/kafka/kafka-release.js';
import { externalBroker, startKafkaBroker, startSluice, type BrokerUnderTest } from './brokers.js';
import { prepareJavaTools, type JavaTools } from './java-tools.js';
import { measureDisk, measureLoopback, type MachineLimits } from './machine-limits.js';
import { GROWTH_TOPIC_PREFIX, GROWTH_WORKLOAD_ID, runGrowth } from './growth.js';
import { assertNoTopicFiles } from './log-disk.js';
import { parseOptions, type BenchOptions } from './options.js';
import { measureStartup, settledRssMiB } from './startup.js';
import { runPinnedBench } from './pinned-bench.js';
import { ensureLoadgen } from './loadgen.js';
import { soakEach, soakSection } from './soak.js';
import { profileSluiceProduce, type ProfileReport } from './profile.js';
import { writeReport, summarize, type StartupInfo, type WorkloadInfo } from './report.js';
import { buildFranzShare, runShare, SHARE_PARTITIONS, shareReport, shareWorkloadId, type ShareWorkload } from './share-workload.js';
import { runConsume, runLatency, runProduce, type Measurement, type ProduceWorkload } from './workloads.js';

const t0 = Date.now();
function log(message: string): void {
  console.error(`[bench ${((Date.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${message}`);
}

/** Partition counts at or above this get fewer records and one repetition: creating them is slow. */
const MANY_PARTITIONS = 1024;

function produceWorkloads(o: BenchOptions): ProduceWorkload[] {
  const kib = (acks: '1' | 'all', compression: 'none' | 'lz4'): ProduceWorkload => ({
    kind: 'produce',
    id: `p16-acks${acks}-${compression}`,
    label: `1 KiB, 16 p, acks=${acks}, ${compression}`,
    partitions: 16,
    recordSize: 1024,
    records: o.records1k,
    acks,
    compression,
  });
  const list = [kib('1', 'none'), kib('all', 'none'), kib('1', 'lz4'), kib('all', 'lz4')];
  list.push({
    kind: 'produce',
    id: 'p16-100b',
    label: '100 B, 16 p, acks=1, none',
    partitions: 16,
    recordSize: 100,
    records: o.records100b,
    acks: '1',
    compression: 'none',
  });
  // 16 partitions is the first workload above; the sweep reuses it.
  for (const p of o.partitionCounts.filter((n) => n !== 16)) {
    list.push({
      kind: 'produce',
      id: `partitions-${p}`,
      label: `1 KiB, ${p} p, acks=1, none`,
      partitions: p,
      recordSize: 1024,
      records: p >= MANY_PARTITIONS ? o.recordsManyPartitions : o.records1k,
      acks: '1',
      compression: 'none',
    });
  }
  return list;
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  const date = new Date().toISOString().slice(0, 10);
  const outDir = o.outDir ?? join(repoRoot(), 'bench', 'results', `${date}${o.pin ? '-pinned' : ''}${o.quick ? '-quick' : ''}`);
  rmSync(o.workDir, { recursive: true, force: true });
  mkdirSync(o.workDir, { recursive: true });
  mkdirSync(outDir, { recursive: true });
  const tools: JavaTools = await prepareJavaTools(o.workDir);
  if (o.pin) {
    await runPinnedBench(o, tools, outDir, log, t0);
    return;
  }

  log('machine limits');
  const machine: MachineLimits = { loopbackMBps: await measureLoopback(tools, o.loopbackSeconds), disk: measureDisk(o.workDir, o.diskMiB) };
  log(`loopback ${machine.loopbackMBps.toFixed(0)} MB/s, disk ${JSON.stringify(machine.disk)}`);

  const brokers: BrokerUnderTest[] = [];
  let startup: StartupInfo | null = null;
  if (o.bootstrap !== null) {
    brokers.push(externalBroker(o.bootstrap, o.pid));
  } else {
    const samples = o.brokers.includes('sluice') ? await measureStartup(o.workDir, 3, o.sluiceOverrides) : [];
    const sluiceStartup = { sluiceStartSeconds: samples.map((x) => x.startSeconds), sluiceIdleRssMiB: samples.map((x) => x.idleRssMiB) };
    if (o.brokers.includes('sluice'))
      brokers.push(
        await startSluice({ dataDir: join(o.workDir, 'sluice-data'), overrides: o.sluiceOverrides, nodeArgs: o.sluiceNodeFlags }),
      );
    let kafkaStartSeconds: number | null = null;
    let kafkaIdleRssMiB: number | null = null;
    if (o.brokers.includes('kafka')) {
      log('starting Kafka');
      const k = await startKafkaBroker(join(o.workDir, 'kafka'));
      brokers.push(k);
      kafkaStartSeconds = k.startSeconds;
      kafkaIdleRssMiB = await settledRssMiB(k);
    }
    startup = { ...sluiceStartup, kafkaStartSeconds, kafkaIdleRssMiB };
  }
  log(`brokers: ${brokers.map((b) => `${b.name}@${b.bootstrap}`).join(', ')}`);

  const runs: Measurement[] = [];
  const failures: string[] = [];
  // Even repetitions run brokers in the given order, odd ones reversed.
  const ordered = (rep: number): BrokerUnderTest[] => (rep % 2 === 0 ? brokers : [...brokers].reverse());
  const attempt = async (what: string, fn: () => Promise<Measurement | Measurement[]>): Promise<void> => {
    log(what);
    try {
      const m = await fn();
      for (const r of Array.isArray(m) ? m : [m]) {
        runs.push(r);
        log(
          `  ${r.broker} ${r.workload}: ${r.mbPerSecond.toFixed(1)} MB/s, ${Math.round(r.recordsPerSecond)} rec/s, broker CPU ${r.brokerCpuSeconds?.toFixed(1) ?? '?'} s${r.latency ? `, p50 ${r.latency.p50Ms} p99 ${r.latency.p99Ms} p99.9 ${r.latency.p999Ms} ms` : ''}${r.growth ? `, GB 1 / 2 / last ${r.growth.firstGBMBps.toFixed(1)} / ${r.growth.secondGBMBps.toFixed(1)} / ${r.growth.lastGBMBps.toFixed(1)} MB/s, last / GB 2 ${r.growth.lastToSecond.toFixed(2)}` : ''}`,
        );
      }
    } catch (e) {
      const message = `${what}: ${e instanceof Error ? e.message : String(e)}`;
      failures.push(message);
      log(`  FAILED ${message}`);
    }
  };

  const produce = produceWorkloads(o).filter((w) => o.workloads.has(w.id.startsWith('partitions-') ? 'partitions' : 'produce'));
  // Unmeasured warm-up: the JVM broker's JIT (and Sluice's) would otherwise tax whichever run comes first.
  for (const b of brokers) {
    log(`warm-up on ${b.name}`);
    await runProduce({ tools, broker: b, rep: -1, producerProps: o.producerProps }, { ...produceWorkloads(o)[0]!, records: o.records1k });
  }
  for (let rep = 0; rep < o.reps; rep++) {
    for (const w of produce) {
      if (w.partitions >= MANY_PARTITIONS && rep > 0) continue;
      for (const b of ordered(rep))
        await attempt(`rep ${rep + 1}/${o.reps} ${w.label} on ${b.name}`, () =>
          runProduce({ tools, broker: b, rep, producerProps: o.producerProps }, w),
        );
    }
  }
  if (o.workloads.has('consume')) {
    for (const b of brokers)
      await attempt(`consume from page cache on ${b.name}`, () => runConsume({ tools, broker: b, rep: 0 }, o.records1k, 1024, o.reps));
  }
  if (o.workloads.has('latency')) {
    const latency = {
      ratePerSecond: o.latencyRatePerSecond,
      recordSize: 1024,
      seconds: o.latencySeconds,
      warmupSeconds: o.latencyWarmupSeconds,
    };
    // Tails swing with other load on the machine: repeat, alternating which broker goes first.
    for (let rep = 0; rep < o.reps; rep++) {
      for (const b of ordered(rep + 1))
        await attempt(`rep ${rep + 1}/${o.reps} latency at ${o.latencyRatePerSecond} msg/s on ${b.name}`, () =>
          runLatency({ tools, broker: b, rep }, latency),
        );
    }
  }
  if (o.workloads.has('growth')) {
    const logDirs = brokers.flatMap((b) => (b.logDir === null ? [] : [b.logDir]));
    for (const b of ordered(0)) {
      await attempt(`growth to ${o.growthGB} GB on ${b.name}`, () => {
        // A failed clean-up must not leave one broker's log on disk while the next one writes its own.
        assertNoTopicFiles(logDirs, GROWTH_TOPIC_PREFIX);
        return runGrowth({ tools, broker: b, rep: 0, producerProps: o.producerProps }, o.growthGB);
      });
    }
  }
  const soak = o.workloads.has('soak')
    ? await soakEach(
        tools,
        ordered(0),
        { loadgen: ensureLoadgen(), launcher: [], minutes: o.soakMinutes, ratePerSecond: o.soakRatePerSecond, clientProps: o.clientProps },
        log,
        failures,
      )
    : [];
  const share: ShareWorkload = { records: o.shareRecords, consumerCounts: [1, 4, 16], client: 'franz' };
  if (o.workloads.has('share')) {
    buildFranzShare();
    for (const b of ordered(0))
      await attempt(`share groups, 1/4/16 consumers on ${b.name}`, () => runShare({ tools, broker: b, rep: 0 }, share));
  }
  for (const b of brokers) await b.stop();

  let profile: ProfileReport | null = null;
  if (o.profile) {
    log('profiling Sluice under 1 KiB acks=1 produce');
    try {
      // Long enough to outlast the perf window after warm-up even in --quick mode.
      profile = await profileSluiceProduce(tools, o.workDir, Math.max(2 * o.records1k, 400_000), o.quick ? 4 : 8, o.sluiceOverrides);
    } catch (e) {
      failures.push(`profile: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  const latencyMBps = (o.latencyRatePerSecond * 1024) / 1e6;
  const workloads = (
    [
      ...produce.map((w): WorkloadInfo => ({
        id: w.id,
        label: w.label,
        group: w.id.startsWith('partitions-') ? 'partitions' : 'produce',
        partitions: w.partitions,
      })),
      { id: 'consume', label: '1 KiB, 16 p, consume (page cache)', group: 'consume', partitions: 16 },
      {
        id: 'latency',
        label: `1 KiB, 16 p, ${o.latencyRatePerSecond} msg/s (${latencyMBps.toFixed(1)} MB/s), acks=all`,
        group: 'latency',
        partitions: 16,
      },
      ...share.consumerCounts.map((n): WorkloadInfo => ({
        id: shareWorkloadId(n),
        label: `1 KiB, ${SHARE_PARTITIONS} p, share group, ${n} consumer${n === 1 ? '' : 's'}`,
        group: 'share',
        partitions: SHARE_PARTITIONS,
      })),
      { id: GROWTH_WORKLOAD_ID, label: `1 KiB, 16 p, acks=1, none, log grows to ${o.growthGB} GB`, group: 'growth', partitions: 16 },
    ] satisfies WorkloadInfo[]
  ).filter((w) => o.workloads.has(w.group));
  const markdown = writeReport(outDir, {
    date: new Date().toISOString(),
    mode: o.quick ? 'quick' : 'full',
    environment: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      kafka: '4.4.0',
      producerProps: o.producerProps.join(',') || 'client defaults',
      sluiceOverrides: o.sluiceOverrides.join(',') || 'none',
      durationSeconds: Math.round((Date.now() - t0) / 1000),
    },
    workloads,
    machine,
    startup,
    summaries: summarize(runs),
    runs,
    failures,
    profile,
  });
  if (soak.length > 0) {
    writeFileSync(join(outDir, 'soak.json'), `${JSON.stringify(soak, null, 2)}\n`);
    writeFileSync(join(outDir, 'soak.md'), soakSection(soak).join('\n'));
  }
  console.log(markdown);
  if (o.workloads.has('share'))
    writeFileSync(
      join(outDir, 'share.md'),
      shareReport(
        runs.filter((r) => r.workload.startsWith('share-')),
        share,
        1,
      ),
    );
  log(`wrote ${outDir}`);
  rmSync(join(o.workDir, 'sluice-data'), { recursive: true, force: true });
  rmSync(join(o.workDir, 'kafka'), { recursive: true, force: true });
  rmSync(join(o.workDir, 'sluice-profile-data'), { recursive: true, force: true });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
