/**
 * The CRC32C of a magic-2 batch covers `attributes` to the end of the batch, so it stays valid
 * when the broker rewrites `baseOffset` or `partitionLeaderEpoch`, and must be recomputed after
 * any change from `attributes` on (timestamps, for LogAppendTime).
 */
import { crc32c } from '../accelerators.js';
import { ATTRIBUTES_OFFSET, BATCH_LENGTH_OFFSET, CRC_OFFSET, LOG_OVERHEAD, RECORD_BATCH_OVERHEAD } from './batch-layout.js';

/** End of the batch at `start` according to its own `batchLength`, checked against `buf`. */
export function batchEnd(buf: Buffer, start: number): number {
  if (start < 0 || start + RECORD_BATCH_OVERHEAD > buf.length) {
    throw new RangeError(`no batch header at ${start} in a buffer of ${buf.length} bytes`);
  }
  const end = start + LOG_OVERHEAD + buf.readInt32BE(start + BATCH_LENGTH_OFFSET);
  if (end < start + RECORD_BATCH_OVERHEAD || end > buf.length) {
    throw new RangeError(`batch at ${start} claims to end at ${end}, buffer has ${buf.length} bytes`);
  }
  return end;
}

export function computeBatchCrc(buf: Buffer, start: number, end: number = batchEnd(buf, start)): number {
  return crc32c(buf.subarray(start + ATTRIBUTES_OFFSET, end));
}

export function writeBatchCrc(buf: Buffer, start: number, end: number = batchEnd(buf, start)): void {
  buf.writeUInt32BE(computeBatchCrc(buf, start, end), start + CRC_OFFSET);
}
