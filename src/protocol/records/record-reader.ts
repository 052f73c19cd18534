/**
 * Iterates the records of one magic-2 batch. Uncompressed records are parsed straight from the
 * batch bytes and every key, value and header value is a view on them; compressed records come
 * from a buffer the caller's `Decompressor` produces, bounded by `maxDecompressedBytes`.
 *
 * Structural rules are Kafka's (`DefaultRecord.readFrom`, `DefaultRecordBatch.RecordIterator`):
 * a record's body must be exactly as long as its length prefix says, header counts and key
 * lengths must fit in what is left, and the batch must hold exactly `recordsCount` records.
 * Any breach is a `RecordValidationError` with INVALID_RECORD; nothing is allocated from a
 * length before that length has been checked against the bytes present.
 */
import { DecodeError } from '../primitives/decode-error.js';
import { Reader } from '../primitives/reader.js';
import { compressionCodecId, CompressionType, isKnownCompressionType, timestampTypeOf, TimestampType } from './attributes.js';
import type { BatchHeader } from './batch-header.js';
import { RECORDS_OFFSET } from './batch-layout.js';
import { RecordErrorCode, RecordValidationError } from './record-error.js';

export interface RecordHeader {
  readonly key: string;
  readonly value: Buffer | null;
}

export interface DecodedRecord {
  readonly offset: bigint;
  readonly timestamp: bigint;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly RecordHeader[];
}

/**
 * Inflates a batch's records section. Must throw rather than produce more than `maxBytes`
 * (the bound against decompression bombs); whatever it throws becomes CORRUPT_MESSAGE.
 */
export type Decompressor = (codec: CompressionType, data: Buffer, maxBytes: number) => Buffer;

export interface RecordReadOptions {
  /** Needed only for compressed batches. */
  readonly decompress?: Decompressor;
  /** Upper bound on a compressed batch's inflated records section. */
  readonly maxDecompressedBytes?: number;
}

/** Kafka's default `message.max.bytes` is 1 MiB; 64 MiB leaves room for highly compressible batches. */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024;

/** `buf` holds the batch at `header.start..header.end` (as returned by `readBatchHeader`). */
export function* readRecords(
  buf: Buffer,
  header: BatchHeader,
  options: RecordReadOptions = {},
): Generator<DecodedRecord, void, undefined> {
  const count = header.recordsCount;
  if (count < 0) throw invalid(header, null, `invalid record count ${count}`);
  const reader = recordsReader(buf, header, options);
  const logAppendTime = timestampTypeOf(header.attributes) === TimestampType.LogAppendTime ? header.maxTimestamp : null;
  for (let index = 0; index < count; index++) {
    let record: DecodedRecord;
    try {
      record = readRecord(reader, header, logAppendTime, index);
    } catch (e) {
      if (e instanceof DecodeError) throw invalid(header, index, `record ${index}: ${e.message}`, e);
      throw e;
    }
    yield record;
  }
  if (reader.remaining() !== 0) {
    throw invalid(header, null, `${reader.remaining()} bytes left after the declared ${count} records`);
  }
}

function recordsReader(buf: Buffer, header: BatchHeader, options: RecordReadOptions): Reader {
  const codec = compressionCodecId(header.attributes);
  const recordsStart = header.start + RECORDS_OFFSET;
  if (codec === CompressionType.None) return new Reader(buf, recordsStart, header.end);
  if (!isKnownCompressionType(codec)) {
    throw new RecordValidationError(RecordErrorCode.CorruptMessage, `unknown compression codec ${codec}`, header.start);
  }
  if (options.decompress === undefined) {
    throw new TypeError(`batch at ${header.start} is compressed (codec ${codec}) and no decompressor was given`);
  }
  const maxBytes = options.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES;
  let inflated: Buffer;
  try {
    inflated = options.decompress(codec, buf.subarray(recordsStart, header.end), maxBytes);
  } catch (e) {
    throw new RecordValidationError(
      RecordErrorCode.CorruptMessage,
      `cannot decompress batch (codec ${codec}): ${e instanceof Error ? e.message : String(e)}`,
      header.start,
      null,
      { cause: e },
    );
  }
  if (inflated.length > maxBytes) {
    throw new RecordValidationError(
      RecordErrorCode.CorruptMessage,
      `decompressed records take ${inflated.length} bytes, more than the ${maxBytes} allowed`,
      header.start,
    );
  }
  return new Reader(inflated);
}

function readRecord(reader: Reader, header: BatchHeader, logAppendTime: bigint | null, index: number): DecodedRecord {
  const bodyLength = reader.varint();
  if (bodyLength < 0 || bodyLength > reader.remaining()) {
    throw invalid(header, index, `record ${index} claims ${bodyLength} bytes, ${reader.remaining()} left`);
  }
  const bodyStart = reader.offset;
  const bodyEnd = bodyStart + bodyLength;
  // Parse within the body so a lying inner length cannot reach into the next record.
  const body = new Reader(reader.buf, bodyStart, bodyEnd);
  body.int8(); // record attributes: unused by magic 2
  const timestampDelta = body.varlong();
  const offsetDelta = body.varint();
  const key = nullableVarintBytes(body);
  const value = nullableVarintBytes(body);
  const headerCount = body.varint();
  if (headerCount < 0 || headerCount > body.remaining()) {
    throw invalid(header, index, `record ${index} has ${headerCount} headers with ${body.remaining()} bytes left`);
  }
  const headers: RecordHeader[] = [];
  for (let h = 0; h < headerCount; h++) {
    const keyLength = body.varint();
    if (keyLength < 0) throw invalid(header, index, `record ${index} header ${h} has key length ${keyLength}`);
    const headerKey = body.raw(keyLength).toString('utf8');
    headers.push({ key: headerKey, value: nullableVarintBytes(body) });
  }
  if (body.remaining() !== 0) {
    throw invalid(header, index, `record ${index} body is ${bodyLength} bytes but its fields take ${bodyLength - body.remaining()}`);
  }
  reader.offset = bodyEnd;
  return {
    offset: header.baseOffset + BigInt(offsetDelta),
    timestamp: logAppendTime ?? header.baseTimestamp + timestampDelta,
    key,
    value,
    headers,
  };
}

/** Kafka treats any negative length as null, not only -1. */
function nullableVarintBytes(reader: Reader): Buffer | null {
  const length = reader.varint();
  return length < 0 ? null : reader.raw(length);
}

function invalid(header: BatchHeader, index: number | null, message: string, cause?: unknown): RecordValidationError {
  return new RecordValidationError(
    RecordErrorCode.InvalidRecord,
    message,
    header.start,
    index,
    cause === undefined ? undefined : { cause },
  );
}
