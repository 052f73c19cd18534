/**
 * A share-partition's coordinator key, `groupId:topicId:partition`, as Kafka's
 * SharePartitionKey parses it (FindCoordinator key type 2): exactly three parts, a topic UUID in
 * its 22-character base64url form and an int32 partition.
 */
import type { SharePartitionKey } from '../coordinator/share/share-state-persister.js';

const TOPIC_ID = /^[A-Za-z0-9_-]{22}$/;
const PARTITION = /^[+-]?\d{1,10}$/;
const INT32_MAX = 2147483647;

/** The key's parts, or null when it is not a share-partition key. */
export function parseSharePartitionKey(key: string): SharePartitionKey | null {
  const parts = key.split(':');
  if (parts.length !== 3) return null;
  const [groupId, topicId, partitionText] = parts as [string, string, string];
  if (groupId === '' || !TOPIC_ID.test(topicId) || !PARTITION.test(partitionText)) return null;
  const partition = Number(partitionText);
  if (partition < 0 || partition > INT32_MAX) return null;
  return { groupId, topicId, partition };
}
