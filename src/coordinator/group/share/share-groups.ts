/** The share groups of one coordinator: how each share-group record (types 10–15) applies. */
import { GroupStore } from '../group-store.js';
import type { CoordinatorRecord } from '../records.js';
import { ShareGroup } from './share-group.js';
import { INITIAL_SHARE_ASSIGNMENT_STATE, SHARE_LEAVE_GROUP_MEMBER_EPOCH, newShareMember } from './share-member.js';
import { EMPTY_SHARE_PARTITIONS } from './share-partitions-state.js';
import { type ShareGroupChange, encodeShareChange } from './share-records.js';

export class ShareGroups extends GroupStore<ShareGroup, ShareGroupChange> {
  protected create(groupId: string): ShareGroup {
    return new ShareGroup(groupId);
  }

  protected encode(change: ShareGroupChange): CoordinatorRecord {
    return encodeShareChange(change);
  }

  protected applyTo(group: ShareGroup, change: ShareGroupChange): 'deleted' | void {
    switch (change.kind) {
      case 'group-epoch':
        // The group's tombstone is written last, after its members', assignment's and partitions'.
        if (change.value === null) return 'deleted';
        group.groupEpoch = change.value.epoch;
        group.metadataHash = change.value.metadataHash;
        return;
      case 'member':
        if (change.value === null) group.members.delete(change.memberId);
        else
          group.members.set(change.memberId, {
            ...(group.members.get(change.memberId) ?? newShareMember(change.memberId)),
            ...change.value,
          });
        return;
      case 'target':
        if (change.value === null) group.targets.delete(change.memberId);
        else group.targets.set(change.memberId, change.value);
        return;
      case 'target-epoch':
        group.assignmentEpoch = change.value ?? 0;
        return;
      case 'current': {
        const member = group.members.get(change.memberId);
        // A tombstone comes just before the member's own; a value may come before the member record on replay.
        if (change.value === null) {
          if (member !== undefined)
            group.members.set(change.memberId, {
              ...member,
              ...INITIAL_SHARE_ASSIGNMENT_STATE,
              memberEpoch: SHARE_LEAVE_GROUP_MEMBER_EPOCH,
            });
        } else group.members.set(change.memberId, { ...(member ?? newShareMember(change.memberId)), ...change.value });
        return;
      }
      case 'state-partitions':
        group.partitions = change.value ?? EMPTY_SHARE_PARTITIONS;
        return;
    }
  }
}
