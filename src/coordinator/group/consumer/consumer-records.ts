/**
 * The `__consumer_offsets` records of KIP-848 consumer groups, in Kafka's formats (record types 3
 * to 8, value version 0), as typed changes: live operations build a change, apply it to the group
 * and write its record; replay decodes the record back into the same change. Sluice does not write
 * ConsumerGroupPartitionMetadata (4, unused since Kafka 4.0: the group metadata carries a hash) nor
 * ConsumerGroupRegularExpression (16: regexes are resolved on each heartbeat); both are skipped on
 * replay.
 */
import {
  ConsumerGroupCurrentMemberAssignmentKey,
  ConsumerGroupCurrentMemberAssignmentValue,
} from '@sluice/protocol/messages/coordinator/consumer-group-current-member-assignment.js';
import {
  ConsumerGroupMemberMetadataKey,
  ConsumerGroupMemberMetadataValue,
} from '@sluice/protocol/messages/coordinator/consumer-group-member-metadata.js';
import { ConsumerGroupMetadataKey, ConsumerGroupMetadataValue } from '@sluice/protocol/messages/coordinator/consumer-group-metadata.js';
import {
  ConsumerGroupTargetAssignmentMemberKey,
  ConsumerGroupTargetAssignmentMemberValue,
} from '@sluice/protocol/messages/coordinator/consumer-group-target-assignment-member.js';
import {
  ConsumerGroupTargetAssignmentMetadataKey,
  ConsumerGroupTargetAssignmentMetadataValue,
} from '@sluice/protocol/messages/coordinator/consumer-group-target-assignment-metadata.js';
import type { MessageCodec } from '@sluice/protocol/primitives/codec-support.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import { writeVersioned } from '@sluice/protocol/primitives/versioned-schema.js';
import { type CoordinatorRecord, readValue, typePrefixedKey } from '../records.js';
import { type Assignment, assignmentFromList, assignmentToList } from './assignment.js';
import type { MemberAssignmentState, MemberStateCode, MemberSubscription } from './consumer-member.js';

export const RecordType = {
  GROUP_METADATA: 3,
  PARTITION_METADATA: 4,
  MEMBER_METADATA: 5,
  TARGET_ASSIGNMENT_METADATA: 6,
  TARGET_ASSIGNMENT_MEMBER: 7,
  CURRENT_MEMBER_ASSIGNMENT: 8,
  REGULAR_EXPRESSION: 16,
} as const;
const VALUE_VERSION = 0;

/** A change to one consumer group; a null value is the record's tombstone. */
export type ConsumerGroupChange =
  | { kind: 'group-epoch'; groupId: string; value: { epoch: number; metadataHash: bigint } | null }
  | { kind: 'member'; groupId: string; memberId: string; value: MemberSubscription | null }
  | { kind: 'target'; groupId: string; memberId: string; value: Assignment | null }
  | { kind: 'target-epoch'; groupId: string; value: number | null }
  | { kind: 'current'; groupId: string; memberId: string; value: MemberAssignmentState | null };

export function record<K, V>(
  keyCodec: MessageCodec<unknown, K>,
  type: number,
  key: K,
  valueCodec: MessageCodec<unknown, V>,
  value: V | null,
): CoordinatorRecord {
  return { key: typePrefixedKey(keyCodec, type, key), value: value === null ? null : writeVersioned(valueCodec, VALUE_VERSION, value) };
}

export function encodeChange(c: ConsumerGroupChange): CoordinatorRecord {
  const groupId = c.groupId;
  switch (c.kind) {
    case 'group-epoch':
      return record(
        ConsumerGroupMetadataKey,
        RecordType.GROUP_METADATA,
        { groupId },
        ConsumerGroupMetadataValue,
        c.value && { epoch: c.value.epoch, metadataHash: c.value.metadataHash },
      );
    case 'member':
      return record(
        ConsumerGroupMemberMetadataKey,
        RecordType.MEMBER_METADATA,
        { groupId, memberId: c.memberId },
        ConsumerGroupMemberMetadataValue,
        c.value && { ...c.value, subscribedTopicNames: [...c.value.subscribedTopicNames], classicMemberMetadata: null },
      );
    case 'target':
      return record(
        ConsumerGroupTargetAssignmentMemberKey,
        RecordType.TARGET_ASSIGNMENT_MEMBER,
        { groupId, memberId: c.memberId },
        ConsumerGroupTargetAssignmentMemberValue,
        c.value && { topicPartitions: assignmentToList(c.value) },
      );
    case 'target-epoch':
      return record(
        ConsumerGroupTargetAssignmentMetadataKey,
        RecordType.TARGET_ASSIGNMENT_METADATA,
        { groupId },
        ConsumerGroupTargetAssignmentMetadataValue,
        c.value === null ? null : { assignmentEpoch: c.value },
      );
    case 'current':
      return record(
        ConsumerGroupCurrentMemberAssignmentKey,
        RecordType.CURRENT_MEMBER_ASSIGNMENT,
        { groupId, memberId: c.memberId },
        ConsumerGroupCurrentMemberAssignmentValue,
        c.value && {
          memberEpoch: c.value.memberEpoch,
          previousMemberEpoch: c.value.previousMemberEpoch,
          state: c.value.state,
          assignedPartitions: assignmentToList(c.value.assignedPartitions).map((t) => ({ ...t, assignmentEpochs: null })),
          partitionsPendingRevocation: assignmentToList(c.value.partitionsPendingRevocation).map((t) => ({ ...t, assignmentEpochs: null })),
        },
      );
  }
}

export function key<K>(codec: MessageCodec<K, unknown>, bytes: Buffer): K {
  return codec.read(new Reader(bytes, 2), 0);
}

/** The change a consumer group record carries, or null for records Sluice does not keep (4, 16, other group types). */
export function decodeChange(recordType: number, keyBytes: Buffer, value: Buffer | null): ConsumerGroupChange | null {
  switch (recordType) {
    case RecordType.GROUP_METADATA: {
      const v = value === null ? null : readValue(ConsumerGroupMetadataValue, value);
      return {
        kind: 'group-epoch',
        groupId: key(ConsumerGroupMetadataKey, keyBytes).groupId,
        value: v && { epoch: v.epoch, metadataHash: v.metadataHash },
      };
    }
    case RecordType.MEMBER_METADATA: {
      const k = key(ConsumerGroupMemberMetadataKey, keyBytes);
      const v = value === null ? null : readValue(ConsumerGroupMemberMetadataValue, value);
      return {
        kind: 'member',
        groupId: k.groupId,
        memberId: k.memberId,
        value: v && {
          instanceId: v.instanceId,
          rackId: v.rackId,
          clientId: v.clientId,
          clientHost: v.clientHost,
          subscribedTopicNames: v.subscribedTopicNames,
          subscribedTopicRegex: v.subscribedTopicRegex,
          rebalanceTimeoutMs: v.rebalanceTimeoutMs,
          serverAssignor: v.serverAssignor,
        },
      };
    }
    case RecordType.TARGET_ASSIGNMENT_MEMBER: {
      const k = key(ConsumerGroupTargetAssignmentMemberKey, keyBytes);
      const v = value === null ? null : readValue(ConsumerGroupTargetAssignmentMemberValue, value);
      return { kind: 'target', groupId: k.groupId, memberId: k.memberId, value: v && assignmentFromList(v.topicPartitions) };
    }
    case RecordType.TARGET_ASSIGNMENT_METADATA: {
      const v = value === null ? null : readValue(ConsumerGroupTargetAssignmentMetadataValue, value);
      return {
        kind: 'target-epoch',
        groupId: key(ConsumerGroupTargetAssignmentMetadataKey, keyBytes).groupId,
        value: v && v.assignmentEpoch,
      };
    }
    case RecordType.CURRENT_MEMBER_ASSIGNMENT: {
      const k = key(ConsumerGroupCurrentMemberAssignmentKey, keyBytes);
      const v = value === null ? null : readValue(ConsumerGroupCurrentMemberAssignmentValue, value);
      return {
        kind: 'current',
        groupId: k.groupId,
        memberId: k.memberId,
        value: v && {
          memberEpoch: v.memberEpoch,
          previousMemberEpoch: v.previousMemberEpoch,
          state: v.state as MemberStateCode,
          assignedPartitions: assignmentFromList(v.assignedPartitions),
          partitionsPendingRevocation: assignmentFromList(v.partitionsPendingRevocation),
        },
      };
    }
    default:
      return null;
  }
}
