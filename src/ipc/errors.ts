/**
 * Errors raised by the ring transport. Those that reach a Kafka response carry its code: a
 * message too large for a ring is Kafka's MESSAGE_TOO_LARGE; a channel whose worker is gone is
 * KAFKA_STORAGE_ERROR (the partitions it owns cannot be read or written).
 */
import { KafkaError } from '../common/kafka-error.js';
import { ErrorCode } from '../protocol/errors.js';

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

/** Why a channel stopped carrying requests. */
export type ChannelCloseReason = 'closed' | 'peer-exited';

/** The channel can no longer carry requests: pending and later requests reject with this. */
export class ChannelClosedError extends KafkaError {
  readonly reason: ChannelCloseReason;

  constructor(reason: ChannelCloseReason, message: string, options?: { cause?: unknown }) {
    super(ErrorCode.KAFKA_STORAGE_ERROR, message, options);
    this.name = 'ChannelClosedError';
    this.reason = reason;
  }
}

/** A reply or command frame that does not follow `command-codec.ts`: a bug, never user input. */
export class CommandFrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandFrameError';
  }
}
