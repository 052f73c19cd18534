/**
 * Which `__consumer_offsets` partition holds a group: `abs(groupId.hashCode()) % numPartitions`,
 * with Java's `String.hashCode` so that Sluice, Kafka and tools reading the topic agree.
 */

/** Java's `String.hashCode`: over UTF-16 code units, wrapping at 32 bits like Java's `int`. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** Kafka's `Utils.abs`: `Math.abs(Integer.MIN_VALUE)` overflows in Java, so Kafka maps it to 0. */
function kafkaAbs(n: number): number {
  return n === -2147483648 ? 0 : Math.abs(n);
}

export function partitionFor(groupId: string, numPartitions: number): number {
  return kafkaAbs(javaStringHashCode(groupId)) % numPartitions;
}
