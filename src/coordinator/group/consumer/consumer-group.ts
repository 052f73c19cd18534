/**
 * One KIP-848 consumer group: its epochs, members, target assignment and the index of which
 * member epoch holds each partition (so a partition is handed to a new owner only once the
 * previous one has revoked it). Changed only through `ConsumerGroups.apply`, by live operations and
 * replay alike.
 */
import { type Assignment, EMPTY_ASSIGNMENT, pairsOf } from './assignment.js';
import { type ConsumerMember, isReconciledTo } from './consumer-member.js';

export type ConsumerGroupState = 'Empty' | 'Assigning' | 'Reconciling' | 'Stable';

/** A partition nobody holds. */
export const NO_OWNER_EPOCH = -1;

export class ConsumerGroup {
  groupEpoch = 0;
  /** Hash of the subscribed topics' metadata when the group epoch was last bumped for it. */
  metadataHash = 0n;
  /** The group epoch the target assignment was computed for. */
  assignmentEpoch = 0;
  readonly members = new Map<string, ConsumerMember>();
  readonly targets = new Map<string, Assignment>();
  private readonly staticMembers = new Map<string, string>();
  /** topic id → partition → epoch of the member holding it (assigned or pending revocation). */
  private readonly partitionEpochs = new Map<string, Map<number, number>>();

  constructor(readonly groupId: string) {}

  /** Kafka's derivation: Empty, Assigning (target behind the group epoch), Reconciling, Stable. */
  get state(): ConsumerGroupState {
    if (this.members.size === 0) return 'Empty';
    if (this.groupEpoch > this.assignmentEpoch) return 'Assigning';
    for (const m of this.members.values()) if (!isReconciledTo(m, this.assignmentEpoch)) return 'Reconciling';
    return 'Stable';
  }

  staticMember(instanceId: string): ConsumerMember | undefined {
    const memberId = this.staticMembers.get(instanceId);
    return memberId === undefined ? undefined : this.members.get(memberId);
  }

  target(memberId: string): Assignment {
    return this.targets.get(memberId) ?? EMPTY_ASSIGNMENT;
  }

  currentPartitionEpoch(topicId: string, partition: number): number {
    return this.partitionEpochs.get(topicId)?.get(partition) ?? NO_OWNER_EPOCH;
  }

  putMember(member: ConsumerMember): void {
    const old = this.members.get(member.memberId);
    if (old !== undefined) this.releasePartitions(old);
    if (old?.instanceId != null && old.instanceId !== member.instanceId) this.staticMembers.delete(old.instanceId);
    this.members.set(member.memberId, member);
    if (member.instanceId !== null) this.staticMembers.set(member.instanceId, member.memberId);
    this.holdPartitions(member);
  }

  removeMember(memberId: string): void {
    const old = this.members.get(memberId);
    if (old === undefined) return;
    this.releasePartitions(old);
    if (old.instanceId !== null && this.staticMembers.get(old.instanceId) === memberId) this.staticMembers.delete(old.instanceId);
    this.members.delete(memberId);
  }

  /** The assignor the members prefer most (ties: the first name), or null when none named one. */
  preferredAssignor(): string | null {
    const counts = new Map<string, number>();
    for (const m of this.members.values())
      if (m.serverAssignor !== null) counts.set(m.serverAssignor, (counts.get(m.serverAssignor) ?? 0) + 1);
    let best: [string, number] | null = null;
    for (const e of [...counts].sort((a, b) => (a[0] < b[0] ? -1 : 1))) if (best === null || e[1] > best[1]) best = e;
    return best?.[0] ?? null;
  }

  /** KIP-848 groups subscribe through their members; a regex matching the topic counts too. */
  isSubscribedToTopic(topic: string, matches: (regex: string, topic: string) => boolean): boolean {
    for (const m of this.members.values()) {
      if (m.subscribedTopicNames.includes(topic)) return true;
      if (m.subscribedTopicRegex !== null && matches(m.subscribedTopicRegex, topic)) return true;
    }
    return false;
  }

  private holdPartitions(m: ConsumerMember): void {
    for (const a of [m.assignedPartitions, m.partitionsPendingRevocation]) {
      for (const [topicId, p] of pairsOf(a)) {
        let byPartition = this.partitionEpochs.get(topicId);
        if (byPartition === undefined) this.partitionEpochs.set(topicId, (byPartition = new Map<number, number>()));
        byPartition.set(p, m.memberEpoch);
      }
    }
  }

  private releasePartitions(m: ConsumerMember): void {
    for (const a of [m.assignedPartitions, m.partitionsPendingRevocation]) {
      for (const [topicId, p] of pairsOf(a)) {
        const byPartition = this.partitionEpochs.get(topicId);
        byPartition?.delete(p);
        if (byPartition?.size === 0) this.partitionEpochs.delete(topicId);
      }
    }
  }
}
