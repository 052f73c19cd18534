/**
 * Producer sequence arithmetic. Sequences are int32 per producer and partition and wrap from
 * Int32.MAX to 0 (Kafka's `DefaultRecordBatch.incrementSequence` / `decrementSequence`), so a
 * producer that has sent 2^31 records keeps going at 0 instead of failing.
 */
import { INT32_MAX } from '../offsets.js';

/** `sequence + increment`, wrapping past Int32.MAX to 0. */
export function incrementSequence(sequence: number, increment: number): number {
  return sequence > INT32_MAX - increment ? increment - (INT32_MAX - sequence) - 1 : sequence + increment;
}

/** `sequence - decrement`, wrapping below 0 to Int32.MAX. */
export function decrementSequence(sequence: number, decrement: number): number {
  return sequence < decrement ? INT32_MAX - (decrement - sequence) + 1 : sequence - decrement;
}

/** Whether `next` is the sequence right after `last` (Kafka's `ProducerAppendInfo.inSequence`). */
export function inSequence(last: number, next: number): boolean {
  return next === last + 1 || (next === 0 && last === INT32_MAX);
}
