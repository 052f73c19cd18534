/**
 * The one error type that crosses layers: it carries the Kafka error code that a handler puts
 * in its response. Codes are numbers here so that `common` does not depend on `protocol`;
 * `protocol/errors` names them.
 */
export class KafkaError extends Error {
  readonly code: number;

  constructor(code: number, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KafkaError';
    this.code = code;
  }
}

/**
 * The Kafka code an operation's failure answers with. Only a `KafkaError` is an answer; anything
 * else is a bug, rethrown so that it is logged with its request rather than hidden behind a code.
 */
export function kafkaErrorCode(err: unknown): number {
  if (err instanceof KafkaError) return err.code;
  throw err;
}
