/**
 * Reads the whole batches of a `.log` through a descriptor, front to back, for the cleaner: one
 * positional read per window (1 MiB) rather than per batch; a batch larger than the window gets a
 * buffer of its own. Each yielded `bytes` is a view valid only until the next step.
 *
 * Runs on a cleaner thread over a leased descriptor of an inactive segment, which nobody writes.
 * A batch cut short by the end ends the walk (only a crashed active segment has one, and the
 * cleaner never reads the active segment).
 */
import { BatchLayout, readBatchHeader, type BatchHeader } from '@sluice/protocol/records/index.js';
import { readFully } from '../segment/batch-headers.js';

export interface SegmentBatch {
  /** The batch alone: `header.start` is 0 and `header.end` its length. */
  readonly header: BatchHeader;
  readonly bytes: Buffer;
  readonly position: number;
}

const WINDOW_BYTES = 1024 * 1024;

export function* segmentBatches(fd: number, size: number): Generator<SegmentBatch, void, undefined> {
  let window = Buffer.allocUnsafe(Math.min(WINDOW_BYTES, Math.max(size, BatchLayout.RECORD_BATCH_OVERHEAD)));
  let windowStart = 0;
  let windowEnd = 0;
  let position = 0;
  while (size - position >= BatchLayout.RECORD_BATCH_OVERHEAD) {
    if (position + BatchLayout.RECORD_BATCH_OVERHEAD > windowEnd) {
      windowStart = position;
      windowEnd = position + readFully(fd, window, Math.min(window.length, size - position), position);
    }
    const at = position - windowStart;
    const batchSize = BatchLayout.LOG_OVERHEAD + window.readInt32BE(at + BatchLayout.BATCH_LENGTH_OFFSET);
    if (position + batchSize > size) return;
    if (position + batchSize > windowEnd) {
      if (batchSize > window.length) window = Buffer.allocUnsafe(batchSize);
      windowStart = position;
      windowEnd = position + readFully(fd, window, Math.min(window.length, size - position), position);
      if (position + batchSize > windowEnd) return;
    }
    const start = position - windowStart;
    const bytes = window.subarray(start, start + batchSize);
    const header = readBatchHeader(bytes, 0);
    if (header === null) return;
    yield { header, bytes, position };
    position += batchSize;
  }
}
