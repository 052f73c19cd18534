/**
 * In-place header rewrites the broker applies while appending a validated batch. They touch
 * only the header bytes: the record payload, which may be compressed, is never re-encoded.
 */
import { timestampTypeOf, TimestampType, withTimestampType } from './attributes.js';
import { writeBatchCrc, batchEnd } from './batch-crc.js';
import { ATTRIBUTES_OFFSET, BASE_OFFSET_OFFSET, MAX_TIMESTAMP_OFFSET, PARTITION_LEADER_EPOCH_OFFSET } from './batch-layout.js';

/** Outside the CRC: no checksum work. */
export function setBaseOffset(buf: Buffer, batchStart: number, offset: bigint): void {
  batchEnd(buf, batchStart);
  buf.writeBigInt64BE(offset, batchStart + BASE_OFFSET_OFFSET);
}

/** Outside the CRC: no checksum work. */
export function setPartitionLeaderEpoch(buf: Buffer, batchStart: number, epoch: number): void {
  batchEnd(buf, batchStart);
  buf.writeInt32BE(epoch, batchStart + PARTITION_LEADER_EPOCH_OFFSET);
}

/**
 * Sets the timestamp type bit and `maxTimestamp`, then recomputes the CRC; a no-op when both
 * already hold these values (as in Kafka's `DefaultRecordBatch.setMaxTimestamp`, which spares
 * the CRC pass). `baseTimestamp` and the records' deltas are left alone: with LogAppendTime a
 * reader takes every record's timestamp from `maxTimestamp`, so they no longer matter, and with
 * CreateTime they stay the producer's.
 */
export function setMaxTimestamp(buf: Buffer, batchStart: number, type: TimestampType, maxTimestamp: bigint): void {
  const end = batchEnd(buf, batchStart);
  const attributes = buf.readInt16BE(batchStart + ATTRIBUTES_OFFSET);
  const current = buf.readBigInt64BE(batchStart + MAX_TIMESTAMP_OFFSET);
  if (timestampTypeOf(attributes) === type && current === maxTimestamp) return;
  buf.writeInt16BE(withTimestampType(attributes, type), batchStart + ATTRIBUTES_OFFSET);
  buf.writeBigInt64BE(maxTimestamp, batchStart + MAX_TIMESTAMP_OFFSET);
  writeBatchCrc(buf, batchStart, end);
}

/** The broker's rewrite for topics with `message.timestamp.type=LogAppendTime`. */
export function setLogAppendTime(buf: Buffer, batchStart: number, appendTime: bigint): void {
  setMaxTimestamp(buf, batchStart, TimestampType.LogAppendTime, appendTime);
}
