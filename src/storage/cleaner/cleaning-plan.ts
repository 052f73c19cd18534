/**
 * Whether a compacted log needs cleaning now, and over which range (Kafka's
 * `LogCleanerManager.cleanableOffsets` and `grabFilthiestCompactedLog`):
 *
 * - first dirty offset: the `cleaner-offset-checkpoint` entry, raised to the log start offset and
 *   lowered to the active segment's base (a truncation may have cut below it);
 * - first uncleanable offset: the active segment's base, or the base of the first segment that
 *   reaches above the high watermark, or of the first dirty segment whose largest timestamp is
 *   within `min.compaction.lag.ms` of now, whichever comes first;
 * - dirty ratio: bytes of segments in [first dirty, first uncleanable) over bytes of all segments
 *   below the first uncleanable offset. The log is cleaned when the ratio is above
 *   `min.cleanable.dirty.ratio` (strictly, as Kafka), or whatever the ratio when a dirty segment's
 *   first batch is older than `max.compaction.lag.ms`, or when tombstones kept by an earlier
 *   cleaning have reached their delete horizon.
 *
 * Pure (reads segment metadata only); called on the owning thread from `LogManager.maintain`.
 */
import type { LogConfig } from '../log-config.js';
import type { LogSegment } from '../segment/log-segment.js';

export type CleaningReason = 'dirty-ratio' | 'max-compaction-lag' | 'delete-horizon';

export interface CleaningPlan {
  readonly firstDirtyOffset: number;
  readonly firstUncleanableOffset: number;
  /** The segments to rewrite: every inactive segment below the first uncleanable offset. */
  readonly segments: readonly LogSegment[];
  readonly dirtyRatio: number;
  readonly reason: CleaningReason;
}

export interface CleanableLog {
  readonly config: LogConfig;
  readonly logStartOffset: number;
  readonly highWatermark: number;
  /** Inactive segments, oldest first. */
  readonly segments: readonly LogSegment[];
  readonly activeBaseOffset: number;
  /** From `cleaner-offset-checkpoint`, if present. */
  readonly checkpoint: number | undefined;
  /** Earliest delete horizon left by the last cleaning, or null. */
  readonly nextDeleteHorizonMs: number | null;
}

export function firstDirtyOffset(log: Pick<CleanableLog, 'logStartOffset' | 'activeBaseOffset' | 'checkpoint'>): number {
  const checkpoint = log.checkpoint ?? log.logStartOffset;
  return Math.max(log.logStartOffset, Math.min(checkpoint, log.activeBaseOffset));
}

export function planCleaning(log: CleanableLog, nowMs: number): CleaningPlan | null {
  const config = log.config;
  const firstDirty = firstDirtyOffset(log);
  const minLag = config['min.compaction.lag.ms'];
  const segments: LogSegment[] = [];
  let firstUncleanable = log.activeBaseOffset;
  for (let i = 0; i < log.segments.length; i++) {
    const segment = log.segments[i]!;
    const upper = log.segments[i + 1]?.baseOffset ?? log.activeBaseOffset;
    const tooNew = upper > firstDirty && minLag > 0 && segment.largestTimestamp() > nowMs - minLag;
    if (upper > log.highWatermark || tooNew) {
      firstUncleanable = segment.baseOffset;
      break;
    }
    segments.push(segment);
  }
  if (segments.length === 0) return null;

  let cleanBytes = 0;
  let dirtyBytes = 0;
  let earliestDirtyTimestamp = Infinity;
  segments.forEach((segment, i) => {
    const upper = segments[i + 1]?.baseOffset ?? firstUncleanable;
    if (upper <= firstDirty) {
      cleanBytes += segment.size;
      return;
    }
    dirtyBytes += segment.size;
    const first = segment.firstBatchTimestamp();
    if (first !== null && first > 0) earliestDirtyTimestamp = Math.min(earliestDirtyTimestamp, first);
  });
  const total = cleanBytes + dirtyBytes;
  const dirtyRatio = total === 0 ? 0 : dirtyBytes / total;
  const plan = (reason: CleaningReason): CleaningPlan => ({
    firstDirtyOffset: firstDirty,
    firstUncleanableOffset: firstUncleanable,
    segments,
    dirtyRatio,
    reason,
  });
  if (dirtyBytes > 0 && dirtyRatio > config['min.cleanable.dirty.ratio']) return plan('dirty-ratio');
  if (dirtyBytes > 0 && earliestDirtyTimestamp < nowMs - config['max.compaction.lag.ms']) return plan('max-compaction-lag');
  if (log.nextDeleteHorizonMs !== null && log.nextDeleteHorizonMs <= nowMs) return plan('delete-horizon');
  return null;
}
