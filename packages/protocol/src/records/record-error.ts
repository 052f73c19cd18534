/**
 * Typed failures of record-batch validation and decoding, carrying the Kafka error code a
 * Produce handler puts in the partition response. The codes are the ones Kafka's broker answers
 * for the same fault (see docs/design/records.md for the mapping and its sources).
 */
import { KafkaError } from '../common/kafka-error.js';

/** The subset of Kafka's error table that record validation can produce. */
export const RecordErrorCode = {
  /** CRC mismatch, impossible sizes, unknown magic: the bytes are damaged. */
  CorruptMessage: 2,
  /** A batch larger than the topic's `max.message.bytes`. */
  MessageTooLarge: 10,
  /** A CreateTime record outside the topic's accepted timestamp window. */
  InvalidTimestamp: 32,
  /** A well-framed batch whose content breaks the format's rules. */
  InvalidRecord: 87,
} as const;
export type RecordErrorCode = (typeof RecordErrorCode)[keyof typeof RecordErrorCode];

/** One rejected record, as Produce v8+ reports it (`RecordErrors` in the response). */
export interface RecordError {
  readonly batchIndex: number;
  readonly message: string;
}

export class RecordValidationError extends KafkaError {
  declare readonly code: RecordErrorCode;
  /** Byte position of the offending batch in the buffer that was validated. */
  readonly batchStart: number;
  /** Index of the offending record inside its batch, when one record is at fault. */
  readonly recordIndex: number | null;
  /** Per-record rejections (key or timestamp policy); empty for batch-level faults. */
  readonly recordErrors: readonly RecordError[];

  constructor(
    code: RecordErrorCode,
    message: string,
    batchStart: number,
    recordIndex: number | null = null,
    options?: { cause?: unknown; recordErrors?: readonly RecordError[] },
  ) {
    super(code, message, options);
    this.name = 'RecordValidationError';
    this.batchStart = batchStart;
    this.recordIndex = recordIndex;
    this.recordErrors = options?.recordErrors ?? [];
  }
}
