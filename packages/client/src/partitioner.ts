/**
 * Kafka's default partitioning: a keyed record goes to `toPositive(murmur2(key)) % partitions`
 * (so the same key lands where the Java client would put it); records without a key stick to
 * one partition per batch and the next batch moves on, like Kafka's sticky partitioner.
 */

/** Kafka's `Utils.murmur2`: MurmurHash2, 32-bit, seed 0x9747b28c. */
export function murmur2(data: Uint8Array): number {
  const m = 0x5bd1e995;
  const length = data.length;
  let h = 0x9747b28c ^ length;
  const whole = length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  const tail = length & 3;
  if (tail > 0) {
    if (tail === 3) h ^= data[whole + 2]! << 16;
    if (tail >= 2) h ^= data[whole + 1]! << 8;
    h ^= data[whole]!;
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

export function partitionForKey(key: Uint8Array, partitionCount: number): number {
  return (murmur2(key) & 0x7fffffff) % partitionCount;
}

export class StickyPartitioner {
  private next: number;

  constructor(start: number = Math.floor(Math.random() * 0x7fffffff)) {
    this.next = start;
  }

  /** The partition for this batch's unkeyed records; each call moves to the next partition. */
  nextBatchPartition(partitionCount: number): number {
    const partition = this.next % partitionCount;
    this.next = (this.next + 1) & 0x7fffffff;
    return partition;
  }
}
