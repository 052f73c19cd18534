/**
 * Throughput as the log grows, from ProducerPerformance's output: its periodic window lines say
 * how many records were acknowledged in how long, so walking them in order gives throughput
 * against bytes written. Pure functions, so the arithmetic is unit-tested.
 */
import { parseProducerPerformance } from './java-tools.js';

/** GB is 10^9 payload bytes, as MB is 10^6 everywhere in the bench. */
export const BYTES_PER_GB = 1e9;
/** The target: throughput in the last GB at least this fraction of the second GB's. */
export const FLAT_RATIO = 0.9;
/**
 * GB 1 is not a fair reference: the generator is a fresh JVM that takes several seconds to reach
 * full speed (5-8 s, from 15-35 MB/s in its first second, in the runs here), most of the first GB.
 * So flatness is judged from GB 2 (the log holding 1 to 2 GB) to the last, which needs 3 GB.
 */
export const MIN_GROWTH_GB = 3;

export interface ProducerWindow {
  readonly records: number;
  readonly seconds: number;
}

export interface GrowthCurve {
  /** GB of payload written, which is at most what the log holds (it adds batch headers). */
  readonly gb: number;
  /** Payload MB/s in each successive GB: [0] is the first GB, [gb - 1] the last. */
  readonly mbPerSecondByGB: readonly number[];
  /** GB 1, generator warm-up included. */
  readonly firstGBMBps: number;
  /** GB 2, the reference for flatness. */
  readonly secondGBMBps: number;
  readonly lastGBMBps: number;
  /** lastGBMBps / secondGBMBps; flat means ≥ FLAT_RATIO. */
  readonly lastToSecond: number;
  /** lastGBMBps / firstGBMBps, flattered by the warm-up in GB 1. */
  readonly lastToFirst: number;
  /** Size of the topic's segment files at the end; null when the broker's log dir is unknown. */
  readonly logBytesOnDisk: number | null;
  /** The generator's windows the curve was computed from, in order. */
  readonly windows: readonly ProducerWindow[];
}

// "%d records sent, %.1f records/sec (%.2f MB/sec), %.1f ms avg latency, %.1f ms max latency."
// The final summary line has percentiles after the max latency, so it never matches.
const WINDOW_LINE = /^(\d+) records sent, ([\d.]+) records\/sec \([\d.]+ MB\/sec\), [\d.]+ ms avg latency, [\d.]+ ms max latency\.$/gm;

/**
 * Every window of a ProducerPerformance run, including the last partial one it never prints:
 * the summary line covers the whole run from the first window's start, so what it has beyond
 * the printed windows is that last window. Its length can come out a hair below zero from the
 * rounding of the printed rates, hence the clamp.
 */
export function producerWindows(stdout: string): ProducerWindow[] {
  const windows: ProducerWindow[] = [];
  for (const m of stdout.matchAll(WINDOW_LINE)) {
    const records = Number(m[1]);
    windows.push({ records, seconds: records / Number(m[2]) });
  }
  const total = parseProducerPerformance(stdout);
  const printedRecords = windows.reduce((sum, w) => sum + w.records, 0);
  const printedSeconds = windows.reduce((sum, w) => sum + w.seconds, 0);
  const restRecords = total.records - printedRecords;
  if (restRecords < 0)
    throw new Error(`ProducerPerformance windows add up to ${printedRecords} records, more than its total ${total.records}`);
  if (restRecords > 0)
    windows.push({ records: restRecords, seconds: Math.max(0, total.records / total.recordsPerSecond - printedSeconds) });
  return windows;
}

/**
 * Payload MB/s within each complete GB written. A window that straddles a GB boundary is split
 * in proportion to its bytes, i.e. assuming a steady rate within the window (1 s long here).
 * The bytes beyond the last whole GB are left out.
 */
export function mbPerSecondByGB(windows: readonly ProducerWindow[], recordSize: number): number[] {
  const bytes: number[] = [];
  const seconds: number[] = [];
  let written = 0;
  for (const w of windows) {
    const windowBytes = w.records * recordSize;
    let left = windowBytes;
    while (left > 0) {
      const gb = Math.floor(written / BYTES_PER_GB);
      const take = Math.min(left, (gb + 1) * BYTES_PER_GB - written);
      bytes[gb] = (bytes[gb] ?? 0) + take;
      seconds[gb] = (seconds[gb] ?? 0) + (w.seconds * take) / windowBytes;
      written += take;
      left -= take;
    }
  }
  const whole = Math.floor(written / BYTES_PER_GB);
  return Array.from({ length: whole }, (_, gb) => {
    const s = seconds[gb]!;
    if (!(s > 0)) throw new Error(`GB ${gb + 1} took no time: windows ${JSON.stringify(windows)}`);
    return bytes[gb]! / s / 1e6;
  });
}

export function growthCurve(stdout: string, recordSize: number, logBytesOnDisk: number | null): GrowthCurve {
  const windows = producerWindows(stdout);
  const byGB = mbPerSecondByGB(windows, recordSize);
  if (byGB.length < MIN_GROWTH_GB) throw new Error(`the run wrote ${byGB.length} whole GB, fewer than ${MIN_GROWTH_GB}`);
  const [firstGBMBps, secondGBMBps] = [byGB[0]!, byGB[1]!];
  const lastGBMBps = byGB[byGB.length - 1]!;
  return {
    gb: byGB.length,
    mbPerSecondByGB: byGB,
    firstGBMBps,
    secondGBMBps,
    lastGBMBps,
    lastToSecond: lastGBMBps / secondGBMBps,
    lastToFirst: lastGBMBps / firstGBMBps,
    logBytesOnDisk,
    windows,
  };
}
