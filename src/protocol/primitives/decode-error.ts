/**
 * The only exception a decoder throws for bad input: truncated, oversized or malformed bytes.
 * The network layer answers it by closing the connection (Kafka's behaviour for an unparsable
 * request); it is never a broker fault.
 */
export class DecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecodeError';
  }
}

/** Thrown when a value cannot be encoded at the requested version (Kafka's UnsupportedVersionException). */
export class EncodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EncodeError';
  }
}
