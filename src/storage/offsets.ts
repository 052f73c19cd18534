/**
 * Branded numbers for the three quantities the storage code juggles, so that passing a file
 * position where an offset is expected fails to compile. Offsets are JS numbers, not bigints:
 * they stay exact up to 2^53 (nine quadrillion records), and number arithmetic keeps the index
 * searches and the append path free of bigint allocations. Conversions to and from the bigints
 * of the record codec happen at the edges (`offsetOf`, `BigInt(offset)`).
 */
declare const brand: unique symbol;
type Brand<T, B extends string> = T & { readonly [brand]: B };

/** An absolute Kafka offset (int64 on the wire, exact here up to 2^53). */
export type Offset = Brand<number, 'Offset'>;
/** `offset - segment.baseOffset`, stored in 32 bits in `.index` and `.timeindex`. */
export type RelativeOffset = Brand<number, 'RelativeOffset'>;
/** A byte position inside a `.log` file (u32 in `.index`). */
export type FilePosition = Brand<number, 'FilePosition'>;

export const INT32_MAX = 0x7fffffff;

export function offsetOf(value: number | bigint): Offset {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`offset ${value} is not a safe integer`);
  return n as Offset;
}

export function positionOf(value: number): FilePosition {
  return value as FilePosition;
}

/** Whether `offset` can be stored relative to `baseOffset` in an index entry (Kafka's `canConvertToRelativeOffset`). */
export function fitsRelative(baseOffset: Offset, offset: Offset): boolean {
  const relative = offset - baseOffset;
  return relative >= 0 && relative <= INT32_MAX;
}
