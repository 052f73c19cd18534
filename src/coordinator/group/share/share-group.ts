/**
 * One share group (KIP-932): its epochs, members, target assignment and share-partition state.
 * Unlike a consumer group a partition may be assigned to several members at once, so there is no
 * revocation: a member moves to its new target as soon as it heartbeats. Changed only through
 * `ShareGroups.apply`, by live operations and replay alike.
 */
import { type Assignment, EMPTY_ASSIGNMENT } from '../consumer/assignment.js';
import type { ShareMember } from './share-member.js';
import { EMPTY_SHARE_PARTITIONS, type SharePartitionsState } from './share-partitions-state.js';

/** Kafka's share group states: Stable whenever it has members. */
export type ShareGroupState = 'Empty' | 'Stable';

export const SHARE_PROTOCOL_TYPE = 'share';

export class ShareGroup {
  groupEpoch = 0;
  /** Hash of the subscribed topics' metadata when the group epoch was last bumped for it. */
  metadataHash = 0n;
  /** The group epoch the target assignment was computed for. */
  assignmentEpoch = 0;
  readonly members = new Map<string, ShareMember>();
  readonly targets = new Map<string, Assignment>();
  partitions: SharePartitionsState = EMPTY_SHARE_PARTITIONS;

  constructor(readonly groupId: string) {}

  get state(): ShareGroupState {
    return this.members.size === 0 ? 'Empty' : 'Stable';
  }

  target(memberId: string): Assignment {
    return this.targets.get(memberId) ?? EMPTY_ASSIGNMENT;
  }

  /** Every topic name some member subscribes to. */
  subscribedTopicNames(): Set<string> {
    const names = new Set<string>();
    for (const m of this.members.values()) for (const n of m.subscribedTopicNames) names.add(n);
    return names;
  }
}
