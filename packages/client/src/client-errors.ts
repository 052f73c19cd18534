/**
 * How the client reports failures: always a `KafkaError` whose code is Kafka's, so a caller (and
 * the CLI) can print Kafka's error name whether the broker answered with a code or the client
 * itself gave up (closed socket, timeout, no common API version).
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ERRORS, ErrorCode, errorName } from '@sluice/protocol/errors.js';

/** A broker's error code as an error: the broker's message if it sent one, else Kafka's default text. */
export function brokerError(code: number, brokerMessage: string | null, context: string): KafkaError {
  const text = brokerMessage ?? ERRORS.get(code)?.message ?? errorName(code);
  return new KafkaError(code, `${context}: ${text}`);
}

/** Throws `brokerError` unless `code` is NONE. */
export function throwIfError(code: number, brokerMessage: string | null, context: string): void {
  if (code !== ErrorCode.NONE) throw brokerError(code, brokerMessage, context);
}

/** Kafka's own retriable flag for the code; client-side failures use retriable codes where Kafka does. */
export function isRetriable(err: unknown): boolean {
  return err instanceof KafkaError && (ERRORS.get(err.code)?.retriable ?? false);
}

export function networkError(message: string, cause?: unknown): KafkaError {
  return new KafkaError(ErrorCode.NETWORK_EXCEPTION, message, { cause });
}

export function timeoutError(message: string): KafkaError {
  return new KafkaError(ErrorCode.REQUEST_TIMED_OUT, message);
}
