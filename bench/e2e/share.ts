/**
 * `npm run bench:share`: share-group consumption (KIP-932), Sluice and Apache Kafka 4.4 side by
 * side, alternating broker order from one repetition to the next (see share-workload.ts).
 * Writes bench/results/<date>-share/results.{json,md}.
 *
 * Options: --records N (default 1000000), --consumers 1,4,16, --client franz|java (default franz),
 * --reps N (default 1), --brokers sluice,kafka, --cpu-prof (Sluice under `node --cpu-prof`, the
 * profiles summarized into the output directory), --out DIR.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../../tools/kafka/kafka-release.js';
import { startKafkaBroker, startSluice } from './brokers.js';
import { prepareJavaTools } from './java-tools.js';
import { summarizeProfile } from './profile.js';
import { buildFranzShare, runShare, shareReport, type ShareClient, type ShareWorkload } from './share-workload.js';
import type { Measurement } from './workloads.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string' },
    consumers: { type: 'string' },
    client: { type: 'string' },
    reps: { type: 'string' },
    brokers: { type: 'string' },
    'cpu-prof': { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
const client = (values.client ?? 'franz') as ShareClient;
if (client !== 'franz' && client !== 'java') throw new Error(`--client franz|java, not ${client}`);
const workload: ShareWorkload = {
  records: Number(values.records ?? 1_000_000),
  consumerCounts: (values.consumers ?? '1,4,16').split(',').map(Number),
  client,
};
const reps = Number(values.reps ?? 1);
const brokerNames = (values.brokers ?? 'sluice,kafka').split(',') as Array<'sluice' | 'kafka'>;
const cpuProf = values['cpu-prof'] ?? false;
const outDir = values.out ?? join(repoRoot(), 'bench', 'results', `${new Date().toISOString().slice(0, 10)}-share`);
const workDir = '/tmp/sluice-bench-share';

function log(message: string): void {
  console.error(`[bench:share] ${message}`);
}

async function main(): Promise<void> {
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  mkdirSync(outDir, { recursive: true });
  const tools = await prepareJavaTools(workDir);
  if (client === 'franz') buildFranzShare();
  const profileDir = join(workDir, 'cpu-profile');
  const runs: Measurement[] = [];
  // The profile covers the share reads only, not the produce before them.
  const consumeWindow = { fromUs: Number.MAX_SAFE_INTEGER, toUs: 0 };
  const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);
  for (let rep = 0; rep < reps; rep++) {
    for (const name of rep % 2 === 0 ? brokerNames : [...brokerNames].reverse()) {
      const dataDir = join(workDir, `${name}-${rep}`);
      const broker =
        name === 'sluice'
          ? await startSluice({ dataDir, nodeArgs: cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [] })
          : await startKafkaBroker(dataDir);
      try {
        await runShare({ tools, broker, rep }, workload, (m) => {
          runs.push(m);
          consumeWindow.fromUs = Math.min(consumeWindow.fromUs, nowUs() - m.seconds * 1e6);
          consumeWindow.toUs = nowUs();
          log(
            `${name} rep ${rep} ${m.workload}: ${Math.round(m.recordsPerSecond)} rec/s, ${m.mbPerSecond.toFixed(1)} MB/s, broker ${m.brokerCpuSecondsPerGB?.toFixed(2)} CPU s/GB, consumer ${m.generatorCpuSeconds.toFixed(1)} CPU s`,
          );
        });
      } finally {
        await broker.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  }
  writeFileSync(join(outDir, 'results.json'), JSON.stringify({ ...workload, reps, measurements: runs }, null, 2) + '\n');
  const md = shareReport(runs, workload, reps);
  writeFileSync(join(outDir, 'results.md'), md);
  console.log(md);
  if (cpuProf) {
    const threads = readdirSync(profileDir)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => summarizeProfile(join(profileDir, f), consumeWindow));
    writeFileSync(join(outDir, 'profile.json'), JSON.stringify(threads, null, 2) + '\n');
    for (const t of threads)
      log(
        `${t.thread}: busy ${t.busyMs.toFixed(0)} ms\n${t.topFunctions.map((f) => `  ${f.ms.toFixed(0).padStart(6)} ms ${f.percent.toFixed(1).padStart(5)}% ${f.name}`).join('\n')}`,
      );
  }
}

await main();
