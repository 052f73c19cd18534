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
export function* readRecords(buf: Buffer, header: BatchHeader, options: RecordReadOptions = {}): Generator<DecodedRecord, void, undefined> {
  const logAppendTime = timestampTypeOf(header.attributes) === TimestampType.LogAppendTime ? header.maxTimestamp : null;
  const cursor = new RecordCursor(buf, header, options, true);
  while (cursor.next()) {
    const frame = cursor.frame;
    const timestampDelta = typeof frame.timestampDelta === 'bigint' ? frame.timestampDelta : BigInt(frame.timestampDelta);
    yield {
      offset: header.baseOffset + BigInt(frame.offsetDelta),
      timestamp: logAppendTime ?? header.baseTimestamp + timestampDelta,
      key: frame.key,
      value: frame.value,
      headers: frame.headers,
    };
  }
}

/**
 * What the produce path checks of each record, without keys, values or headers made into
 * objects (Kafka's `skipKeyValueIterator`): `visit` is called once per record, in order, with
 * the same frame object (read it before returning). Throws as `readRecords` does for a batch
 * whose framing is broken.
 */
export function scanRecords(
  buf: Buffer,
  header: BatchHeader,
  options: RecordReadOptions,
  visit: (index: number, frame: RecordFrame) => void,
): void {
  const cursor = new RecordCursor(buf, header, options, false);
  while (cursor.next()) visit(cursor.index, cursor.frame);
}

/** One record's fields as a scan sees them; `readRecords` also fills the byte fields. */
export interface RecordFrame {
  offsetDelta: number;
  /** A number whenever it fits in 49 bits (almost always), else a bigint. */
  timestampDelta: number | bigint;
  hasKey: boolean;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
}

/** Parses the records one per `next()` into `frame`; `keep` makes views of the bytes, else they are skipped. */
class RecordCursor {
  readonly frame: RecordFrame = { offsetDelta: 0, timestampDelta: 0, hasKey: false, key: null, value: null, headers: [] };
  /** The index of the record in `frame`. */
  index = -1;
  private reader: Reader | null = null;

  constructor(
    private readonly buf: Buffer,
    private readonly header: BatchHeader,
    private readonly options: RecordReadOptions,
    private readonly keep: boolean,
  ) {}

  next(): boolean {
    const header = this.header;
    const count = header.recordsCount;
    if (this.reader === null) {
      if (count < 0) throw invalid(header, null, `invalid record count ${count}`);
      this.reader = new Reader(recordsSection(this.buf, header, this.options));
    }
    const reader = this.reader;
    const index = this.index + 1;
    if (index >= count) {
      if (reader.remaining() !== 0) throw invalid(header, null, `${reader.remaining()} bytes left after the declared ${count} records`);
      return false;
    }
    try {
      // The scan's common case in local variables; anything unusual is parsed again by readRecord,
      // which accepts it or throws the exact error.
      const next = this.keep ? -1 : skipRecord(reader.buf, reader.offset, reader.end, this.frame);
      if (next >= 0) reader.offset = next;
      else readRecord(reader, header, index, this.frame, this.keep);
    } catch (e) {
      if (e instanceof DecodeError) throw invalid(header, index, `record ${index}: ${e.message}`, e);
      throw e;
    }
    this.index = index;
    return true;
  }
}

/** The batch's records section: a view on `buf`, or the decompressor's output for a compressed batch. */
function recordsSection(buf: Buffer, header: BatchHeader, options: RecordReadOptions): Buffer {
  const codec = compressionCodecId(header.attributes);
  const recordsStart = header.start + RECORDS_OFFSET;
  if (codec === CompressionType.None) return buf.subarray(recordsStart, header.end);
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
  return inflated;
}

function readRecord(reader: Reader, header: BatchHeader, index: number, frame: RecordFrame, keep: boolean): void {
  const bodyLength = reader.varint();
  if (bodyLength < 0 || bodyLength > reader.remaining()) {
    throw invalid(header, index, `record ${index} claims ${bodyLength} bytes, ${reader.remaining()} left`);
  }
  // Parse within the body so a lying inner length cannot reach into the next record.
  const sectionEnd = reader.end;
  const bodyEnd = reader.offset + bodyLength;
  reader.end = bodyEnd;
  reader.int8(); // record attributes: unused by magic 2
  frame.timestampDelta = reader.varlongNumber() ?? reader.varlong();
  frame.offsetDelta = reader.varint();
  const keyLength = reader.varint();
  frame.hasKey = keyLength >= 0;
  frame.key = bytesOrSkip(reader, keyLength, keep);
  frame.value = bytesOrSkip(reader, reader.varint(), keep);
  const headerCount = reader.varint();
  if (headerCount < 0 || headerCount > reader.remaining()) {
    throw invalid(header, index, `record ${index} has ${headerCount} headers with ${reader.remaining()} bytes left`);
  }
  const headers: RecordHeader[] = keep ? [] : frame.headers;
  for (let h = 0; h < headerCount; h++) {
    const keyLength = reader.varint();
    if (keyLength < 0) throw invalid(header, index, `record ${index} header ${h} has key length ${keyLength}`);
    if (keep) {
      const headerKey = reader.raw(keyLength).toString('utf8');
      headers.push({ key: headerKey, value: bytesOrSkip(reader, reader.varint(), true) });
    } else {
      reader.skip(keyLength);
      bytesOrSkip(reader, reader.varint(), false);
    }
  }
  frame.headers = headers;
  if (reader.remaining() !== 0) {
    throw invalid(header, index, `record ${index} body is ${bodyLength} bytes but its fields take ${bodyLength - reader.remaining()}`);
  }
  reader.end = sectionEnd;
}

/**
 * `readRecord` without keeping anything, for a record whose fields all fit the fast forms:
 * varints within 5 bytes and a timestamp delta within 7, every length inside the record's body.
 * Fills `frame` and returns the position after the record, or -1 (frame unspecified) for a
 * record that `readRecord` must look at, well-formed or not. Per record, this is most of the
 * produce path's validation of an uncompressed batch.
 */
function skipRecord(buf: Buffer, start: number, sectionEnd: number, frame: RecordFrame): number {
  at = start;
  const bodyLength = varintBefore(buf, sectionEnd);
  if (bodyLength !== bodyLength || bodyLength < 0 || bodyLength > sectionEnd - at) return -1;
  const end = at + bodyLength;
  if (at >= end) return -1;
  at++; // record attributes: unused by magic 2
  const timestampDelta = varlongBefore(buf, end);
  const offsetDelta = varintBefore(buf, end);
  const keyLength = varintBefore(buf, end);
  if (timestampDelta !== timestampDelta || offsetDelta !== offsetDelta || keyLength !== keyLength || !skipNullable(keyLength, end))
    return -1;
  const valueLength = varintBefore(buf, end);
  if (valueLength !== valueLength || !skipNullable(valueLength, end)) return -1;
  const headerCount = varintBefore(buf, end);
  if (headerCount !== headerCount || headerCount < 0 || headerCount > end - at) return -1;
  for (let h = 0; h < headerCount; h++) {
    const headerKeyLength = varintBefore(buf, end);
    if (headerKeyLength !== headerKeyLength || headerKeyLength < 0 || !skipNullable(headerKeyLength, end)) return -1;
    const headerValueLength = varintBefore(buf, end);
    if (headerValueLength !== headerValueLength || !skipNullable(headerValueLength, end)) return -1;
  }
  if (at !== end) return -1;
  frame.timestampDelta = timestampDelta;
  frame.offsetDelta = offsetDelta;
  frame.hasKey = keyLength >= 0;
  frame.key = null;
  frame.value = null;
  return end;
}

/** `skipRecord`'s read position, shared with its helpers so that each returns one number. */
let at = 0;

/** Moves past a nullable field (any negative length is null); false if it would pass `end`. */
function skipNullable(length: number, end: number): boolean {
  if (length < 0) return true;
  if (length > end - at) return false;
  at += length;
  return true;
}

/** `Reader.varint` at `at`, or NaN where it would read at or past `end` (nothing then is certain about `at`). */
function varintBefore(buf: Buffer, end: number): number {
  let value = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (at >= end) return NaN;
    const b = buf[at++]!;
    value |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) {
      const raw = value >>> 0;
      return (raw >>> 1) ^ -(raw & 1);
    }
  }
  return NaN;
}

/** `Reader.varlongNumber` at `at`: NaN for one longer than 7 bytes or reaching `end`. */
function varlongBefore(buf: Buffer, end: number): number {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 7; i++) {
    if (at >= end) return NaN;
    const b = buf[at++]!;
    value += (b & 0x7f) * scale;
    if ((b & 0x80) === 0) return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
    scale *= 128;
  }
  return NaN;
}

/** A nullable field of `length` bytes (Kafka treats any negative length as null, not only -1): a view when kept, else skipped. */
function bytesOrSkip(reader: Reader, length: number, keep: boolean): Buffer | null {
  if (length < 0) return null;
  if (keep) return reader.raw(length);
  reader.skip(length);
  return null;
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
