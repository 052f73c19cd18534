/**
 * Committed offsets by group, topic and partition, in commit order. Changed only by applying
 * offset commit records (live or replayed), so a reloaded coordinator holds exactly what was
 * written.
 */
import type { GroupOffset } from '../../common/metrics/consumer-lag.js';

export interface CommittedOffset {
  offset: bigint;
  /** -1: unknown. */
  leaderEpoch: number;
  metadata: string;
  commitTimestamp: number;
  /** Only commits of OffsetCommit v2-v4 with an explicit retention time carry one. */
  expireTimestamp: number | null;
}

export class OffsetStore {
  private readonly byGroup = new Map<string, Map<string, Map<number, CommittedOffset>>>();

  put(group: string, topic: string, partition: number, offset: CommittedOffset): void {
    let topics = this.byGroup.get(group);
    if (topics === undefined) this.byGroup.set(group, (topics = new Map()));
    let partitions = topics.get(topic);
    if (partitions === undefined) topics.set(topic, (partitions = new Map()));
    partitions.set(partition, offset);
  }

  remove(group: string, topic: string, partition: number): void {
    const topics = this.byGroup.get(group);
    const partitions = topics?.get(topic);
    if (topics === undefined || partitions === undefined) return;
    partitions.delete(partition);
    if (partitions.size === 0) topics.delete(topic);
    if (topics.size === 0) this.byGroup.delete(group);
  }

  get(group: string, topic: string, partition: number): CommittedOffset | undefined {
    return this.byGroup.get(group)?.get(topic)?.get(partition);
  }

  /** Topic → partition → offset of one group (empty when it has none). */
  ofGroup(group: string): ReadonlyMap<string, ReadonlyMap<number, CommittedOffset>> {
    return this.byGroup.get(group) ?? new Map();
  }

  /** Every group's committed offsets, flattened. */
  all(): GroupOffset[] {
    const out: GroupOffset[] = [];
    for (const [group, topics] of this.byGroup) {
      for (const [topic, partitions] of topics) {
        for (const [partition, committed] of partitions) out.push({ group, topic, partition, offset: committed.offset });
      }
    }
    return out;
  }
}
