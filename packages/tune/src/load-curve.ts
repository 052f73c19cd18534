/**
 * A cell's latency-against-throughput curve: every run of the cell at every load it was measured
 * at — the run itself and, where the sweep measured the run at another load too (the knee search's
 * run at half the knee), that point as well — in order of throughput.
 */

export interface LoadPoint {
  readonly recordsPerSecond: number;
  readonly latency: { readonly p50Ms: number; readonly p99Ms: number };
}

export interface CurveRun extends LoadPoint {
  /** Present when the sweep searched the cell's knee: the run at half of it. */
  readonly knee?: { readonly atHalf: LoadPoint | null } | null;
}

export function cellLoadCurve(cell: { readonly runs: readonly CurveRun[] }): LoadPoint[] {
  const points: LoadPoint[] = [];
  for (const run of cell.runs) {
    points.push({ recordsPerSecond: run.recordsPerSecond, latency: run.latency });
    const half = run.knee?.atHalf;
    if (half !== undefined && half !== null) points.push({ recordsPerSecond: half.recordsPerSecond, latency: half.latency });
  }
  return points
    .filter((p) => Number.isFinite(p.recordsPerSecond) && p.recordsPerSecond > 0)
    .sort((a, b) => a.recordsPerSecond - b.recordsPerSecond);
}
