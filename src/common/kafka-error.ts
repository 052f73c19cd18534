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
