/**
 * The vocabulary of log positions both ends of the broker share: a branded `Offset` and
 * `LeaderEpoch`, so that an epoch passed where an offset is expected, or a plain count where
 * either is, fails to compile. The generated codecs give int64 offsets as bigints and epochs as
 * numbers; a request handler converts them once, with `offsetOf` and `leaderEpochOf`, and the
 * brands travel from there through the partition rings, replication and storage, and back out
 * with `wireOffset`.
 *
 * Offsets are JS numbers, not bigints: exact up to 2^53 (nine quadrillion records), and number
 * arithmetic keeps the index searches and the append path free of bigint allocations.
 */
import { ErrorCode } from '../errors.js';
import { KafkaError } from './kafka-error.js';

declare const brand: unique symbol;
/** `T` that only a conversion function (or a cast in one) makes: the compiler tells brands apart. */
export type Brand<T, B extends string> = T & { readonly [brand]: B };

/** An absolute Kafka offset (int64 on the wire, exact here up to 2^53); -1 stands for "none". */
export type Offset = Brand<number, 'Offset'>;

/** A partition's leader epoch (int32 on the wire); -1 stands for "none" or "do not check". */
export type LeaderEpoch = Brand<number, 'LeaderEpoch'>;

/** An offset, watermark or log start that an answer leaves unknown (an error's, an empty log's). */
export const NO_OFFSET = -1 as Offset;

/** "No epoch": a fetch without a last fetched epoch, a diverging epoch's absence, an empty log's latest epoch. */
export const NO_EPOCH = -1 as LeaderEpoch;

/** The leader epoch a client names for a partition, or this: "do not check". */
export const NO_EPOCH_CHECK = -1 as LeaderEpoch;

/**
 * A wire int64 (or a number counted here) as an offset. Beyond 2^53, where it would not be exact,
 * no log here reaches: OFFSET_OUT_OF_RANGE.
 */
export function offsetOf(value: number | bigint): Offset {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new KafkaError(ErrorCode.OFFSET_OUT_OF_RANGE, `offset ${value} is beyond 2^53`);
  return n as Offset;
}

/** A wire int32 as a leader epoch (any value: the fencing rules answer a client's odd ones). */
export function leaderEpochOf(value: number): LeaderEpoch {
  return value as LeaderEpoch;
}

/** The earliest of some offsets. */
export function earliest(...offsets: Offset[]): Offset {
  return Math.min(...offsets) as Offset;
}

/** The latest of some offsets. */
export function latest(...offsets: Offset[]): Offset {
  return Math.max(...offsets) as Offset;
}

/** The next offset. */
export function nextOffset(offset: Offset): Offset {
  return (offset + 1) as Offset;
}

/** An offset as the generated codecs write int64s. */
export function wireOffset(offset: Offset): bigint {
  return BigInt(offset);
}
