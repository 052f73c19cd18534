/**
 * The topics a consumer-protocol member subscribes to, read from its JoinGroup metadata. Only the
 * version 0 fields are read: every later version starts with them, so a future client version
 * still parses.
 */
import { ConsumerProtocolSubscription } from '@sluice/protocol/messages/schemas/consumer-protocol-subscription.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';

export const CONSUMER_PROTOCOL_TYPE = 'consumer';

/** null when the metadata does not parse (then nobody knows what the group subscribes to). */
export function subscribedTopics(metadata: Buffer): string[] | null {
  try {
    const r = new Reader(metadata);
    if (r.int16() < 0) return null;
    return ConsumerProtocolSubscription.read(r, 0).topics;
  } catch {
    return null;
  }
}
