import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';
/**
 * Consumer-group lag as `kafka-consumer-groups --describe` computes it: for every committed
 * offset, the partition's end — its high watermark, what ListOffsets "latest" answers a
 * read_uncommitted client — minus the committed offset. Pure and computed only when `/metrics`
 * is scraped, from the coordinators' committed offsets and the workers' high watermarks.
 */

/** One group's committed offset of one partition. */
export interface GroupOffset {
  readonly group: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
}

/** The end of a partition this broker hosts. */
export interface PartitionEnd extends TopicPartition {
  readonly highWatermark: bigint;
}

export interface GroupPartitionLag {
  readonly group: string;
  readonly topic: string;
  readonly partition: number;
  readonly committedOffset: bigint;
  /** Null when the partition is not hosted (its topic was deleted, or its worker did not answer). */
  readonly endOffset: bigint | null;
  /** `endOffset − committedOffset`; negative when a commit points past the end, as Kafka's tool shows it. Null with `endOffset`. */
  readonly lag: bigint | null;
}

/** Kafka's "no offset" (-1) and anything else below 0: the partition has no position to lag behind. */
function hasPosition(o: GroupOffset): boolean {
  return o.offset >= 0n;
}

/** The partitions whose ends the lag needs: every partition some group has a position in, once. */
export function partitionsToMeasure(committed: readonly GroupOffset[]): TopicPartition[] {
  const seen = new Map<string, Set<number>>();
  const out: TopicPartition[] = [];
  for (const o of committed) {
    if (!hasPosition(o)) continue;
    let partitions = seen.get(o.topic);
    if (partitions === undefined) seen.set(o.topic, (partitions = new Set()));
    if (partitions.has(o.partition)) continue;
    partitions.add(o.partition);
    out.push({ topic: o.topic, partition: o.partition });
  }
  return out;
}

/** The lag of every committed position, in the order of `committed`. */
export function consumerGroupLag(committed: readonly GroupOffset[], ends: readonly PartitionEnd[]): GroupPartitionLag[] {
  const endOf = new Map<string, Map<number, bigint>>();
  for (const e of ends) {
    let partitions = endOf.get(e.topic);
    if (partitions === undefined) endOf.set(e.topic, (partitions = new Map<number, bigint>()));
    partitions.set(e.partition, e.highWatermark);
  }
  const out: GroupPartitionLag[] = [];
  for (const o of committed) {
    if (!hasPosition(o)) continue;
    const end = endOf.get(o.topic)?.get(o.partition) ?? null;
    out.push({
      group: o.group,
      topic: o.topic,
      partition: o.partition,
      committedOffset: o.offset,
      endOffset: end,
      lag: end === null ? null : end - o.offset,
    });
  }
  return out;
}
