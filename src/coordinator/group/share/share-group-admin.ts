/**
 * The share group side of the admin APIs, as pure coordinator steps (the service runs the
 * persister calls between them): ShareGroupDescribe, the partitions DescribeShareGroupOffsets
 * reads, AlterShareGroupOffsets and DeleteShareGroupOffsets (which mark share-partitions
 * initializing or deleting before the persister is called), and the share group half of
 * DeleteGroups. After Kafka 4.4's GroupMetadataManager and GroupCoordinatorShard.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import type {
  AlterShareGroupOffsetsRequestData,
  AlterShareGroupOffsetsResponseAlterShareGroupOffsetsResponseTopicInput,
} from '@sluice/protocol/messages/api/91-alter-share-group-offsets.js';
import type {
  DeleteShareGroupOffsetsRequestData,
  DeleteShareGroupOffsetsResponseDeleteShareGroupOffsetsResponseTopicInput,
} from '@sluice/protocol/messages/api/92-delete-share-group-offsets.js';
import type {
  ShareGroupDescribeResponseDescribedGroupInput,
  ShareGroupDescribeResponseAssignmentInput,
} from '@sluice/protocol/messages/api/77-share-group-describe.js';
import { ERRORS, ErrorCode } from '@sluice/protocol/errors.js';
import type { CoordinatorRecord } from '../records.js';
import { type Assignment, assignmentToList } from '../consumer/assignment.js';
import type { TopicsImage } from '../consumer/subscribed-topics.js';
import type { ShareGroup } from './share-group.js';
import type { ShareGroups } from './share-groups.js';
import { type ShareInitialization, markInitializing } from './share-initialization.js';
import { mergeTopics, type TopicPartitionsInfo, type TopicPartitionsToAdd } from './share-partitions-state.js';
import { SIMPLE_ASSIGNOR_NAME } from './simple-assignor.js';

const UNKNOWN_TOPIC_MESSAGE = ERRORS.get(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)!.message;
const NON_EMPTY_MESSAGE = ERRORS.get(ErrorCode.NON_EMPTY_GROUP)!.message;

/** A topic whose share-partitions a DeleteShareGroupOffsets or DeleteGroups deletes. */
export interface ShareTopicDeletion {
  readonly topicId: string;
  readonly topicName: string;
  readonly partitions: readonly number[];
}

export interface ShareOffsetsDeletionPlan {
  /** Topics answered without the persister (unknown, or nothing to delete). */
  readonly refused: DeleteShareGroupOffsetsResponseDeleteShareGroupOffsetsResponseTopicInput[];
  readonly deletions: readonly ShareTopicDeletion[];
}

export interface ShareOffsetsAlterPlan {
  readonly responses: AlterShareGroupOffsetsResponseAlterShareGroupOffsetsResponseTopicInput[];
  readonly initialize: ShareInitialization;
}

export function describeShareGroup(
  group: ShareGroup | undefined,
  groupId: string,
  otherGroupExists: boolean,
  image: TopicsImage,
): ShareGroupDescribeResponseDescribedGroupInput {
  if (group === undefined) {
    return {
      groupId,
      errorCode: ErrorCode.GROUP_ID_NOT_FOUND,
      errorMessage: otherGroupExists ? `Group ${groupId} is not a share group.` : `Group ${groupId} not found.`,
    };
  }
  return {
    groupId,
    errorCode: ErrorCode.NONE,
    groupState: group.state,
    groupEpoch: group.groupEpoch,
    assignmentEpoch: group.assignmentEpoch,
    assignorName: SIMPLE_ASSIGNOR_NAME,
    members: [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      rackId: m.rackId,
      memberEpoch: m.memberEpoch,
      clientId: m.clientId,
      clientHost: m.clientHost,
      subscribedTopicNames: [...m.subscribedTopicNames],
      assignment: described(m.assignedPartitions, image),
    })),
  };
}

/** Partitions of topics deleted since they were assigned are left out: they have no name any more. */
function described(a: Assignment, image: TopicsImage): ShareGroupDescribeResponseAssignmentInput {
  return {
    topicPartitions: assignmentToList(a).flatMap((t) => {
      const topic = image.topicById(t.topicId);
      return topic === undefined ? [] : [{ topicId: t.topicId, topicName: topic.name, partitions: t.partitions }];
    }),
  };
}

/** The group's initialized share-partitions (DescribeShareGroupOffsets without topics). */
export function initializedPartitions(group: ShareGroup | undefined): Assignment {
  return new Map(
    [...(group?.partitions.initialized ?? new Map<string, TopicPartitionsInfo>())].map(([topicId, info]) => [topicId, info.partitions]),
  );
}

function emptyOrFail(group: ShareGroup): void {
  if (group.members.size > 0) throw new KafkaError(ErrorCode.NON_EMPTY_GROUP, NON_EMPTY_MESSAGE);
}

/**
 * AlterShareGroupOffsets: the group (created when absent) must be empty; the partitions of
 * existing topics are marked initializing and returned to be initialized at their new offsets.
 */
export function planAlterShareGroupOffsets(
  groups: ShareGroups,
  group: ShareGroup | undefined,
  request: AlterShareGroupOffsetsRequestData,
  image: TopicsImage,
  now: number,
  records: CoordinatorRecord[],
): ShareOffsetsAlterPlan {
  if (group !== undefined) emptyOrFail(group);
  const adds = new Map<string, TopicPartitionsToAdd>();
  const partitions: Array<{ topicId: string; partition: number; startOffset: bigint }> = [];
  const responses = request.topics.map((t) => {
    const topic = image.topic(t.topicName);
    if (topic === undefined) {
      return {
        topicName: t.topicName,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
          errorMessage: UNKNOWN_TOPIC_MESSAGE,
        })),
      };
    }
    const valid = t.partitions.filter((p) => p.partitionIndex >= 0 && p.partitionIndex < topic.partitionCount);
    for (const p of valid) partitions.push({ topicId: topic.topicId, partition: p.partitionIndex, startOffset: p.startOffset });
    adds.set(topic.topicId, { name: topic.name, partitions: valid.map((p) => p.partitionIndex) });
    return {
      topicName: t.topicName,
      topicId: topic.topicId,
      partitions: t.partitions.map((p) =>
        valid.includes(p)
          ? { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE, errorMessage: null }
          : { partitionIndex: p.partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: UNKNOWN_TOPIC_MESSAGE },
      ),
    };
  });
  if (adds.size > 0) markInitializing(groups, group ?? groupFor(groups, request.groupId), adds, now, records);
  return { responses, initialize: { groupId: request.groupId, stateEpoch: group?.groupEpoch ?? 0, partitions } };
}

/** AlterShareGroupOffsets creates an absent group: it comes to exist with its first record, written next. */
function groupFor(groups: ShareGroups, groupId: string): ShareGroup {
  groups.apply({ kind: 'state-partitions', groupId, value: { initializing: new Map(), initialized: new Map(), deleting: new Map() } });
  return groups.get(groupId)!;
}

/**
 * DeleteShareGroupOffsets: the group must be empty; each topic's initialized share-partitions
 * move to deleting and are returned for the persister (a topic already deleting is deleted again).
 */
export function planDeleteShareGroupOffsets(
  groups: ShareGroups,
  group: ShareGroup,
  request: DeleteShareGroupOffsetsRequestData,
  image: TopicsImage,
  records: CoordinatorRecord[],
): ShareOffsetsDeletionPlan {
  emptyOrFail(group);
  const initialized = new Map(group.partitions.initialized);
  const deleting = new Map(group.partitions.deleting);
  const refused: ShareOffsetsDeletionPlan['refused'] = [];
  const deletions: ShareTopicDeletion[] = [];
  for (const { topicName } of request.topics) {
    const topic = image.topic(topicName);
    if (topic === undefined) {
      refused.push({ topicName, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: UNKNOWN_TOPIC_MESSAGE });
      continue;
    }
    const info = initialized.get(topic.topicId);
    if (info !== undefined) {
      deletions.push({ topicId: topic.topicId, topicName, partitions: [...info.partitions].sort((a, b) => a - b) });
      initialized.delete(topic.topicId);
      deleting.set(topic.topicId, topicName);
    } else if (deleting.has(topic.topicId)) {
      deletions.push({ topicId: topic.topicId, topicName, partitions: Array.from({ length: topic.partitionCount }, (_, p) => p) });
    } else {
      refused.push({
        topicName,
        errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        errorMessage: 'There is no offset information to delete.',
      });
    }
  }
  groups.write(
    { kind: 'state-partitions', groupId: group.groupId, value: { initializing: group.partitions.initializing, initialized, deleting } },
    records,
  );
  return { refused, deletions };
}

/** The persister deleted these topics' state: they leave `deleting`. */
export function completeShareTopicDeletion(
  groups: ShareGroups,
  group: ShareGroup,
  topicIds: readonly string[],
  records: CoordinatorRecord[],
): void {
  const deleting = new Map(group.partitions.deleting);
  for (const id of topicIds) deleting.delete(id);
  groups.write({ kind: 'state-partitions', groupId: group.groupId, value: { ...group.partitions, deleting } }, records);
}

/**
 * DeleteGroups of a share group, first step: the group must be empty; all its share-partitions
 * (initialized, initializing, and still deleting from an earlier attempt) move to deleting and are
 * returned for the persister. The group's tombstones follow once they are deleted.
 */
export function planShareGroupDeletion(
  groups: ShareGroups,
  group: ShareGroup,
  image: TopicsImage,
  records: CoordinatorRecord[],
): ShareTopicDeletion[] {
  emptyOrFail(group);
  const { initialized, initializing, deleting } = group.partitions;
  const all = mergeTopics(
    initialized,
    new Map([...initializing].map(([id, info]) => [id, { name: info.name, partitions: info.partitions }])),
    0,
  );
  for (const [topicId, name] of deleting) {
    const topic = image.topicById(topicId);
    // A topic deleted meanwhile has no share-partitions left to delete.
    if (topic !== undefined && !all.has(topicId))
      all.set(topicId, { name, partitions: new Set(Array.from({ length: topic.partitionCount }, (_, p) => p)), since: 0 });
  }
  groups.write(
    {
      kind: 'state-partitions',
      groupId: group.groupId,
      value: { initializing: new Map(), initialized: new Map(), deleting: new Map([...all].map(([id, info]) => [id, info.name])) },
    },
    records,
  );
  return [...all].map(([topicId, info]) => ({ topicId, topicName: info.name, partitions: [...info.partitions].sort((a, b) => a - b) }));
}

/** DeleteGroups of an empty share group, last step: Kafka's tombstones, the group's own last. */
export function deleteShareGroup(groups: ShareGroups, group: ShareGroup, records: CoordinatorRecord[]): void {
  const { groupId } = group;
  const memberIds = [...group.members.keys()];
  for (const memberId of memberIds) groups.write({ kind: 'current', groupId, memberId, value: null }, records);
  for (const memberId of new Set([...memberIds, ...group.targets.keys()]))
    groups.write({ kind: 'target', groupId, memberId, value: null }, records);
  groups.write({ kind: 'target-epoch', groupId, value: null }, records);
  for (const memberId of memberIds) groups.write({ kind: 'member', groupId, memberId, value: null }, records);
  groups.write({ kind: 'state-partitions', groupId, value: null }, records);
  groups.write({ kind: 'group-epoch', groupId, value: null }, records);
}
