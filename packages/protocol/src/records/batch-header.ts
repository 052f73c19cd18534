/**
 * Zero-copy view of the batches in a buffer: only the 61-byte headers are read, record payloads
 * are never touched or copied. This is the framing step shared by the Produce path (a request's
 * `records` field) and the storage path (bytes read from a segment).
 *
 * Framing follows Kafka's `ByteBufferLogInputStream`: a batch too short to hold a header, or one
 * that claims more bytes than are left, ends the iteration without an error (it is a partial
 * tail, see `BatchScan.trailingBytes`); a size below any format's minimum or an unknown magic is
 * corruption.
 */
import {
  ATTRIBUTES_OFFSET,
  BASE_SEQUENCE_OFFSET,
  BASE_TIMESTAMP_OFFSET,
  BATCH_LENGTH_OFFSET,
  CRC_OFFSET,
  HEADER_SIZE_UP_TO_MAGIC,
  LAST_OFFSET_DELTA_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAGIC_V2,
  MAX_TIMESTAMP_OFFSET,
  PARTITION_LEADER_EPOCH_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORD_BATCH_OVERHEAD,
  RECORDS_COUNT_OFFSET,
} from './batch-layout.js';
import { RecordErrorCode, RecordValidationError } from './record-error.js';

/** Kafka's smallest legal batch of any magic (a v0 message); anything shorter is corrupt. */
const MIN_BATCH_LENGTH_ANY_MAGIC = 14;

/** The header fields of one magic-2 batch and the byte range `[start, end)` it occupies. */
export interface BatchHeader {
  readonly start: number;
  readonly end: number;
  readonly baseOffset: bigint;
  readonly batchLength: number;
  readonly partitionLeaderEpoch: number;
  readonly magic: number;
  readonly crc: number;
  readonly attributes: number;
  readonly lastOffsetDelta: number;
  readonly baseTimestamp: bigint;
  readonly maxTimestamp: bigint;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly baseSequence: number;
  readonly recordsCount: number;
}

export function lastOffsetOf(header: BatchHeader): bigint {
  return header.baseOffset + BigInt(header.lastOffsetDelta);
}

/** An int64 header field as a number, read as two halves (exact below 2^53, no bigint): for hot paths. */
export function readInt64(buf: Buffer, at: number): number {
  return buf.readInt32BE(at) * 0x1_0000_0000 + buf.readUInt32BE(at + 4);
}

/**
 * Reads the header of the batch starting at `start`, or returns null when the bytes up to `end`
 * hold only part of it. Throws `RecordValidationError` for a batch that can never be valid:
 * impossible length, magic other than 2, or a header cut short by its own `batchLength`.
 */
export function readBatchHeader(buf: Buffer, start: number, end: number = buf.length): BatchHeader | null {
  const available = end - start;
  if (available < LOG_OVERHEAD) return null;
  const batchLength = buf.readInt32BE(start + BATCH_LENGTH_OFFSET);
  if (batchLength < MIN_BATCH_LENGTH_ANY_MAGIC) {
    throw new RecordValidationError(
      RecordErrorCode.CorruptMessage,
      `batch length ${batchLength} is below the minimum ${MIN_BATCH_LENGTH_ANY_MAGIC}`,
      start,
    );
  }
  if (available < HEADER_SIZE_UP_TO_MAGIC) return null;
  const magic = buf.readInt8(start + MAGIC_OFFSET);
  if (magic < 0 || magic > MAGIC_V2) {
    throw new RecordValidationError(RecordErrorCode.CorruptMessage, `invalid magic ${magic}`, start);
  }
  if (magic !== MAGIC_V2) {
    // Kafka refuses v0/v1 message sets in Produce v3+ (the only versions Sluice serves).
    throw new RecordValidationError(RecordErrorCode.InvalidRecord, `magic ${magic} batches are not supported, only magic 2`, start);
  }
  const size = LOG_OVERHEAD + batchLength;
  if (available < size) return null;
  if (size < RECORD_BATCH_OVERHEAD) {
    throw new RecordValidationError(
      RecordErrorCode.CorruptMessage,
      `batch of ${size} bytes is smaller than the ${RECORD_BATCH_OVERHEAD}-byte magic 2 header`,
      start,
    );
  }
  return {
    start,
    end: start + size,
    baseOffset: buf.readBigInt64BE(start),
    batchLength,
    partitionLeaderEpoch: buf.readInt32BE(start + PARTITION_LEADER_EPOCH_OFFSET),
    magic,
    crc: buf.readUInt32BE(start + CRC_OFFSET),
    attributes: buf.readInt16BE(start + ATTRIBUTES_OFFSET),
    lastOffsetDelta: buf.readInt32BE(start + LAST_OFFSET_DELTA_OFFSET),
    baseTimestamp: buf.readBigInt64BE(start + BASE_TIMESTAMP_OFFSET),
    maxTimestamp: buf.readBigInt64BE(start + MAX_TIMESTAMP_OFFSET),
    producerId: buf.readBigInt64BE(start + PRODUCER_ID_OFFSET),
    producerEpoch: buf.readInt16BE(start + PRODUCER_EPOCH_OFFSET),
    baseSequence: buf.readInt32BE(start + BASE_SEQUENCE_OFFSET),
    recordsCount: buf.readInt32BE(start + RECORDS_COUNT_OFFSET),
  };
}

/**
 * Iterates the whole batches in `buf[start, end)`. After the iteration, `trailingBytes` is the
 * size of the partial batch at the end (0 when the buffer ends on a batch boundary) and
 * `wholeBytes` the length of the prefix made of whole batches.
 */
export class BatchScan implements Iterable<BatchHeader> {
  private position: number;

  constructor(
    private readonly buf: Buffer,
    private readonly start = 0,
    private readonly end = buf.length,
  ) {
    if (start < 0 || end > buf.length || start > end) {
      throw new RangeError(`range [${start}, ${end}) is outside a buffer of ${buf.length} bytes`);
    }
    this.position = start;
  }

  *[Symbol.iterator](): Iterator<BatchHeader> {
    this.position = this.start;
    for (;;) {
      const header = readBatchHeader(this.buf, this.position, this.end);
      if (header === null) return;
      this.position = header.end;
      yield header;
    }
  }

  get wholeBytes(): number {
    return this.position - this.start;
  }

  get trailingBytes(): number {
    return this.end - this.position;
  }
}
