/**
 * Profiles Sluice under the 1 KiB produce workload with `node --cpu-prof` (one .cpuprofile per
 * thread: the main thread and each partition worker) and reduces each profile to where the
 * busy time goes, by function and by source file. The raw profiles stay in the work directory
 * for Chrome DevTools.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { startSluice } from './brokers.js';
import { createTopic, freshTopic, producerPerformance } from './workloads.js';
import { parseProducerPerformance, type JavaTools } from './java-tools.js';
import { perfAvailable, perfMapFile, perfRecord, perfSummarize, type PerfSummary } from './perf-profile.js';

/**
 * Functions whose samples are a thread blocked, not computing: the V8 profiler samples wall
 * time, and a worker parked in Atomics.wait inside these ring and doorbell methods looks "busy" otherwise.
 */
const BLOCKED_IN = new Set(['waitForData', 'waitForRing']);

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
}
interface CpuProfile {
  /** Microseconds on CLOCK_MONOTONIC, the clock of process.hrtime in every process here. */
  readonly startTime: number;
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface CostLine {
  readonly name: string;
  readonly ms: number;
  /** Share of the thread's busy (non-idle) time. */
  readonly percent: number;
}

export interface ThreadProfile {
  readonly file: string;
  /** "main" or "worker <thread id>". */
  readonly thread: string;
  readonly busyMs: number;
  /** Idle in the event loop, or blocked in Atomics.wait (BLOCKED_IN). */
  readonly idleMs: number;
  readonly topFunctions: readonly CostLine[];
  readonly topFiles: readonly CostLine[];
}

export interface ProfileReport {
  readonly dir: string;
  readonly recordsPerSecond: number;
  readonly threads: readonly ThreadProfile[];
  /** The steady-state window both profiles cover, in seconds. */
  readonly windowSeconds: number;
  /** null where perf is missing or not permitted. */
  readonly perf: PerfSummary | null;
}

function shortUrl(url: string): string {
  if (url === '') return '(native/V8)';
  const i = url.indexOf('/dist/');
  return i >= 0 ? url.slice(i + '/dist/'.length) : url.replace(/^file:\/\//, '').replace(/^node:/, 'node:');
}

function top(map: Map<string, number>, busyMs: number, n: number): CostLine[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, ms]) => ({ name, ms, percent: (100 * ms) / busyMs }));
}

/** A time range in CLOCK_MONOTONIC microseconds. */
export interface Window {
  readonly fromUs: number;
  readonly toUs: number;
}

const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);

/**
 * Self time per function over the samples inside `window` only, so start-up, topic creation and
 * the clean-shutdown flush do not count as produce-path cost.
 */
export function summarizeProfile(path: string, window: Window): ThreadProfile {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    // timeDeltas[i] is the time since the previous sample; attribute it to sample i's node.
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    if (t >= window.fromUs && t <= window.toUs) selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  });
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let idleMs = 0;
  let busyMs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    const ms = us / 1000;
    if (frame.functionName === '(idle)' || BLOCKED_IN.has(frame.functionName)) {
      idleMs += ms;
      continue;
    }
    busyMs += ms;
    const file = shortUrl(frame.url);
    const fn = `${frame.functionName || '(anonymous)'} ${frame.url === '' ? '' : `${file}:${frame.lineNumber + 1}`}`.trim();
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
    byFile.set(file, (byFile.get(file) ?? 0) + ms);
  }
  // Node names profiles CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile; thread 0 is main.
  const threadId = basename(path).split('.')[4] ?? '?';
  return {
    file: path,
    thread: threadId === '0' ? 'main' : `worker ${threadId}`,
    busyMs,
    idleMs,
    topFunctions: top(byFunction, busyMs, 15),
    topFiles: top(byFile, busyMs, 10),
  };
}

/**
 * One Sluice under both profilers: --cpu-prof for every JS thread over the whole run, and perf
 * for `perfSeconds` after a 2 s warm-up, while ProducerPerformance writes `records` 1 KiB records.
 */
export async function profileSluiceProduce(
  tools: JavaTools,
  workDir: string,
  records: number,
  perfSeconds: number,
  overrides: readonly string[],
): Promise<ProfileReport> {
  const dir = join(workDir, 'cpu-profile');
  // Node creates the --cpu-prof dir only at exit; perf writes into it before that.
  mkdirSync(dir, { recursive: true });
  const usePerf = await perfAvailable();
  const nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...(usePerf ? ['--perf-basic-prof'] : [])];
  const broker = await startSluice({ dataDir: join(workDir, 'sluice-profile-data'), nodeArgs, overrides });
  let recordsPerSecond = 0;
  let perf: PerfSummary | null = null;
  let window: Window = { fromUs: 0, toUs: 0 };
  try {
    const ctx = { tools, broker, rep: 0 };
    const topic = freshTopic('profile');
    await createTopic(ctx, topic, 16);
    const producing = producerPerformance(ctx, topic, { records, recordSize: 1024, acks: '1', compression: 'none' });
    await new Promise((r) => setTimeout(r, 2000));
    const fromUs = nowUs();
    if (usePerf) {
      const data = join(dir, 'perf.data');
      try {
        await perfRecord(broker.pid!, perfSeconds, data);
        perf = await perfSummarize(data, perfSeconds);
      } catch (e) {
        console.error(`perf failed, continuing without it: ${e instanceof Error ? e.message : String(e)}`);
      }
    } else {
      await new Promise((r) => setTimeout(r, perfSeconds * 1000));
    }
    window = { fromUs, toUs: fromUs + perfSeconds * 1e6 };
    recordsPerSecond = parseProducerPerformance((await producing).stdout).recordsPerSecond;
  } finally {
    // Profiles are written when the broker exits cleanly.
    await broker.stop();
    rmSync(perfMapFile(broker.pid!), { force: true });
  }
  const threads = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => summarizeProfile(join(dir, f), window))
    .sort((a, b) => b.busyMs - a.busyMs);
  return { dir, recordsPerSecond, threads, windowSeconds: perfSeconds, perf };
}
