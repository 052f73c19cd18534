/**
 * The `__consumer_offsets` records of share groups, in Kafka's formats (record types 10 to 15,
 * value version 0), as typed changes: live operations build a change, apply it to the group and
 * write its record; replay decodes the record back into the same change.
 */
import {
  ShareGroupCurrentMemberAssignmentKey,
  ShareGroupCurrentMemberAssignmentValue,
} from '@sluice/protocol/messages/coordinator/share-group-current-member-assignment.js';
import {
  ShareGroupMemberMetadataKey,
  ShareGroupMemberMetadataValue,
} from '@sluice/protocol/messages/coordinator/share-group-member-metadata.js';
import { ShareGroupMetadataKey, ShareGroupMetadataValue } from '@sluice/protocol/messages/coordinator/share-group-metadata.js';
import {
  ShareGroupStatePartitionMetadataKey,
  ShareGroupStatePartitionMetadataValue,
  type ShareGroupStatePartitionMetadataValueTopicPartitionsInfo,
} from '@sluice/protocol/messages/coordinator/share-group-state-partition-metadata.js';
import {
  ShareGroupTargetAssignmentMemberKey,
  ShareGroupTargetAssignmentMemberValue,
} from '@sluice/protocol/messages/coordinator/share-group-target-assignment-member.js';
import {
  ShareGroupTargetAssignmentMetadataKey,
  ShareGroupTargetAssignmentMetadataValue,
} from '@sluice/protocol/messages/coordinator/share-group-target-assignment-metadata.js';
import { readValue, type CoordinatorRecord } from '../records.js';
import { type Assignment, assignmentFromList, assignmentToList } from '../consumer/assignment.js';
import type { MemberStateCode } from '../consumer/consumer-member.js';
import { key, record } from '../consumer/consumer-records.js';
import type { ShareMemberAssignmentState, ShareMemberSubscription } from './share-member.js';
import type { SharePartitionsState, TopicPartitionsInfo } from './share-partitions-state.js';

export const ShareRecordType = {
  MEMBER_METADATA: 10,
  GROUP_METADATA: 11,
  TARGET_ASSIGNMENT_METADATA: 12,
  TARGET_ASSIGNMENT_MEMBER: 13,
  CURRENT_MEMBER_ASSIGNMENT: 14,
  STATE_PARTITION_METADATA: 15,
} as const;

/** A change to one share group; a null value is the record's tombstone. */
export type ShareGroupChange =
  | { kind: 'group-epoch'; groupId: string; value: { epoch: number; metadataHash: bigint } | null }
  | { kind: 'member'; groupId: string; memberId: string; value: ShareMemberSubscription | null }
  | { kind: 'target'; groupId: string; memberId: string; value: Assignment | null }
  | { kind: 'target-epoch'; groupId: string; value: number | null }
  | { kind: 'current'; groupId: string; memberId: string; value: ShareMemberAssignmentState | null }
  | { kind: 'state-partitions'; groupId: string; value: SharePartitionsState | null };

function topicsToRecord(topics: ReadonlyMap<string, TopicPartitionsInfo>): ShareGroupStatePartitionMetadataValueTopicPartitionsInfo[] {
  return [...topics.keys()].sort().map((topicId) => {
    const info = topics.get(topicId)!;
    return { topicId, topicName: info.name, partitions: [...info.partitions].sort((a, b) => a - b) };
  });
}

function topicsFromRecord(list: readonly ShareGroupStatePartitionMetadataValueTopicPartitionsInfo[]): Map<string, TopicPartitionsInfo> {
  return new Map(list.map((t) => [t.topicId, { name: t.topicName, partitions: new Set(t.partitions), since: 0 }]));
}

export function encodeShareChange(c: ShareGroupChange): CoordinatorRecord {
  const groupId = c.groupId;
  switch (c.kind) {
    case 'group-epoch':
      return record(
        ShareGroupMetadataKey,
        ShareRecordType.GROUP_METADATA,
        { groupId },
        ShareGroupMetadataValue,
        c.value && { epoch: c.value.epoch, metadataHash: c.value.metadataHash },
      );
    case 'member':
      return record(
        ShareGroupMemberMetadataKey,
        ShareRecordType.MEMBER_METADATA,
        { groupId, memberId: c.memberId },
        ShareGroupMemberMetadataValue,
        c.value && { ...c.value, subscribedTopicNames: [...c.value.subscribedTopicNames] },
      );
    case 'target':
      return record(
        ShareGroupTargetAssignmentMemberKey,
        ShareRecordType.TARGET_ASSIGNMENT_MEMBER,
        { groupId, memberId: c.memberId },
        ShareGroupTargetAssignmentMemberValue,
        c.value && { topicPartitions: assignmentToList(c.value) },
      );
    case 'target-epoch':
      return record(
        ShareGroupTargetAssignmentMetadataKey,
        ShareRecordType.TARGET_ASSIGNMENT_METADATA,
        { groupId },
        ShareGroupTargetAssignmentMetadataValue,
        c.value === null ? null : { assignmentEpoch: c.value },
      );
    case 'current':
      return record(
        ShareGroupCurrentMemberAssignmentKey,
        ShareRecordType.CURRENT_MEMBER_ASSIGNMENT,
        { groupId, memberId: c.memberId },
        ShareGroupCurrentMemberAssignmentValue,
        c.value && {
          memberEpoch: c.value.memberEpoch,
          previousMemberEpoch: c.value.previousMemberEpoch,
          state: c.value.state,
          assignedPartitions: assignmentToList(c.value.assignedPartitions),
        },
      );
    case 'state-partitions':
      return record(
        ShareGroupStatePartitionMetadataKey,
        ShareRecordType.STATE_PARTITION_METADATA,
        { groupId },
        ShareGroupStatePartitionMetadataValue,
        c.value && {
          initializingTopics: topicsToRecord(c.value.initializing),
          initializedTopics: topicsToRecord(c.value.initialized),
          deletingTopics: [...c.value.deleting.keys()].sort().map((topicId) => ({ topicId, topicName: c.value!.deleting.get(topicId)! })),
        },
      );
  }
}

/** The change a share group record carries, or null for a record of another group type. */
export function decodeShareChange(recordType: number, keyBytes: Buffer, value: Buffer | null): ShareGroupChange | null {
  switch (recordType) {
    case ShareRecordType.GROUP_METADATA: {
      const v = value === null ? null : readValue(ShareGroupMetadataValue, value);
      return {
        kind: 'group-epoch',
        groupId: key(ShareGroupMetadataKey, keyBytes).groupId,
        value: v && { epoch: v.epoch, metadataHash: v.metadataHash },
      };
    }
    case ShareRecordType.MEMBER_METADATA: {
      const k = key(ShareGroupMemberMetadataKey, keyBytes);
      const v = value === null ? null : readValue(ShareGroupMemberMetadataValue, value);
      return {
        kind: 'member',
        groupId: k.groupId,
        memberId: k.memberId,
        value: v && { rackId: v.rackId, clientId: v.clientId, clientHost: v.clientHost, subscribedTopicNames: v.subscribedTopicNames },
      };
    }
    case ShareRecordType.TARGET_ASSIGNMENT_MEMBER: {
      const k = key(ShareGroupTargetAssignmentMemberKey, keyBytes);
      const v = value === null ? null : readValue(ShareGroupTargetAssignmentMemberValue, value);
      return { kind: 'target', groupId: k.groupId, memberId: k.memberId, value: v && assignmentFromList(v.topicPartitions) };
    }
    case ShareRecordType.TARGET_ASSIGNMENT_METADATA: {
      const v = value === null ? null : readValue(ShareGroupTargetAssignmentMetadataValue, value);
      return { kind: 'target-epoch', groupId: key(ShareGroupTargetAssignmentMetadataKey, keyBytes).groupId, value: v && v.assignmentEpoch };
    }
    case ShareRecordType.CURRENT_MEMBER_ASSIGNMENT: {
      const k = key(ShareGroupCurrentMemberAssignmentKey, keyBytes);
      const v = value === null ? null : readValue(ShareGroupCurrentMemberAssignmentValue, value);
      return {
        kind: 'current',
        groupId: k.groupId,
        memberId: k.memberId,
        value: v && {
          memberEpoch: v.memberEpoch,
          previousMemberEpoch: v.previousMemberEpoch,
          state: v.state as MemberStateCode,
          assignedPartitions: assignmentFromList(v.assignedPartitions),
        },
      };
    }
    case ShareRecordType.STATE_PARTITION_METADATA: {
      const v = value === null ? null : readValue(ShareGroupStatePartitionMetadataValue, value);
      return {
        kind: 'state-partitions',
        groupId: key(ShareGroupStatePartitionMetadataKey, keyBytes).groupId,
        value: v && {
          initializing: topicsFromRecord(v.initializingTopics),
          initialized: topicsFromRecord(v.initializedTopics),
          deleting: new Map(v.deletingTopics.map((t) => [t.topicId, t.topicName])),
        },
      };
    }
    default:
      return null;
  }
}
