/**
 * The storage layer's typed failures. Every error that reaches a caller is a `KafkaError` whose
 * code a handler can put in a partition response: KAFKA_STORAGE_ERROR for an unusable log dir,
 * OFFSET_OUT_OF_RANGE for reads and DeleteRecords outside the log, CORRUPT_MESSAGE for bytes
 * on disk that no longer parse.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';

export class StorageError extends KafkaError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.KAFKA_STORAGE_ERROR, message, options);
    this.name = 'StorageError';
  }
}

export class OffsetOutOfRangeError extends KafkaError {
  constructor(message: string) {
    super(ErrorCode.OFFSET_OUT_OF_RANGE, message);
    this.name = 'OffsetOutOfRangeError';
  }
}

/** An index file that fails its sanity check; never surfaces to callers: the index is rebuilt. */
export class CorruptIndexError extends Error {
  constructor(path: string, reason: string) {
    super(`corrupt index ${path}: ${reason}`);
    this.name = 'CorruptIndexError';
  }
}

/** Bytes in a `.log` file that do not frame as magic-2 batches where an index said they would. */
export class CorruptSegmentError extends KafkaError {
  constructor(message: string) {
    super(ErrorCode.CORRUPT_MESSAGE, message);
    this.name = 'CorruptSegmentError';
  }
}

/**
 * An operating-system I/O failure (EIO, ENOSPC, EROFS…), as opposed to a bug: only these take a
 * log dir offline. Node reports them as errors with a string `code` starting with 'E'.
 */
export function isIoError(e: unknown): e is NodeJS.ErrnoException {
  if (!(e instanceof Error)) return false;
  const code = (e as NodeJS.ErrnoException).code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code);
}
