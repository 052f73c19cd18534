/**
 * Per-process CPU and memory from /proc, so broker cost is measured from outside the broker and
 * the same way for Node and the JVM. A process's stat line sums all of its threads, which covers
 * Sluice's partition workers and Kafka's network/IO threads alike.
 */
import { readFileSync, writeFileSync } from 'node:fs';

/** USER_HZ: the unit of utime/stime in /proc/<pid>/stat; 100 on every Linux this runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** utime + stime of the whole process, in seconds. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may contain spaces; fields are counted after its closing ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

function statusKiB(pid: number, key: string): number {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no ${key} in /proc/${pid}/status`);
  return Number(m[1]);
}

export function rssMiB(pid: number): number {
  return statusKiB(pid, 'VmRSS') / 1024;
}

/** Busy seconds (all but idle and iowait) per line of /proc/stat: `cpu` (the machine) and `cpu0`, `cpu1`, …. */
export function parseCpuBusy(procStat: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of procStat.split('\n')) {
    if (!line.startsWith('cpu')) continue;
    // cpuN user nice system idle iowait irq softirq steal ...: idle and iowait are not busy.
    const [name, ...rest] = line.trim().split(/\s+/);
    const v = rest.map(Number);
    const busy = v.reduce((a, b) => a + b, 0) - (v[3] ?? 0) - (v[4] ?? 0);
    out.set(name!, busy / CLOCK_TICKS_PER_SECOND);
  }
  return out;
}

export interface CpuBusy {
  /**
   * CPU seconds every process on the machine has used. Minus the broker and the generator, its
   * growth over a run is how much CPU other work took — the noise.
   */
  readonly machine: number;
  /** Busy seconds of each CPU by number: over a run, a core's utilisation. */
  readonly byCpu: ReadonlyMap<number, number>;
}

/** Busy seconds so far, the machine's and each CPU's from one read of /proc/stat: sample before and after a run. */
export function cpuBusy(): CpuBusy {
  let machine = 0;
  const byCpu = new Map<number, number>();
  for (const [name, busy] of parseCpuBusy(readFileSync('/proc/stat', 'utf8'))) {
    if (name === 'cpu') machine = busy;
    else byCpu.set(Number(name.slice(3)), busy);
  }
  return { machine, byCpu };
}

/** Peak RSS since start or since the last resetPeakRss. */
export function peakRssMiB(pid: number): number {
  return statusKiB(pid, 'VmHWM') / 1024;
}

/**
 * Writing 5 to clear_refs resets VmHWM to the current RSS (Linux 4.0+, needs the process's
 * owner), so each workload reports its own peak. Returns false where that is not allowed;
 * the peak is then the process's lifetime peak.
 */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * Samples a child's CPU time while it runs: once a child has exited and been reaped its /proc
 * entry is gone, so the last sample (at most `intervalMs` old) is what is reported.
 */
export class CpuSampler {
  private last = 0;
  private readonly first: number;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    intervalMs = 100,
  ) {
    this.first = this.read() ?? 0;
    this.last = this.first;
    this.timer = setInterval(() => {
      this.last = this.read() ?? this.last;
    }, intervalMs);
  }

  private read(): number | null {
    try {
      return cpuSeconds(this.pid);
    } catch {
      return null;
    }
  }

  stop(): number {
    clearInterval(this.timer);
    this.last = this.read() ?? this.last;
    return this.last - this.first;
  }
}
