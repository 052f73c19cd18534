/**
 * The `--pin` run from start to report: plan the CPUs, build the generator, measure Sluice's
 * start-up pinned, start both brokers under taskset and check every thread took the pin, run the
 * rows (pinned.ts) and the soak if asked, write bench/results/<date>-pinned[-quick]/.
 */
import { rmSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { externalBroker, startKafkaBroker, startSluice, type BrokerName, type BrokerUnderTest } from './brokers.js';
import type { JavaTools } from './java-tools.js';
import { ensureLoadgen } from './loadgen.js';
import type { BenchOptions } from './options.js';
import { assertPinned, pinLauncher, planPins, usableCpus } from './pin.js';
import { pinnedRows, runPinned, type PinnedRun } from './pinned.js';
import { summarizePinned, writePinnedReport } from './pinned-report.js';
import { soakEach, type SoakResult } from './soak.js';
import { measureStartup, settledRssMiB, type StartupSample } from './startup.js';

export async function runPinnedBench(
  o: BenchOptions,
  tools: JavaTools,
  outDir: string,
  log: (m: string) => void,
  t0: number,
): Promise<void> {
  const plan = planPins(usableCpus(), o.pinBrokerCpus, o.pinGeneratorCpus);
  const brokerLauncher = pinLauncher(plan.brokerCpus);
  const loadgen = ensureLoadgen();
  log(`pinned: brokers on CPU ${plan.brokerCpus.join(',')}, generator (${loadgen}) on CPU ${plan.generatorCpus.join(',')}`);

  const brokers: BrokerUnderTest[] = [];
  const pinnedThreads: Partial<Record<BrokerName, number>> = {};
  let startup: StartupSample[] = [];
  let kafkaStart: { startSeconds: number; idleRssMiB: number } | null = null;
  const failures: string[] = [];
  let soak: SoakResult[] = [];
  const rows = pinnedRows(o);
  let runs: PinnedRun[] = [];
  try {
    if (o.bootstrap !== null) {
      brokers.push(externalBroker(o.bootstrap, o.pid));
    } else {
      if (o.brokers.includes('sluice')) {
        log('Sluice start-up and idle memory, pinned');
        startup = await measureStartup(o.workDir, 3, o.sluiceOverrides, brokerLauncher);
        const s = await startSluice({
          dataDir: join(o.workDir, 'sluice-data'),
          overrides: o.sluiceOverrides,
          nodeArgs: o.sluiceNodeFlags,
          launcher: brokerLauncher,
        });
        brokers.push(s);
      }
      if (o.brokers.includes('kafka')) {
        log('starting Kafka, pinned');
        const k = await startKafkaBroker(join(o.workDir, 'kafka'), brokerLauncher);
        brokers.push(k);
        kafkaStart = { startSeconds: k.startSeconds!, idleRssMiB: await settledRssMiB(k) };
      }
      for (const b of brokers) pinnedThreads[b.name] = assertPinned(b.pid!, plan.brokerCpus, b.name);
    }
    log(`brokers: ${brokers.map((b) => `${b.name}@${b.bootstrap}`).join(', ')}`);
    runs = await runPinned({ tools, loadgen, plan, clientProps: o.clientProps, log }, brokers, rows, o.reps, failures);
    if (o.workloads.has('soak')) {
      soak = await soakEach(
        tools,
        brokers,
        {
          loadgen,
          launcher: pinLauncher(plan.generatorCpus),
          minutes: o.soakMinutes,
          ratePerSecond: o.soakRatePerSecond,
          clientProps: o.clientProps,
        },
        log,
        failures,
      );
    }
  } finally {
    for (const b of brokers) await b.stop();
  }
  const markdown = writePinnedReport(outDir, {
    date: new Date().toISOString(),
    mode: o.quick ? 'pinned-quick' : 'pinned',
    environment: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      kafka: '4.4.0 (1 GiB heap)',
      generator: 'bench/e2e/loadgen/loadgen.c on librdkafka 2.0.2',
      rounds: o.reps,
      clientProps: o.clientProps.join(',') || 'none',
      sluiceOverrides: o.sluiceOverrides.join(',') || 'none',
      sluiceNodeFlags: o.sluiceNodeFlags.join(' ') || 'none',
      durationSeconds: Math.round((Date.now() - t0) / 1000),
    },
    plan,
    pinnedThreads,
    rows,
    summaries: summarizePinned(runs),
    runs,
    startup,
    kafkaStart,
    soak,
    failures,
  });
  console.log(markdown);
  log(`wrote ${outDir}`);
  rmSync(join(o.workDir, 'sluice-data'), { recursive: true, force: true });
  rmSync(join(o.workDir, 'kafka'), { recursive: true, force: true });
}
