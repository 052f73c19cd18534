/**
 * Crash recovery's pass over a `.log` file: reads it in chunks, checks every batch's framing
 * and CRC32C with the records module's `validateBatches`, and reports where the valid prefix
 * ends. Everything after that point (a torn write, garbage, a batch whose CRC fails) is what
 * recovery truncates. Batches larger than a chunk are read whole.
 */
import { readBatchHeader, validateBatches, type BatchHeader } from '@sluice/protocol/records/index.js';
import { BatchLayout } from '@sluice/protocol/records/index.js';
import type { FilePosition } from '../offsets.js';
import { readFully } from './batch-headers.js';

const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * Calls `visit(header, buffer, filePosition)` for each valid batch (header positions relative to
 * `buffer`) until the first invalid byte, the end, or `visit` returning false. Returns the length
 * of the valid prefix.
 */
export function scanValidBatches(fd: number, size: number, visit: (header: BatchHeader, position: FilePosition) => boolean): number {
  let position = 0;
  let chunk = Buffer.allocUnsafeSlow(Math.min(CHUNK_BYTES, Math.max(size, BatchLayout.RECORD_BATCH_OVERHEAD)));
  while (position < size) {
    const length = Math.min(chunk.length, size - position);
    const bytes = chunk.subarray(0, readFully(fd, chunk, length, position));
    const result = validateBatches(bytes);
    for (const header of result.ok ? result.batches : []) {
      if (!visit(header, (position + header.start) as FilePosition)) return position + header.start;
    }
    if (!result.ok) {
      // validateBatches stops before a bad batch; the batches before it were valid but were not
      // returned, so revisit them one by one.
      let at = 0;
      while (at < result.validBytes) {
        const header = readBatchHeader(bytes, at)!;
        if (!visit(header, (position + at) as FilePosition)) return position + at;
        at = header.end;
      }
      return position + result.validBytes;
    }
    if (result.validBytes === 0) {
      // Not even one whole batch in the chunk: either the file ends in a partial batch, or the
      // batch is larger than the chunk.
      const needed = batchSizeAt(bytes);
      if (needed === null || position + needed > size || needed <= chunk.length) return position;
      chunk = Buffer.allocUnsafeSlow(needed);
      continue;
    }
    position += result.validBytes;
  }
  return position;
}

function batchSizeAt(bytes: Buffer): number | null {
  if (bytes.length < BatchLayout.LOG_OVERHEAD) return null;
  return BatchLayout.LOG_OVERHEAD + bytes.readInt32BE(BatchLayout.BATCH_LENGTH_OFFSET);
}
