/**
 * Errors raised by the ring transport. Those that reach a Kafka response carry its code: a
 * message too large for a ring is Kafka's MESSAGE_TOO_LARGE. (A channel whose worker is gone is
 * failed by its owner with its own error: see `worker-pool/errors.ts`.)
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';

/** A ring was asked for a capacity it cannot have (not a multiple of 8, too small or too big). */
export class RingConfigurationError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'RingConfigurationError';
  }
}

/** A message whose frame exceeds the ring's whole data region: it could never be written. */
export class RingMessageTooLargeError extends KafkaError {
  readonly messageBytes: number;
  readonly maxBytes: number;

  constructor(messageBytes: number, maxBytes: number) {
    super(ErrorCode.MESSAGE_TOO_LARGE, `message of ${messageBytes} bytes exceeds the ring's limit of ${maxBytes} bytes`);
    this.name = 'RingMessageTooLargeError';
    this.messageBytes = messageBytes;
    this.maxBytes = maxBytes;
  }
}

/** A reply or command frame that does not follow `command-codec.ts`: a bug, never user input. */
export class CommandFrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandFrameError';
  }
}
