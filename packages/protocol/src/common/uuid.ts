/**
 * Kafka's UUIDs (topic ids, cluster id, directory ids) in their text form: 16 bytes,
 * unpadded base64url.
 */
import { randomBytes } from 'node:crypto';

export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
/** Kafka reserves this id for the `__cluster_metadata` topic. */
const METADATA_TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';

/**
 * Like Kafka's `Uuid.randomUuid`: never one of the reserved ids, and never starting with '-',
 * which command-line tools would take for an option.
 */
export function randomUuid(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (id !== ZERO_UUID && id !== METADATA_TOPIC_ID && !id.startsWith('-')) return id;
  }
}
