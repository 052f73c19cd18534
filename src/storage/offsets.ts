/**
 * Branded numbers for the positions only storage knows, beside the broker-wide `Offset`
 * (`@sluice/protocol/common/offsets.ts`), so that passing a file position where an offset is
 * expected fails to compile.
 */
import type { Brand, Offset } from '@sluice/protocol/common/offsets.js';

/** `offset - segment.baseOffset`, stored in 32 bits in `.index` and `.timeindex`. */
export type RelativeOffset = Brand<number, 'RelativeOffset'>;
/** A byte position inside a `.log` file (u32 in `.index`). */
export type FilePosition = Brand<number, 'FilePosition'>;

export const INT32_MAX = 0x7fffffff;

export function positionOf(value: number): FilePosition {
  return value as FilePosition;
}

/** Whether `offset` can be stored relative to `baseOffset` in an index entry (Kafka's `canConvertToRelativeOffset`). */
export function fitsRelative(baseOffset: Offset, offset: Offset): boolean {
  const relative = offset - baseOffset;
  return relative >= 0 && relative <= INT32_MAX;
}
