/**
 * Walks the batch headers of a `.log` file with positional reads, without loading payloads: the
 * short scan from an index entry to the batch holding an offset, the search for a timestamp,
 * and finding the last offset of the active segment at start-up. Headers are read through a
 * scratch window, so a scan over small batches costs one read per window, not per batch.
 *
 * Not a validator: the CRC is not checked (recovery does that, see `scanValidBatches`). A header
 * that cannot be a magic-2 batch is a `CorruptSegmentError`; a batch cut short by `end` ends the
 * walk, as a crash can leave one at the tail until recovery truncates it.
 */
import { readSync } from 'node:fs';
import { BatchLayout, readInt64 } from '@sluice/protocol/records/index.js';
import { CorruptSegmentError } from '../storage-error.js';
import type { FilePosition } from '../offsets.js';
import type { Offset } from '@sluice/protocol/common/offsets.js';

export interface BatchLocation {
  readonly position: FilePosition;
  /** Whole batch, log overhead included. */
  readonly size: number;
  readonly baseOffset: Offset;
  readonly lastOffset: Offset;
  readonly maxTimestamp: number;
}

const WINDOW_BYTES = 64 * 1024;
/** A lookup scans at most about `index.interval.bytes` (4 KiB) past its index entry: start small, grow for long walks. */
const FIRST_WINDOW_BYTES = 8 * 1024;
/** One window per thread; the walk is synchronous and never re-entered, so one suffices. */
const window = Buffer.allocUnsafeSlow(WINDOW_BYTES);

/**
 * Calls `visit` for each whole batch starting at `from` until `end` or until `visit` returns
 * false. Returns the position where the walk stopped. `visit` must not start another walk.
 */
export function walkBatchHeaders(fd: number, from: number, end: number, visit: (batch: BatchLocation) => boolean): FilePosition {
  let windowStart = 0;
  let windowEnd = 0;
  let position = from;
  let windowBytes = FIRST_WINDOW_BYTES;
  while (end - position >= BatchLayout.RECORD_BATCH_OVERHEAD) {
    if (position < windowStart || position + BatchLayout.RECORD_BATCH_OVERHEAD > windowEnd) {
      const length = Math.min(windowBytes, end - position);
      windowBytes = Math.min(WINDOW_BYTES, windowBytes * 2);
      const read = readFully(fd, window, length, position);
      windowStart = position;
      windowEnd = position + read;
      if (read < BatchLayout.RECORD_BATCH_OVERHEAD) break;
    }
    const at = position - windowStart;
    const batchLength = window.readInt32BE(at + BatchLayout.BATCH_LENGTH_OFFSET);
    const size = BatchLayout.LOG_OVERHEAD + batchLength;
    const magic = window.readInt8(at + BatchLayout.MAGIC_OFFSET);
    if (size < BatchLayout.RECORD_BATCH_OVERHEAD || magic !== BatchLayout.MAGIC_V2) {
      throw new CorruptSegmentError(`no magic-2 batch at position ${position} (length ${batchLength}, magic ${magic})`);
    }
    if (position + size > end) break;
    const baseOffset = readInt64(window, at + BatchLayout.BASE_OFFSET_OFFSET) as Offset;
    const batch: BatchLocation = {
      position: position as FilePosition,
      size,
      baseOffset,
      lastOffset: (baseOffset + window.readInt32BE(at + BatchLayout.LAST_OFFSET_DELTA_OFFSET)) as Offset,
      maxTimestamp: readInt64(window, at + BatchLayout.MAX_TIMESTAMP_OFFSET),
    };
    if (!visit(batch)) return position as FilePosition;
    position += size;
  }
  return position as FilePosition;
}

/** The first batch from `from` whose last offset is >= `offset`, or null if none is whole before `end`. */
export function findBatchContaining(fd: number, from: number, end: number, offset: Offset): BatchLocation | null {
  let found: BatchLocation | null = null;
  walkBatchHeaders(fd, from, end, (batch) => {
    if (batch.lastOffset < offset) return true;
    found = batch;
    return false;
  });
  return found;
}

/** Reads until `length` bytes or end of file; returns the count read. */
export function readFully(fd: number, into: Buffer, length: number, position: number, intoOffset = 0): number {
  let done = 0;
  while (done < length) {
    const n = readSync(fd, into, intoOffset + done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}
