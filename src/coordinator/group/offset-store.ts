/**
 * Offsets by group, topic and partition, in commit order: the committed ones, and (one store per
 * producer) those of open transactions. Changed only by applying offset commit records (live or
 * replayed), so a reloaded coordinator holds exactly what was written.
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
  /**
   * Where its commit record sits among the partition's records: a later record has a larger
   * value (Kafka compares the records' log offsets; the coordinator numbers them as it applies them).
   */
  recordOrder: number;
}

export interface StoredOffset {
  readonly group: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: CommittedOffset;
}

export class OffsetStore {
  private readonly byGroup = new Map<string, Map<string, Map<number, CommittedOffset>>>();

  put(group: string, topic: string, partition: number, offset: CommittedOffset): void {
    let topics = this.byGroup.get(group);
    if (topics === undefined) this.byGroup.set(group, (topics = new Map<string, Map<number, CommittedOffset>>()));
    let partitions = topics.get(topic);
    if (partitions === undefined) topics.set(topic, (partitions = new Map<number, CommittedOffset>()));
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

  /** Every group's offsets, flattened. */
  *entries(): Generator<StoredOffset> {
    for (const [group, topics] of this.byGroup) {
      for (const [topic, partitions] of topics) {
        for (const [partition, offset] of partitions) yield { group, topic, partition, offset };
      }
    }
  }

  /** Every group's committed offsets, flattened, for the lag metrics. */
  all(): GroupOffset[] {
    const out: GroupOffset[] = [];
    for (const { group, topic, partition, offset } of this.entries()) out.push({ group, topic, partition, offset: offset.offset });
    return out;
  }
}
