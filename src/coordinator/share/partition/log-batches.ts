/**
 * The batches in a fetched file range, read from their headers only: acquisition works per log
 * batch, and the response sends only the part of the range that holds acquired records, still as
 * a file range (the records never enter this process).
 */
import { read } from 'node:fs';
import { promisify } from 'node:util';
import { isControl, isTransactional } from '@sluice/protocol/records/attributes.js';
import {
  ATTRIBUTES_OFFSET,
  BATCH_LENGTH_OFFSET,
  LAST_OFFSET_DELTA_OFFSET,
  LOG_OVERHEAD,
  PRODUCER_ID_OFFSET,
  RECORD_BATCH_OVERHEAD,
} from '@sluice/protocol/records/batch-layout.js';
import type { FileRegion } from '@sluice/protocol/primitives/writer.js';
import type { LogBatch } from './share-partition.js';

/** A log batch and the bytes `[start, end)` it occupies in its range. */
export interface PositionedBatch extends LogBatch {
  readonly start: number;
  readonly end: number;
}

export interface FetchedBatches {
  /**
   * The whole batches of `region`, in order (a partial batch at the end is left out, as a consumer
   * drops it), up to the first batch starting at or after `before` (the acquisition cannot use it).
   */
  read(region: FileRegion, before?: bigint): Promise<PositionedBatch[]>;
  /** The bytes `[start, end)` of `region`, released with it. */
  slice(region: FileRegion, start: number, end: number): FileRegion;
}

/** The batch whose header is `header` (at least the magic-2 header's bytes), at `start` in its range. */
export function batchAt(header: Buffer, start: number): PositionedBatch {
  const baseOffset = header.readBigInt64BE(0);
  const attributes = header.readInt16BE(ATTRIBUTES_OFFSET);
  return {
    firstOffset: baseOffset,
    lastOffset: baseOffset + BigInt(header.readInt32BE(LAST_OFFSET_DELTA_OFFSET)),
    producerId: header.readBigInt64BE(PRODUCER_ID_OFFSET),
    isTransactional: isTransactional(attributes),
    isControl: isControl(attributes),
    start,
    end: start + LOG_OVERHEAD + header.readInt32BE(BATCH_LENGTH_OFFSET),
  };
}

/** Whether `batch` ends the scan of a range `length` bytes long: cut short, corrupt, or past `before`. */
function endsScan(batch: PositionedBatch, at: number, length: number, before: bigint | undefined): boolean {
  return batch.end > length || batch.end <= at || (before !== undefined && batch.firstOffset >= before);
}

/** The whole batches in `bytes` starting before `before`, for ranges already in memory. */
export function batchesIn(bytes: Buffer, before?: bigint): PositionedBatch[] {
  const out: PositionedBatch[] = [];
  for (let at = 0; at + RECORD_BATCH_OVERHEAD <= bytes.length;) {
    const batch = batchAt(bytes.subarray(at, at + RECORD_BATCH_OVERHEAD), at);
    if (endsScan(batch, at, bytes.length, before)) break;
    out.push(batch);
    at = batch.end;
  }
  return out;
}

const readAt = promisify(read);

/**
 * Bytes read from the file at a time: the headers of the batches in this much of the range come
 * from one read through the thread pool, where a read per header cost a pool round trip per
 * batch (most of the broker's CPU under share consumers, docs/journal/share-groups-performance.md).
 */
const SCAN_CHUNK_BYTES = 256 * 1024;

/** Ranges leased in segment files: the headers are read from the file (the fd is shared with the partition workers). */
export const fileBatches: FetchedBatches = {
  async read(region, before) {
    const out: PositionedBatch[] = [];
    const chunk = Buffer.allocUnsafe(Math.min(SCAN_CHUNK_BYTES, region.byteLength));
    let chunkStart = 0;
    let chunkLength = 0;
    for (let at = 0; at + RECORD_BATCH_OVERHEAD <= region.byteLength;) {
      if (at + RECORD_BATCH_OVERHEAD > chunkStart + chunkLength) {
        const { bytesRead } = await readAt(region.fd, chunk, 0, Math.min(chunk.length, region.byteLength - at), region.position + at);
        chunkStart = at;
        chunkLength = bytesRead;
        if (bytesRead < RECORD_BATCH_OVERHEAD) break;
      }
      const batch = batchAt(chunk.subarray(at - chunkStart, at - chunkStart + RECORD_BATCH_OVERHEAD), at);
      if (endsScan(batch, at, region.byteLength, before)) break;
      out.push(batch);
      at = batch.end;
    }
    return out;
  },
  slice(region, start, end) {
    return { fd: region.fd, position: region.position + start, byteLength: end - start, release: () => region.release() };
  },
};
