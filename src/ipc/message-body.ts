/** The body of a command or a reply as the sender describes it, before it enters a ring. */
import type { HeaderWriter } from './spsc-ring.js';

/** A small header encoded straight into ring memory. */
export interface BodyHeader {
  readonly byteLength: number;
  readonly write: HeaderWriter;
}

/**
 * An optional header written in place, then byte arrays each copied once into the ring (e.g. a
 * produce batch straight from the socket buffer). The arrays are read when the message enters
 * the ring, which is later than the call if the ring is full: do not modify them until the
 * request (or reply) has been sent — for requests, until the returned promise settles.
 */
export interface MessageBody {
  readonly header?: BodyHeader;
  readonly payloads?: readonly Uint8Array[];
}

export const EMPTY_BODY: MessageBody = {};

export function bodyLength(body: MessageBody): number {
  let length = body.header?.byteLength ?? 0;
  for (const payload of body.payloads ?? []) length += payload.byteLength;
  return length;
}
