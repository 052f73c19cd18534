/**
 * What a connection needs from the layer above it: turn one decoded request header and its
 * body, sent on a connection with `session`, into a size-prefixed response frame (in-memory parts
 * and file ranges), or null when the request gets no response. The network layer owns this interface and never imports handlers; the composition root passes
 * an implementation.
 */
import type { Session } from '../common/session.js';
import type { FinalResponse } from '@sluice/protocol/framing.js';
import type { RequestHeaderData } from '@sluice/protocol/messages/index.js';
import type { Reader } from '@sluice/protocol/primitives/reader.js';
import type { FrameParts } from '@sluice/protocol/primitives/writer.js';

export interface Dispatcher {
  /**
   * Resolves to the response frame, or null for no response (acks=0), or a `FinalResponse`
   * after which the connection closes. Rejects with
   * DecodeError when the request cannot be served at all (unknown API, unsupported version,
   * malformed body), which closes the connection. `throttle` mutes the connection (no reading)
   * for that many ms, once the response is on its way: a client quota's throttle (KIP-219).
   */
  dispatch(
    header: RequestHeaderData,
    body: Reader,
    session: Session,
    throttle?: (ms: number) => void,
  ): Promise<FrameParts | FinalResponse | null>;
  /** The connection of `session` closed (told once): what it held for its client ends (share sessions, KIP-932). */
  connectionClosed?(session: Session): void;
}
