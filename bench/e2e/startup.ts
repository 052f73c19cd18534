/**
 * Start-up time and idle memory of Sluice with an empty data dir: spawn to "accepting
 * connections" (wall time, and the CPU the process used by then, which a busy machine
 * disturbs less), then RSS and thread count once start-up garbage has settled.
 * `npm run bench:startup -- [--times 5] [--sluice-override key=value,...] [--launcher "taskset -c 0"] [--out DIR]`;
 * `npm run bench` measures the same at its start.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startSluice, type BrokerUnderTest } from './brokers.js';
import { table } from './md-table.js';
import { cpuSeconds, rssMiB } from './proc-stats.js';
import { median } from './report.js';

export interface StartupSample {
  readonly startSeconds: number;
  /** The broker process's user + system CPU at the moment it accepted connections (roughly: read just after). */
  readonly startCpuSeconds: number;
  readonly idleRssMiB: number;
  readonly threads: number;
}

const SETTLE_MS = 2000;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A just-started broker's RSS once start-up garbage has settled: its idle footprint. */
export async function settledRssMiB(b: BrokerUnderTest): Promise<number> {
  await sleep(SETTLE_MS);
  return rssMiB(b.pid!);
}

export async function measureStartup(
  workDir: string,
  times: number,
  overrides: readonly string[] = [],
  launcher: readonly string[] = [],
): Promise<StartupSample[]> {
  const out: StartupSample[] = [];
  for (let i = 0; i < times; i++) {
    const dataDir = join(workDir, `sluice-startup-${i}`);
    rmSync(dataDir, { recursive: true, force: true });
    const b = await startSluice({ dataDir, overrides, launcher });
    const startCpuSeconds = cpuSeconds(b.pid!);
    const idleRssMiB = await settledRssMiB(b);
    out.push({ startSeconds: b.startSeconds!, startCpuSeconds, idleRssMiB, threads: readdirSync(`/proc/${b.pid!}/task`).length });
    await b.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return out;
}

export function startupTable(samples: readonly StartupSample[]): string {
  const stats = (pick: (s: StartupSample) => number, digits: number): string[] => {
    const v = samples.map(pick);
    return [median(v), Math.min(...v), Math.max(...v)].map((x) => x.toFixed(digits));
  };
  return table(
    ['Sluice, empty data dir', 'median', 'min', 'max'],
    [
      ['start to accepting connections, s', ...stats((s) => s.startSeconds, 3)],
      ['CPU used by then, s', ...stats((s) => s.startCpuSeconds, 3)],
      ['idle RSS, MiB', ...stats((s) => s.idleRssMiB, 1)],
      ['threads', ...stats((s) => s.threads, 0)],
    ],
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      times: { type: 'string', default: '5' },
      'sluice-override': { type: 'string', default: '' },
      launcher: { type: 'string', default: '' },
      'work-dir': { type: 'string', default: '/tmp/sluice-bench-startup' },
      out: { type: 'string' },
    },
  });
  const times = Number(values.times);
  if (!Number.isInteger(times) || times < 1) throw new Error(`--times needs a whole number ≥ 1: ${values.times}`);
  const overrides = (values['sluice-override'] ?? '').split(',').filter((p) => p.includes('='));
  const launcher = (values.launcher ?? '').split(' ').filter((p) => p !== '');
  const workDir = values['work-dir'];
  mkdirSync(workDir, { recursive: true });
  const samples = await measureStartup(workDir, times, overrides, launcher);
  const md = [
    `# Sluice start-up and idle memory (${new Date().toISOString()})`,
    '',
    `overrides: ${overrides.join(',') || 'none'} · launcher: ${launcher.join(' ') || 'none'} · ${times} starts`,
    '',
    startupTable(samples),
    '',
  ].join('\n');
  console.log(md);
  if (values.out !== undefined) {
    mkdirSync(values.out, { recursive: true });
    writeFileSync(join(values.out, 'startup.json'), `${JSON.stringify({ overrides, launcher, samples }, null, 2)}\n`);
    writeFileSync(join(values.out, 'startup.md'), md);
  }
  rmSync(workDir, { recursive: true, force: true });
}

if (process.argv[1]?.endsWith('startup.js')) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
