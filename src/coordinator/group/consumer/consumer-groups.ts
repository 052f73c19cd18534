/** The KIP-848 consumer groups of one coordinator: how each consumer-group record applies, with Kafka's replay semantics. */
import { GroupStore } from '../group-store.js';
import type { CoordinatorRecord } from '../records.js';
import { EMPTY_ASSIGNMENT } from './assignment.js';
import { ConsumerGroup } from './consumer-group.js';
import { INITIAL_ASSIGNMENT_STATE, LEAVE_GROUP_MEMBER_EPOCH, newMember } from './consumer-member.js';
import { type ConsumerGroupChange, encodeChange } from './consumer-records.js';

export class ConsumerGroups extends GroupStore<ConsumerGroup, ConsumerGroupChange> {
  protected create(groupId: string): ConsumerGroup {
    return new ConsumerGroup(groupId);
  }

  protected encode(change: ConsumerGroupChange): CoordinatorRecord {
    return encodeChange(change);
  }

  protected applyTo(group: ConsumerGroup, change: ConsumerGroupChange): 'deleted' | void {
    switch (change.kind) {
      case 'group-epoch':
        // The group's tombstone is written last, after its members' and assignment's.
        if (change.value === null) return 'deleted';
        group.groupEpoch = change.value.epoch;
        group.metadataHash = change.value.metadataHash;
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
        const state = change.value ?? {
          ...INITIAL_ASSIGNMENT_STATE,
          memberEpoch: LEAVE_GROUP_MEMBER_EPOCH,
          previousMemberEpoch: LEAVE_GROUP_MEMBER_EPOCH,
          assignedPartitions: EMPTY_ASSIGNMENT,
        };
        group.putMember({ ...member, ...state });
        return;
      }
    }
  }
}
