/**
 * Kafka's topic name rules: what a name may contain, and which names collide because metric
 * names replace '.' with '_'. Messages are phrased as the Kafka 4.4 controller phrases them.
 */
import {
  CLUSTER_METADATA_TOPIC,
  CONSUMER_OFFSETS_TOPIC,
  SHARE_GROUP_STATE_TOPIC,
  TRANSACTION_STATE_TOPIC,
} from '@sluice/protocol/internal-topics.js';

export const MAX_TOPIC_NAME_LENGTH = 249;

export { CLUSTER_METADATA_TOPIC, CONSUMER_OFFSETS_TOPIC, SHARE_GROUP_STATE_TOPIC, TRANSACTION_STATE_TOPIC };

const INTERNAL_TOPICS: ReadonlySet<string> = new Set([CONSUMER_OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC, SHARE_GROUP_STATE_TOPIC]);
const LEGAL = /^[a-zA-Z0-9._-]+$/;

/** Why `name` is not a legal topic name, or null if it is. */
export function topicNameProblem(name: string): string | null {
  if (name === '') return 'Topic name is invalid: the empty string is not allowed';
  if (name === '.' || name === '..') return `Topic name is invalid: '${name}' is not allowed`;
  if (name.length > MAX_TOPIC_NAME_LENGTH) {
    return `Topic name is invalid: the length of '${name}' is longer than the max allowed length ${MAX_TOPIC_NAME_LENGTH}`;
  }
  if (!LEGAL.test(name)) {
    return `Topic name is invalid: '${name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`;
  }
  return null;
}

/** Two names with the same key cannot coexist: 'a.b' and 'a_b' would share metric names. */
export function collisionKey(name: string): string {
  return name.replaceAll('.', '_');
}

export function isInternalTopic(name: string): boolean {
  return INTERNAL_TOPICS.has(name);
}
