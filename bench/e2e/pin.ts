/**
 * `--pin`: the broker under test gets one set of CPUs, the load generator another, so each
 * row measures a broker on a known number of cores and the generator cannot take the broker's
 * time. Both are started under `taskset -c`, which execs them: every thread they create (the
 * JVM's GC and network threads, Sluice's partition workers) inherits the mask, and the runtimes
 * size themselves for the CPUs they may use (Node's availableParallelism, the JVM's
 * availableProcessors).
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface PinPlan {
  readonly brokerCpus: readonly number[];
  readonly generatorCpus: readonly number[];
}

/** "0", "0-2", "0,2,4-5" → sorted CPU numbers (taskset's and /proc's list syntax). */
export function parseCpuList(list: string): number[] {
  const out = new Set<number>();
  for (const part of list.trim().split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) throw new Error(`not a CPU list: ${list}`);
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    if (hi < lo) throw new Error(`not a CPU list: ${list}`);
    for (let c = lo; c <= hi; c++) out.add(c);
  }
  return [...out].sort((a, b) => a - b);
}

export function formatCpuList(cpus: readonly number[]): string {
  return cpus.join(',');
}

/**
 * Checks a requested split against the CPUs this process may use: both sides non-empty, on
 * CPUs that exist, and disjoint (a shared CPU would let the generator take the broker's time).
 */
export function planPins(usable: readonly number[], broker: string, generator: string): PinPlan {
  const brokerCpus = parseCpuList(broker);
  const generatorCpus = parseCpuList(generator);
  const missing = [...brokerCpus, ...generatorCpus].filter((c) => !usable.includes(c));
  if (missing.length > 0) throw new Error(`--pin: CPU ${missing.join(',')} is not usable here (usable: ${formatCpuList(usable)})`);
  const shared = brokerCpus.filter((c) => generatorCpus.includes(c));
  if (shared.length > 0) throw new Error(`--pin: CPU ${shared.join(',')} is given to both the broker and the generator`);
  return { brokerCpus, generatorCpus };
}

/** The command prefix that runs a program on `cpus` only. */
export function pinLauncher(cpus: readonly number[]): string[] {
  return ['taskset', '-c', formatCpuList(cpus)];
}

/** The CPUs this process may run on (its affinity, as /proc reports it). */
export function usableCpus(pid: number | 'self' = 'self'): number[] {
  return [...(threadAffinities(pid)[0]?.cpus ?? [])];
}

export interface ThreadAffinity {
  readonly tid: number;
  readonly cpus: readonly number[];
}

/** Every thread's allowed CPUs, from /proc/<pid>/task/<tid>/status. */
export function threadAffinities(pid: number | 'self'): ThreadAffinity[] {
  const tasks = readdirSync(`/proc/${pid}/task`);
  return tasks.flatMap((tid) => {
    try {
      const m = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'));
      return m ? [{ tid: Number(tid), cpus: parseCpuList(m[1]!) }] : [];
    } catch {
      return []; // the thread ended between the listing and the read
    }
  });
}

/** Throws unless every thread of `pid` may run on exactly `cpus`: a pin that did not take is a wrong row. */
export function assertPinned(pid: number, cpus: readonly number[], what: string): number {
  const threads = threadAffinities(pid);
  const want = formatCpuList(cpus);
  const stray = threads.filter((t) => formatCpuList(t.cpus) !== want);
  if (threads.length === 0 || stray.length > 0) {
    throw new Error(
      `${what} (pid ${pid}) is not pinned to CPU ${want}: ${stray.map((t) => `thread ${t.tid} on ${formatCpuList(t.cpus)}`).join(', ') || 'no threads'}`,
    );
  }
  return threads.length;
}
