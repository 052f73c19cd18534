/**
 * Encodes one magic-2 batch, byte for byte what Kafka's `MemoryRecordsBuilder` writes:
 * `baseTimestamp` is the first record's timestamp (or the delete horizon when one is set),
 * `maxTimestamp` the largest record timestamp (or the log-append time), `lastOffsetDelta` the
 * last record's offset delta, and the CRC32C covers `attributes` to the end.
 *
 * Sizes are computed before writing, so the output is allocated once at its exact length.
 */
import { crc32c } from '../accelerators.js';
import { EncodeError } from '../primitives/decode-error.js';
import { unsignedVarintSize, Writer } from '../primitives/writer.js';
import { CompressionType, encodeAttributes, TimestampType } from './attributes.js';
import {
  ATTRIBUTES_OFFSET,
  CRC_OFFSET,
  LOG_OVERHEAD,
  MAGIC_V2,
  NO_PARTITION_LEADER_EPOCH,
  NO_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  NO_SEQUENCE,
  NO_TIMESTAMP,
  RECORD_BATCH_OVERHEAD,
} from './batch-layout.js';

export interface RecordHeaderInput {
  readonly key: string;
  readonly value: Uint8Array | null;
}

export interface RecordInput {
  readonly key: Uint8Array | null;
  readonly value: Uint8Array | null;
  readonly headers?: readonly RecordHeaderInput[];
  /** Milliseconds since the epoch; -1 for "no timestamp". */
  readonly timestamp: bigint;
  /** Defaults to the record's position; must increase strictly when given. */
  readonly offsetDelta?: number;
}

export interface RecordBatchInput {
  readonly baseOffset?: bigint;
  readonly partitionLeaderEpoch?: number;
  readonly compression?: CompressionType;
  /** Set to write a LogAppendTime batch whose `maxTimestamp` is this time. */
  readonly logAppendTime?: bigint;
  readonly producerId?: bigint;
  readonly producerEpoch?: number;
  readonly baseSequence?: number;
  readonly isTransactional?: boolean;
  readonly isControl?: boolean;
  /** Compaction's delete horizon; stored as `baseTimestamp` with attribute bit 6 set. */
  readonly deleteHorizonMs?: bigint;
  readonly records: readonly RecordInput[];
}

/** Compresses a batch's records section with the codec named in its attributes. */
export type Compressor = (codec: CompressionType, data: Buffer) => Buffer;

const INT32_MAX = 0x7fffffff;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

export function encodeRecordBatch(input: RecordBatchInput, compress?: Compressor): Buffer {
  const { records } = input;
  if (records.length === 0) throw new EncodeError('a record batch needs at least one record');
  const compression = input.compression ?? CompressionType.None;
  const baseTimestamp = input.deleteHorizonMs ?? records[0]!.timestamp;
  const offsetDeltas = recordOffsetDeltas(records);

  let recordsSize = 0;
  const bodySizes: number[] = [];
  let maxTimestamp = NO_TIMESTAMP;
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    const bodySize = recordBodySize(record, record.timestamp - baseTimestamp, offsetDeltas[i]!);
    bodySizes.push(bodySize);
    recordsSize += varintSize(bodySize) + bodySize;
    if (record.timestamp > maxTimestamp) maxTimestamp = record.timestamp;
  }

  let recordsSection: Buffer | null = null;
  if (compression !== CompressionType.None) {
    if (compress === undefined) throw new EncodeError(`compression ${compression} requested without a compressor`);
    const plain = new Writer(recordsSize);
    writeRecords(plain, records, bodySizes, offsetDeltas, baseTimestamp);
    recordsSection = compress(compression, plain.finish());
    recordsSize = recordsSection.length;
  }

  const totalSize = RECORD_BATCH_OVERHEAD + recordsSize;
  if (totalSize - LOG_OVERHEAD > INT32_MAX) throw new EncodeError(`batch of ${totalSize} bytes is too large`);
  const w = new Writer(totalSize);
  w.int64(input.baseOffset ?? 0n);
  w.int32(totalSize - LOG_OVERHEAD);
  w.int32(input.partitionLeaderEpoch ?? NO_PARTITION_LEADER_EPOCH);
  w.int8(MAGIC_V2);
  w.reserve(4); // CRC, filled in once the bytes it covers exist
  w.int16(
    encodeAttributes({
      compression,
      timestampType: input.logAppendTime === undefined ? TimestampType.CreateTime : TimestampType.LogAppendTime,
      isTransactional: input.isTransactional ?? false,
      isControl: input.isControl ?? false,
      hasDeleteHorizon: input.deleteHorizonMs !== undefined,
    }),
  );
  w.int32(offsetDeltas[offsetDeltas.length - 1]!);
  w.int64(baseTimestamp);
  w.int64(input.logAppendTime ?? maxTimestamp);
  w.int64(input.producerId ?? NO_PRODUCER_ID);
  w.int16(input.producerEpoch ?? NO_PRODUCER_EPOCH);
  w.int32(input.baseSequence ?? NO_SEQUENCE);
  w.int32(records.length);
  if (recordsSection === null) writeRecords(w, records, bodySizes, offsetDeltas, baseTimestamp);
  else w.raw(recordsSection);

  const batch = w.finish();
  batch.writeUInt32BE(crc32c(batch.subarray(ATTRIBUTES_OFFSET)), CRC_OFFSET);
  return batch;
}

function recordOffsetDeltas(records: readonly RecordInput[]): number[] {
  const deltas: number[] = [];
  let previous = -1;
  for (let i = 0; i < records.length; i++) {
    const delta = records[i]!.offsetDelta ?? i;
    if (!Number.isInteger(delta) || delta <= previous || delta > INT32_MAX) {
      throw new EncodeError(`record ${i} has offset delta ${delta}; deltas must increase and fit in int32`);
    }
    deltas.push(delta);
    previous = delta;
  }
  return deltas;
}

function recordBodySize(record: RecordInput, timestampDelta: bigint, offsetDelta: number): number {
  if (timestampDelta < INT64_MIN || timestampDelta > INT64_MAX) {
    throw new EncodeError(`timestamp delta ${timestampDelta} does not fit in int64`);
  }
  let size = 1 + varlongSize(timestampDelta) + varintSize(offsetDelta);
  size += nullableBytesSize(record.key) + nullableBytesSize(record.value);
  const headers = record.headers ?? [];
  size += varintSize(headers.length);
  for (const header of headers) {
    const keyLength = Buffer.byteLength(header.key, 'utf8');
    size += varintSize(keyLength) + keyLength + nullableBytesSize(header.value);
  }
  return size;
}

function writeRecords(
  w: Writer,
  records: readonly RecordInput[],
  bodySizes: readonly number[],
  offsetDeltas: readonly number[],
  baseTimestamp: bigint,
): void {
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    w.varint(bodySizes[i]!);
    w.int8(0); // record attributes: unused by magic 2
    w.varlong(record.timestamp - baseTimestamp);
    w.varint(offsetDeltas[i]!);
    writeNullableBytes(w, record.key);
    writeNullableBytes(w, record.value);
    const headers = record.headers ?? [];
    w.varint(headers.length);
    for (const header of headers) {
      const key = Buffer.from(header.key, 'utf8');
      w.varint(key.length);
      w.raw(key);
      writeNullableBytes(w, header.value);
    }
  }
}

function writeNullableBytes(w: Writer, bytes: Uint8Array | null): void {
  if (bytes === null) {
    w.varint(-1);
  } else {
    w.varint(bytes.length);
    w.raw(bytes);
  }
}

function nullableBytesSize(bytes: Uint8Array | null): number {
  return bytes === null ? 1 : varintSize(bytes.length) + bytes.length;
}

/** Size of a zig-zag varint. */
function varintSize(v: number): number {
  return unsignedVarintSize((v << 1) ^ (v >> 31));
}

/** Size of a zig-zag varlong. */
function varlongSize(v: bigint): number {
  let value = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
  let size = 1;
  while (value >= 0x80n) {
    value >>= 7n;
    size++;
  }
  return size;
}
