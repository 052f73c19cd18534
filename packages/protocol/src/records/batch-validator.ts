/**
 * What Kafka's broker checks before appending batches, split so the hot path can stop at the
 * headers: `checkBatchHeader` reads 61 bytes and runs one CRC pass; `checkBatchRecords` walks
 * the records (decompressing if needed) for the structural and per-record rules.
 *
 * Sources of each rule and its error code: `UnifiedLog.analyzeAndValidateRecords` (base offset,
 * size, CRC), `LogValidator.validateBatch` (offset range, count, control, sequence),
 * `LogValidator.validateRecord` (key on compacted topics, timestamps), `ProduceRequest
 * .validateRecords` (exactly one magic-2 batch). See docs/design/records.md.
 */
import { recordsPass } from '../accelerators.js';
import { compressionCodecId, CompressionType, isControl, isKnownCompressionType, timestampTypeOf, TimestampType } from './attributes.js';
import { BatchScan, type BatchHeader } from './batch-header.js';
import { computeBatchCrc } from './batch-crc.js';
import { RECORDS_OFFSET } from './batch-layout.js';
import { RecordErrorCode, RecordValidationError, type RecordError } from './record-error.js';
import { scanRecords, type RecordReadOptions } from './record-reader.js';

/**
 * `client`: a Produce request, held to Kafka's AppendOrigin.CLIENT rules. `internal`: batches
 * the broker wrote itself or replicates (coordinators, followers, segment recovery), which
 * carry real offsets and may be control batches.
 */
export type AppendOrigin = 'client' | 'internal';

export interface BatchCheckOptions {
  readonly origin: AppendOrigin;
  /** The topic's `max.message.bytes`; larger batches get MESSAGE_TOO_LARGE. */
  readonly maxBatchBytes?: number;
}

export interface TimestampWindow {
  readonly now: bigint;
  /** `message.timestamp.before.max.ms` */
  readonly beforeMaxMs: bigint;
  /** `message.timestamp.after.max.ms` */
  readonly afterMaxMs: bigint;
}

export interface RecordCheckOptions extends RecordReadOptions {
  /** Compacted topics refuse records without a key. */
  readonly requireKeys?: boolean;
  /** Set for CreateTime topics; LogAppendTime topics overwrite timestamps instead. */
  readonly timestampWindow?: TimestampWindow;
}

export function checkBatchHeader(buf: Buffer, header: BatchHeader, options: BatchCheckOptions): RecordValidationError | null {
  const fail = (code: RecordErrorCode, message: string): RecordValidationError => new RecordValidationError(code, message, header.start);
  const client = options.origin === 'client';
  if (client && header.baseOffset !== 0n) {
    return fail(RecordErrorCode.InvalidRecord, `base offset of a produced batch must be 0, is ${header.baseOffset}`);
  }
  const size = header.end - header.start;
  if (options.maxBatchBytes !== undefined && size > options.maxBatchBytes) {
    return fail(RecordErrorCode.MessageTooLarge, `batch of ${size} bytes exceeds the maximum ${options.maxBatchBytes}`);
  }
  const crc = computeBatchCrc(buf, header.start, header.end);
  if (crc !== header.crc) {
    return fail(RecordErrorCode.CorruptMessage, `CRC mismatch: stored ${header.crc}, computed ${crc}`);
  }
  const codec = compressionCodecId(header.attributes);
  if (!isKnownCompressionType(codec)) {
    return fail(RecordErrorCode.CorruptMessage, `unknown compression codec ${codec}`);
  }
  if (!client) return null;
  if (header.lastOffsetDelta < 0) {
    return fail(RecordErrorCode.InvalidRecord, `invalid offset range: last offset delta ${header.lastOffsetDelta}`);
  }
  if (header.recordsCount <= 0) {
    return fail(RecordErrorCode.InvalidRecord, `invalid record count ${header.recordsCount}`);
  }
  if (header.recordsCount !== header.lastOffsetDelta + 1) {
    return fail(RecordErrorCode.InvalidRecord, `last offset delta ${header.lastOffsetDelta} does not match ${header.recordsCount} records`);
  }
  if (isControl(header.attributes)) {
    return fail(RecordErrorCode.InvalidRecord, 'clients may not write control batches');
  }
  if (header.producerId >= 0n && header.baseSequence < 0) {
    return fail(RecordErrorCode.InvalidRecord, `producer ${header.producerId} sent base sequence ${header.baseSequence}`);
  }
  return null;
}

/**
 * Walks every record, skipping keys, values and headers (Kafka's `skipKeyValueIterator`; for a
 * compressed batch, over the decompressor's output). Structural faults stop the walk
 * (INVALID_RECORD, or CORRUPT_MESSAGE for undecompressible data); policy faults are collected
 * per record, as Kafka does, and returned together (INVALID_TIMESTAMP if any is a timestamp
 * fault, else INVALID_RECORD). Nothing of the records is kept past the call, so `decompress` may
 * return memory that it reuses.
 *
 * Kafka rewrites a batch whose records' offset deltas are not 0, 1, 2…; Sluice appends batches
 * as they are, so it refuses such a batch instead (INVALID_RECORD).
 *
 * A compressed batch needs `options.decompress`; without one this throws `TypeError` (a caller
 * bug, not bad input).
 */
export function checkBatchRecords(buf: Buffer, header: BatchHeader, options: RecordCheckOptions = {}): RecordValidationError | null {
  const recordErrors: RecordError[] = [];
  let timestampFault = false;
  const window =
    timestampTypeOf(header.attributes) === TimestampType.CreateTime ? windowOf(options.timestampWindow, header.baseTimestamp) : undefined;
  const requireKeys = options.requireKeys === true;
  // The common case, every record passing, in one native loop; the walk below finds the errors.
  if (
    compressionCodecId(header.attributes) === CompressionType.None &&
    header.recordsCount >= 0 &&
    recordsPass(
      buf.subarray(header.start + RECORDS_OFFSET, header.end),
      header.recordsCount,
      window?.insideDeltaLo ?? -Infinity,
      window?.insideDeltaHi ?? Infinity,
      requireKeys,
    )
  ) {
    return null;
  }
  const baseTimestamp = Number.isSafeInteger(Number(header.baseTimestamp)) ? Number(header.baseTimestamp) : null;
  try {
    scanRecords(buf, header, options, (index, record) => {
      if (record.offsetDelta !== index) {
        recordErrors.push({ batchIndex: index, message: `offset delta ${record.offsetDelta} at position ${index}` });
      } else if (requireKeys && !record.hasKey) {
        recordErrors.push({ batchIndex: index, message: 'compacted topic cannot accept a record without a key' });
      } else if (window !== undefined && !surelyInside(record.timestampDelta, window)) {
        const timestamp = timestampOf(baseTimestamp, header.baseTimestamp, record.timestampDelta);
        if (timestamp !== -1 && timestamp !== -1n && outsideWindow(timestamp, window)) {
          timestampFault = true;
          recordErrors.push({ batchIndex: index, message: `timestamp ${timestamp} is out of range` });
        }
      }
    });
  } catch (e) {
    if (e instanceof RecordValidationError) return e;
    throw e;
  }
  if (recordErrors.length === 0) return null;
  const code = timestampFault ? RecordErrorCode.InvalidTimestamp : RecordErrorCode.InvalidRecord;
  return new RecordValidationError(code, `${recordErrors.length} records rejected`, header.start, null, { recordErrors });
}

/**
 * The window in both forms: numbers for the common case, bigints where a number would not be
 * exact; and, for one batch, the timestamp deltas whose records are inside it, so that most
 * records are judged with two comparisons.
 */
interface Window extends TimestampWindow {
  readonly nowMs: number;
  readonly beforeMs: number;
  readonly afterMs: number;
  readonly insideDeltaLo: number;
  readonly insideDeltaHi: number;
}

/**
 * `base`: the batch's base timestamp. The delta bounds are exact for every delta a number holds
 * (|delta| < 2^53): a bound beyond 2^53 in magnitude is rounded, but stays beyond every such delta.
 */
function windowOf(window: TimestampWindow | undefined, base: bigint): Window | undefined {
  if (window === undefined) return undefined;
  return {
    ...window,
    nowMs: Number(window.now),
    beforeMs: Number(window.beforeMaxMs),
    afterMs: Number(window.afterMaxMs),
    insideDeltaLo: Number(window.now - window.beforeMaxMs - base),
    insideDeltaHi: Number(window.now + window.afterMaxMs - base),
  };
}

/** True when a record's timestamp is inside the window by its delta alone; false: check it exactly. */
function surelyInside(delta: number | bigint, window: Window): boolean {
  return typeof delta === 'number' && delta >= window.insideDeltaLo && delta <= window.insideDeltaHi;
}

/** A record's timestamp as a number while that is exact (always, for real clocks), else as a bigint. */
function timestampOf(baseNumber: number | null, base: bigint, delta: number | bigint): number | bigint {
  if (baseNumber !== null && typeof delta === 'number') {
    const timestamp = baseNumber + delta;
    if (Number.isSafeInteger(timestamp)) return timestamp;
  }
  return base + BigInt(delta);
}

function outsideWindow(timestamp: number | bigint, window: Window): boolean {
  if (typeof timestamp === 'number' && Number.isSafeInteger(window.nowMs)) {
    const age = window.nowMs - timestamp;
    // Exact while |age| < 2^53; a bound beyond that is larger than any such age however it rounds.
    if (Number.isSafeInteger(age)) return age > window.beforeMs || -age > window.afterMs;
  }
  const age = window.now - BigInt(timestamp);
  return age > window.beforeMaxMs || -age > window.afterMaxMs;
}

export type ProduceValidation =
  | { readonly ok: true; readonly batch: BatchHeader; readonly trailingBytes: number }
  | { readonly ok: false; readonly error: RecordValidationError };

export interface ProduceValidationOptions {
  readonly maxBatchBytes?: number;
  /** Omit to check headers and CRC only; Kafka walks the records too. */
  readonly records?: RecordCheckOptions;
}

/**
 * The `records` field of one partition in a Produce request (v3+): exactly one whole magic-2
 * batch. A partial batch after it is tolerated and reported in `trailingBytes`, because Kafka
 * trims such bytes before appending rather than failing the request; the caller must append
 * only `batch.start..batch.end`.
 */
export function validateProduceRecords(buf: Buffer, options: ProduceValidationOptions = {}): ProduceValidation {
  const scan = new BatchScan(buf);
  let batch: BatchHeader | null = null;
  try {
    for (const header of scan) {
      if (batch !== null) {
        return fail(RecordErrorCode.InvalidRecord, 'a produce request may carry only one batch per partition', header.start);
      }
      batch = header;
    }
  } catch (e) {
    if (e instanceof RecordValidationError) return { ok: false, error: e };
    throw e;
  }
  if (batch === null) return fail(RecordErrorCode.InvalidRecord, 'no whole record batch in the produce request', 0);
  const error =
    checkBatchHeader(buf, batch, { origin: 'client', maxBatchBytes: options.maxBatchBytes }) ??
    (options.records === undefined ? null : checkBatchRecords(buf, batch, options.records));
  if (error !== null) return { ok: false, error };
  return { ok: true, batch, trailingBytes: scan.trailingBytes };
}

function fail(code: RecordErrorCode, message: string, batchStart: number): ProduceValidation {
  return { ok: false, error: new RecordValidationError(code, message, batchStart) };
}

export type BatchesValidation =
  | {
      readonly ok: true;
      readonly batches: readonly BatchHeader[];
      /** Length of the prefix made of whole, valid batches. */
      readonly validBytes: number;
      readonly trailingBytes: number;
    }
  | { readonly ok: false; readonly error: RecordValidationError; readonly validBytes: number };

/**
 * Header and CRC checks over a run of batches the broker wrote or replicates (a follower's
 * fetch, a segment scanned at recovery). Stops at the first bad batch and says how many bytes
 * before it were good, which is where recovery truncates.
 */
export function validateBatches(buf: Buffer, options: BatchCheckOptions = { origin: 'internal' }): BatchesValidation {
  const batches: BatchHeader[] = [];
  const scan = new BatchScan(buf);
  let validBytes = 0;
  try {
    for (const header of scan) {
      const error = checkBatchHeader(buf, header, options);
      if (error !== null) return { ok: false, error, validBytes };
      batches.push(header);
      validBytes = header.end;
    }
  } catch (e) {
    if (e instanceof RecordValidationError) return { ok: false, error: e, validBytes };
    throw e;
  }
  return { ok: true, batches, validBytes, trailingBytes: scan.trailingBytes };
}
