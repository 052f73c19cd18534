/**
 * On-CPU sampling of the whole broker process with Linux `perf` (all threads, kernel included),
 * which the V8 profiler cannot see: GC helper threads, syscalls, page-cache copies, the addon.
 * The broker runs with --perf-basic-prof so JIT-compiled JS frames have names.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface PerfLine {
  readonly percent: number;
  readonly dso: string;
  readonly symbol: string;
}

export interface PerfSummary {
  readonly samples: number;
  readonly seconds: number;
  readonly byCategory: readonly { readonly category: string; readonly percent: number }[];
  readonly topSymbols: readonly PerfLine[];
}

/** Where a sample's time goes, from its DSO and symbol name; first match wins. */
const CATEGORIES: readonly [string, (l: PerfLine) => boolean][] = [
  ['kernel (syscalls, TCP, page cache, scheduler)', (l) => l.dso.includes('kernel')],
  [
    'V8 garbage collection',
    (l) =>
      /v8::internal::.*(Mark|Sweep|Scaveng|Heap|Evacuat|Compact|Visitor|MemoryChunk|Remembered|SlotSet|PointersUpdating|Minor|Major)/.test(
        l.symbol,
      ),
  ],
  ['V8 compilers (JIT)', (l) => /v8::internal::(compiler|maglev|baseline|Compiler|Parser|interpreter::BytecodeGenerator)/.test(l.symbol)],
  [
    'JS and V8 builtins (running the broker code)',
    (l) => l.dso.startsWith('[JIT]') || l.symbol.startsWith('Builtins_') || l.symbol.startsWith('JS:'),
  ],
  ['native addon (CRC32C, sendfile, codecs)', (l) => l.dso.includes('sluice_native')],
  ['libc / libstdc++ (memcpy, malloc)', (l) => /^(libc|libstdc\+\+|ld-linux)/.test(l.dso)],
  ['other node / V8 runtime', () => true],
];

/** The JIT symbol map --perf-basic-prof keeps writing until the process exits. */
export function perfMapFile(pid: number): string {
  return `/tmp/perf-${pid}.map`;
}

export async function perfAvailable(): Promise<boolean> {
  try {
    await execFileAsync('perf', ['--version']);
    return true;
  } catch {
    return false;
  }
}

/** Samples `pid` for `seconds` at 499 Hz with call graphs; returns when perf has written `out`. */
export async function perfRecord(pid: number, seconds: number, out: string): Promise<void> {
  const child = spawn('perf', ['record', '-F', '499', '-g', '-p', String(pid), '-o', out, '--', 'sleep', String(seconds)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`perf record exited with ${code}: ${err}`);
}

export async function perfSummarize(dataFile: string, seconds: number): Promise<PerfSummary> {
  const { stdout } = await execFileAsync(
    'perf',
    ['report', '-i', dataFile, '--stdio', '--no-children', '-g', 'none', '--sort', 'dso,sym', '--percent-limit', '0'],
    { maxBuffer: 256 * 1024 * 1024 },
  );
  // "# Samples: 3K of event 'cpu-clock'": perf rounds to K/M.
  const m = /# Samples: ([\d.]+)([KM]?)/.exec(stdout);
  const samples = m ? Number(m[1]) * (m[2] === 'K' ? 1e3 : m[2] === 'M' ? 1e6 : 1) : 0;
  const lines: PerfLine[] = [];
  for (const raw of stdout.split('\n')) {
    const m = /^\s*([\d.]+)%\s+(\S.*?)\s+\[[.k]\]\s+(.*)$/.exec(raw);
    if (m) lines.push({ percent: Number(m[1]), dso: m[2]!.trim(), symbol: m[3]!.trim() });
  }
  const totals = new Map<string, number>();
  for (const l of lines) {
    const category = CATEGORIES.find(([, match]) => match(l))![0];
    totals.set(category, (totals.get(category) ?? 0) + l.percent);
  }
  return {
    samples,
    seconds,
    byCategory: [...totals.entries()].map(([category, percent]) => ({ category, percent })).sort((a, b) => b.percent - a.percent),
    topSymbols: lines.slice(0, 25),
  };
}
