/**
 * Byte layout of one single-producer single-consumer ring (one per direction per worker). Every
 * offset used by `spsc-ring.ts` is defined here and nowhere else.
 *
 * ```
 * SharedArrayBuffer
 * ┌───────────────────────────── header: 256 bytes, four 64-byte cache lines ─────────────────┐
 * │ byte   0  TAIL              Int32  written by the producer only                            │
 * │ byte  64  HEAD              Int32  written by the consumer only                            │
 * │ byte 128  CONSUMER_SLEEPING Int32  written by the consumer only (1 = about to wait on TAIL) │
 * │ byte 192  PRODUCER_WAITING  Int32  written by the producer only (1 = about to wait on HEAD)│
 * └────────────────────────────────────────────────────────────────────────────────────────────┘
 * ┌───────────────────────────── data: `capacity` bytes (a multiple of 8) ─────────────────────┐
 * │ frame: [u32 payloadLength LE][u32 unused][payload][0–7 unspecified bytes to a multiple of 8]│
 * │ wrap marker: [u32 0xFFFFFFFF] — the rest of this lap is unused, the next frame is at 0     │
 * └────────────────────────────────────────────────────────────────────────────────────────────┘
 * ```
 *
 * HEAD and TAIL are "virtual" positions in [0, 2 × capacity): the data offset is the position
 * modulo capacity, and the extra lap bit tells a full ring (tail − head = capacity) from an empty
 * one (tail = head) without wasting a slot, for any capacity (not only powers of two). Each index
 * sits on its own cache line so the producer's stores to TAIL do not invalidate the line the
 * consumer keeps storing HEAD to.
 *
 * Frames start at multiples of 8, so at least 8 bytes remain before the end of the data region
 * whenever a frame does not fit there: a 4-byte wrap marker always fits. A message never splits
 * across the end, so a reader can hand out one contiguous view of it.
 *
 * The prefix is 8 bytes so that payloads start 8-byte aligned: V8 copies into shared memory a
 * word at a time only when both addresses are word-aligned, a byte at a time otherwise (64 KiB
 * messages: 2.7 GiB/s with a 4-byte prefix, 15 GiB/s with 8, one thread). Message headers that
 * are multiples of 8 bytes keep what follows them aligned too.
 */

/** Int32 index (not byte offset) of each header field, for `Atomics` on an `Int32Array`. */
export const TAIL_INDEX = 0;
export const HEAD_INDEX = 64 / 4;
export const CONSUMER_SLEEPING_INDEX = 128 / 4;
export const PRODUCER_WAITING_INDEX = 192 / 4;

export const HEADER_BYTES = 256;

/** Every frame starts at a multiple of this; also the granularity of `capacity`. */
export const FRAME_ALIGNMENT = 8;
/** u32 length + 4 unused bytes, so that payloads are 8-byte aligned. */
export const LENGTH_PREFIX_BYTES = 8;
/** Written in place of a length prefix: skip to the start of the next lap. */
export const WRAP_MARKER = 0xffffffff;

/** Positions must stay below 2^31 (Int32) with their lap bit: capacity ≤ 2^30. */
export const MAX_CAPACITY = 2 ** 30;
/** Smallest data region: one frame with an 8-byte payload. */
export const MIN_CAPACITY = 16;

/** Bytes a frame carrying `payloadLength` bytes occupies in the data region. */
export function frameBytes(payloadLength: number): number {
  return (LENGTH_PREFIX_BYTES + payloadLength + FRAME_ALIGNMENT - 1) & ~(FRAME_ALIGNMENT - 1);
}

/** The largest payload a ring of `capacity` data bytes accepts (a frame filling the whole ring). */
export function maxPayloadBytes(capacity: number): number {
  return capacity - LENGTH_PREFIX_BYTES;
}

/** Total SharedArrayBuffer size for a ring with `capacity` data bytes. */
export function ringBufferBytes(capacity: number): number {
  return HEADER_BYTES + capacity;
}

/**
 * The doorbell a consumer of several rings sleeps on (`doorbell.ts`), in its own small
 * SharedArrayBuffer, each field on its own cache line:
 *
 * ```
 * byte  0  SEQUENCE  Int32  bumped by the producer when it finds the consumer asleep
 * byte 64  SLEEPING  Int32  written by the consumer only (1 = about to wait on SEQUENCE)
 * ```
 */
export const DOORBELL_SEQUENCE_INDEX = 0;
export const DOORBELL_SLEEPING_INDEX = 64 / 4;
export const DOORBELL_BYTES = 128;
