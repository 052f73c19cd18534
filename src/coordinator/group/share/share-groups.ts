/**
 * The share groups of one coordinator, changed only by `apply`: live operations apply the changes
 * they write and replay applies the changes it reads, so a reloaded coordinator holds what the log
 * holds (see ConsumerGroups, which this mirrors).
 */
import type { CoordinatorRecord } from '../records.js';
import { ShareGroup } from './share-group.js';
import { INITIAL_SHARE_ASSIGNMENT_STATE, SHARE_LEAVE_GROUP_MEMBER_EPOCH, newShareMember } from './share-member.js';
import { EMPTY_SHARE_PARTITIONS } from './share-partitions-state.js';
import { type ShareGroupChange, encodeShareChange } from './share-records.js';

export class ShareGroups {
  private readonly groups = new Map<string, ShareGroup>();

  get(groupId: string): ShareGroup | undefined {
    return this.groups.get(groupId);
  }

  has(groupId: string): boolean {
    return this.groups.has(groupId);
  }

  all(): IterableIterator<ShareGroup> {
    return this.groups.values();
  }

  clear(): void {
    this.groups.clear();
  }

  /** Applies a live change and adds its record to `records`. */
  write(change: ShareGroupChange, records: CoordinatorRecord[]): void {
    this.apply(change);
    records.push(encodeShareChange(change));
  }

  /** Applies one change, live or replayed. */
  apply(change: ShareGroupChange): void {
    const { groupId } = change;
    if (change.value === null && !this.groups.has(groupId)) return;
    let group = this.groups.get(groupId);
    if (group === undefined) this.groups.set(groupId, (group = new ShareGroup(groupId)));
    switch (change.kind) {
      case 'group-epoch':
        // The group's tombstone is written last, after its members', assignment's and partitions'.
        if (change.value === null) this.groups.delete(groupId);
        else {
          group.groupEpoch = change.value.epoch;
          group.metadataHash = change.value.metadataHash;
        }
        return;
      case 'member':
        if (change.value === null) group.members.delete(change.memberId);
        else group.members.set(change.memberId, { ...(group.members.get(change.memberId) ?? newShareMember(change.memberId)), ...change.value });
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
          if (member !== undefined) group.members.set(change.memberId, { ...member, ...INITIAL_SHARE_ASSIGNMENT_STATE, memberEpoch: SHARE_LEAVE_GROUP_MEMBER_EPOCH });
        } else group.members.set(change.memberId, { ...(member ?? newShareMember(change.memberId)), ...change.value });
        return;
      }
      case 'state-partitions':
        group.partitions = change.value ?? EMPTY_SHARE_PARTITIONS;
        return;
    }
  }
}
