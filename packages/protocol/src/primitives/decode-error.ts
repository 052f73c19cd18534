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

/** The counts and lengths that Kafka 4.4's message decoders cap regardless of the bytes left. */
export type DecodeBound = 'array elements' | 'tagged fields' | 'string bytes';

/**
 * A count or length over one of those caps. It is still bad input (the connection closes, as
 * Kafka's does), but it says the request was refused by policy, not because it was truncated.
 */
export class DecodeLimitError extends DecodeError {
  readonly bound: DecodeBound;
  readonly claimed: number;
  readonly limit: number;
  constructor(bound: DecodeBound, claimed: number, limit: number) {
    super(`${claimed} ${bound} claimed, more than the ${limit} a request may carry`);
    this.name = 'DecodeLimitError';
    this.bound = bound;
    this.claimed = claimed;
    this.limit = limit;
  }
}

/** Thrown when a value cannot be encoded at the requested version (Kafka's UnsupportedVersionException). */
export class EncodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EncodeError';
  }
}
