/**
 * The int16 `attributes` field of a magic-2 batch. Only the low 7 bits carry meaning; the rest
 * are written as zero and ignored on read, as Kafka does.
 */
import { CompressionCodec } from './compression-codec.js';

/**
 * The codec ids of bits 0-2 are the ones the codecs are called by, so the records module names
 * native's table (Kafka's `CompressionType`) rather than keeping a copy that could drift.
 */
export const CompressionType = CompressionCodec;
export type CompressionType = CompressionCodec;

export const TimestampType = {
  CreateTime: 0,
  LogAppendTime: 1,
} as const;
export type TimestampType = (typeof TimestampType)[keyof typeof TimestampType];

const COMPRESSION_CODEC_MASK = 0x07;
const TIMESTAMP_TYPE_MASK = 0x08;
const TRANSACTIONAL_FLAG_MASK = 0x10;
const CONTROL_FLAG_MASK = 0x20;
const DELETE_HORIZON_FLAG_MASK = 0x40;

export interface BatchAttributes {
  readonly compression: CompressionType;
  readonly timestampType: TimestampType;
  readonly isTransactional: boolean;
  readonly isControl: boolean;
  /** Set by compaction: `baseTimestamp` then holds the delete horizon, not the first timestamp. */
  readonly hasDeleteHorizon: boolean;
}

/**
 * The raw codec id (0-7). Ids 5-7 are not codecs; validation rejects them, so this accessor
 * does not pretend they are a `CompressionType`.
 */
export function compressionCodecId(attributes: number): number {
  return attributes & COMPRESSION_CODEC_MASK;
}

export function isKnownCompressionType(id: number): id is CompressionType {
  return id >= CompressionType.None && id <= CompressionType.Zstd;
}

export function timestampTypeOf(attributes: number): TimestampType {
  return attributes & TIMESTAMP_TYPE_MASK ? TimestampType.LogAppendTime : TimestampType.CreateTime;
}

export function isTransactional(attributes: number): boolean {
  return (attributes & TRANSACTIONAL_FLAG_MASK) !== 0;
}

export function isControl(attributes: number): boolean {
  return (attributes & CONTROL_FLAG_MASK) !== 0;
}

export function hasDeleteHorizon(attributes: number): boolean {
  return (attributes & DELETE_HORIZON_FLAG_MASK) !== 0;
}

/** Returns null for a codec id outside 0-4, which no valid batch carries. */
export function decodeAttributes(attributes: number): BatchAttributes | null {
  const compression = compressionCodecId(attributes);
  if (!isKnownCompressionType(compression)) return null;
  return {
    compression,
    timestampType: timestampTypeOf(attributes),
    isTransactional: isTransactional(attributes),
    isControl: isControl(attributes),
    hasDeleteHorizon: hasDeleteHorizon(attributes),
  };
}

export function encodeAttributes(a: BatchAttributes): number {
  return (
    a.compression |
    (a.timestampType === TimestampType.LogAppendTime ? TIMESTAMP_TYPE_MASK : 0) |
    (a.isTransactional ? TRANSACTIONAL_FLAG_MASK : 0) |
    (a.isControl ? CONTROL_FLAG_MASK : 0) |
    (a.hasDeleteHorizon ? DELETE_HORIZON_FLAG_MASK : 0)
  );
}

/** The same attributes with the timestamp type replaced; the other bits are kept as they are. */
export function withTimestampType(attributes: number, type: TimestampType): number {
  const cleared = attributes & ~TIMESTAMP_TYPE_MASK;
  return type === TimestampType.LogAppendTime ? cleared | TIMESTAMP_TYPE_MASK : cleared;
}
