/**
 * Offsets committed inside transactions that have not ended yet (TxnOffsetCommit, KIP-98/KIP-447):
 * per producer, and which groups each open transaction touched, as Kafka's
 * `OffsetMetadataManager` keeps them. They are invisible to OffsetFetch until the transaction's
 * COMMIT marker moves them to the committed offsets; an ABORT marker drops them. A group with an
 * open transaction keeps its offsets and itself from expiry, and a requireStable OffsetFetch
 * answers UNSTABLE_OFFSET_COMMIT for their partitions.
 *
 * Changed only by applying offset commit records and markers (live or replayed). Main thread.
 */
import { type CommittedOffset, OffsetStore } from './offset-store.js';
import { type TopicPartition, topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';

export class TransactionalOffsets {
  private readonly byProducer = new Map<bigint, OffsetStore>();
  /** Producers with an open transaction per group: a tombstone empties a transaction's offsets, it stays open until its marker. */
  private readonly openByGroup = new Map<string, Set<bigint>>();

  put(producerId: bigint, group: string, topic: string, partition: number, offset: CommittedOffset): void {
    let offsets = this.byProducer.get(producerId);
    if (offsets === undefined) this.byProducer.set(producerId, (offsets = new OffsetStore()));
    offsets.put(group, topic, partition, offset);
    let open = this.openByGroup.get(group);
    if (open === undefined) this.openByGroup.set(group, (open = new Set()));
    open.add(producerId);
  }

  /** A tombstone of the partition: its pending offset leaves every open transaction of the group. */
  remove(group: string, topic: string, partition: number): void {
    for (const producerId of this.openByGroup.get(group) ?? []) this.byProducer.get(producerId)?.remove(group, topic, partition);
  }

  /** True while some open transaction holds an offset of the partition. */
  has(group: string, topic: string, partition: number): boolean {
    for (const producerId of this.openByGroup.get(group) ?? []) {
      if (this.byProducer.get(producerId)?.get(group, topic, partition) !== undefined) return true;
    }
    return false;
  }

  hasOpenTransactions(group: string): boolean {
    return this.openByGroup.has(group);
  }

  /** The partitions of `group` some open transaction holds an offset of (each once). */
  partitionsOf(group: string): Array<TopicPartition> {
    const out = new Map<string, TopicPartition>();
    for (const producerId of this.openByGroup.get(group) ?? []) {
      for (const [topic, partitions] of this.byProducer.get(producerId)?.ofGroup(group) ?? []) {
        for (const partition of partitions.keys()) out.set(topicPartitionKey(topic, partition), { topic, partition });
      }
    }
    return [...out.values()];
  }

  /** Ends producer `producerId`'s transaction: its offsets (empty if it had none here), and no group holds it open any more. */
  end(producerId: bigint): OffsetStore {
    const offsets = this.byProducer.get(producerId) ?? new OffsetStore();
    this.byProducer.delete(producerId);
    // Every group, not only those it still holds offsets of: tombstones may have emptied some.
    for (const [group, open] of [...this.openByGroup]) {
      open.delete(producerId);
      if (open.size === 0) this.openByGroup.delete(group);
    }
    return offsets;
  }
}
