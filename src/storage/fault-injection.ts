/**
 * Named failure points inside the storage engine, armed by tests to make a write, an index
 * update or a rename fail exactly where a real disk would. Disarmed, a point costs one integer
 * comparison. State is per thread (module scope), like the partitions a worker owns.
 *
 *   append.beforeWrite   before the segment write of an append (nothing written yet)
 *   append.afterWrite    after the bytes are written, before offsets and indexes move
 *   index.append         before an offset or time index entry is written
 *   segment.roll         before a new segment's files are created
 *   segment.flush        before fsync of a segment and its indexes
 *   segment.delete       before a segment is renamed to `.deleted`
 *   checkpoint.write     before a checkpoint file's temporary copy is renamed into place
 */
export type FaultPoint =
  'append.beforeWrite' | 'append.afterWrite' | 'index.append' | 'segment.roll' | 'segment.flush' | 'segment.delete' | 'checkpoint.write';

export interface FaultAction {
  /** errno name of the simulated failure, e.g. 'EIO' or 'ENOSPC' (default 'EIO'). */
  readonly errno?: string;
  /** How many hits fail before the point disarms itself (default: every hit until disarmed). */
  readonly times?: number;
  /** Hits to let through before failing (default 0). */
  readonly after?: number;
}

interface Armed {
  errno: string;
  remaining: number;
  skip: number;
}

const armed = new Map<FaultPoint, Armed>();
let armedCount = 0;

export const Faults = {
  arm(point: FaultPoint, action: FaultAction = {}): void {
    if (!armed.has(point)) armedCount++;
    armed.set(point, { errno: action.errno ?? 'EIO', remaining: action.times ?? Infinity, skip: action.after ?? 0 });
  },
  disarm(point: FaultPoint): void {
    if (armed.delete(point)) armedCount--;
  },
  disarmAll(): void {
    armed.clear();
    armedCount = 0;
  },
};

/** Throws the armed errno-style error at `point`; a no-op unless a test armed it. */
export function faultPoint(point: FaultPoint): void {
  if (armedCount === 0) return;
  const fault = armed.get(point);
  if (fault === undefined) return;
  if (fault.skip > 0) {
    fault.skip--;
    return;
  }
  if (--fault.remaining <= 0) Faults.disarm(point);
  const error: NodeJS.ErrnoException = new Error(`${fault.errno}: injected fault at ${point}`);
  error.code = fault.errno;
  throw error;
}
