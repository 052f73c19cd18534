/**
 * Which of a partition's oldest segments may be deleted (Kafka's `deletableSegments` and the
 * breaches of `deleteOldSegments`): those wholly before the log start offset, those older than
 * `retention.ms` by their largest timestamp, and the oldest while the log exceeds
 * `retention.bytes`. Only segments wholly below the high watermark qualify, and never an empty
 * active segment. This module only decides; PartitionLog drops the segments (SegmentList) and
 * moves the log start offset, so the offsets and the segments change in one place.
 *
 * Runs on the partition's worker thread, inside PartitionLog's calls.
 */
import type { LogConfig } from '../log-config.js';
import type { Offset } from '@sluice/protocol/common/offsets.js';
import type { LogSegment } from '../segment/log-segment.js';

/** Whether one of the oldest segments may go, given the segment after it (null for the active one). */
export type Breach = (segment: LogSegment, next: LogSegment | null) => boolean;

/** How many of the oldest segments go: the leading run that qualifies and that `breach` holds for. */
export function deletableCount(segments: readonly LogSegment[], highWatermark: Offset, logEndOffset: Offset, breach: Breach): number {
  let count = 0;
  for (; count < segments.length; count++) {
    const segment = segments[count]!;
    const next = segments[count + 1] ?? null;
    const upper = next?.baseOffset ?? logEndOffset;
    const lastAndEmpty = next === null && segment.size === 0;
    if (highWatermark < upper || lastAndEmpty || !breach(segment, next)) break;
  }
  return count;
}

/** Segments holding no offset at or above the log start offset (after DeleteRecords, retention or a restart). */
export function belowLogStart(logStartOffset: Offset): Breach {
  return (_segment, next) => next !== null && next.baseOffset <= logStartOffset;
}

/** `retention.ms`: segments whose newest record is older than that at `nowMs`; null when time retention is off. */
export function pastRetentionTime(config: LogConfig, nowMs: number): Breach | null {
  const retentionMs = config['retention.ms'];
  if (retentionMs < 0) return null;
  return (segment) => nowMs - segment.largestTimestamp() > retentionMs;
}

/**
 * `retention.bytes`: the oldest segments, each as long as the log (`logBytes` now) still holds
 * at least that many bytes without it; null when size retention is off. The breach counts down
 * as it is asked, so it serves one pass over the segments.
 */
export function pastRetentionSize(config: LogConfig, logBytes: number): Breach | null {
  const retentionBytes = config['retention.bytes'];
  if (retentionBytes < 0) return null;
  let excess = logBytes - retentionBytes;
  return (segment) => {
    if (excess - segment.size < 0) return false;
    excess -= segment.size;
    return true;
  };
}
