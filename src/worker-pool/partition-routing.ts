/**
 * Which partition worker owns a partition. Stable across restarts for a given worker count:
 *
 *     worker = (fnv1a32(UTF-8 bytes of topicKey) + partition) mod workerCount
 *
 * FNV-1a (32-bit, offset basis 0x811c9dc5, prime 0x01000193) spreads topics; adding the
 * partition number puts consecutive partitions of one topic on consecutive workers, so a topic
 * with at least `workerCount` partitions loads every worker evenly. `topicKey` is the topic id
 * (Kafka's text form of the UUID) when the broker has one, or the name; a partition must always
 * be routed with the same key. Changing the worker count moves partitions: their data
 * directories do not depend on the worker, only the in-memory owner does.
 */
const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const utf8 = new TextEncoder();

export function fnv1a32(bytes: Uint8Array): number {
  let hash = FNV_OFFSET_BASIS;
  for (let i = 0; i < bytes.length; i++) hash = Math.imul(hash ^ bytes[i]!, FNV_PRIME);
  return hash >>> 0;
}

export function topicHash(topicKey: string): number {
  return fnv1a32(utf8.encode(topicKey));
}

/** The routing rule, given `topicHash(topicKey)` (which callers on hot paths cache). */
export function workerForHash(hash: number, partition: number, workerCount: number): number {
  if (!Number.isInteger(partition) || partition < 0) throw new RangeError(`partition must be a non-negative integer, got ${partition}`);
  if (!Number.isInteger(workerCount) || workerCount < 1)
    throw new RangeError(`worker count must be a positive integer, got ${workerCount}`);
  return (hash + partition) % workerCount;
}

export function workerForPartition(topicKey: string, partition: number, workerCount: number): number {
  return workerForHash(topicHash(topicKey), partition, workerCount);
}
