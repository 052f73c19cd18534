/**
 * The consumer groups of one coordinator, changed only by `apply`: live operations apply the
 * changes they write and replay applies the changes it reads, so a reloaded coordinator holds
 * exactly what the log holds. `apply` also returns the record to append, which live operations
 * collect.
 */
import type { CoordinatorRecord } from '../records.js';
import { EMPTY_ASSIGNMENT } from './assignment.js';
import { ConsumerGroup } from './consumer-group.js';
import { INITIAL_ASSIGNMENT_STATE, LEAVE_GROUP_MEMBER_EPOCH, newMember } from './consumer-member.js';
import { type ConsumerGroupChange, encodeChange } from './consumer-records.js';

export class ConsumerGroups {
  private readonly groups = new Map<string, ConsumerGroup>();

  get(groupId: string): ConsumerGroup | undefined {
    return this.groups.get(groupId);
  }

  has(groupId: string): boolean {
    return this.groups.has(groupId);
  }

  all(): IterableIterator<ConsumerGroup> {
    return this.groups.values();
  }

  clear(): void {
    this.groups.clear();
  }

  /** Applies a live change and adds its record to `records`. */
  write(change: ConsumerGroupChange, records: CoordinatorRecord[]): void {
    this.apply(change);
    records.push(encodeChange(change));
  }

  /** Applies one change, live or replayed, with Kafka's replay semantics. */
  apply(change: ConsumerGroupChange): void {
    const { groupId } = change;
    if (change.value === null && !this.groups.has(groupId)) return;
    let group = this.groups.get(groupId);
    if (group === undefined) this.groups.set(groupId, (group = new ConsumerGroup(groupId)));
    switch (change.kind) {
      case 'group-epoch':
        // The group's tombstone is written last, after its members' and assignment's.
        if (change.value === null) this.groups.delete(groupId);
        else {
          group.groupEpoch = change.value.epoch;
          group.metadataHash = change.value.metadataHash;
        }
        return;
      case 'member':
        if (change.value === null) group.removeMember(change.memberId);
        else group.putMember({ ...(group.members.get(change.memberId) ?? newMember(change.memberId)), ...change.value });
        return;
      case 'target':
        if (change.value === null) group.targets.delete(change.memberId);
        else group.targets.set(change.memberId, change.value);
        return;
      case 'target-epoch':
        group.assignmentEpoch = change.value ?? 0;
        return;
      case 'current': {
        const member = group.members.get(change.memberId) ?? newMember(change.memberId);
        // A tombstone comes just before the member's own: it holds nothing from then on.
        const state = change.value ?? { ...INITIAL_ASSIGNMENT_STATE, memberEpoch: LEAVE_GROUP_MEMBER_EPOCH, previousMemberEpoch: LEAVE_GROUP_MEMBER_EPOCH, assignedPartitions: EMPTY_ASSIGNMENT };
        group.putMember({ ...member, ...state });
        return;
      }
    }
  }
}
