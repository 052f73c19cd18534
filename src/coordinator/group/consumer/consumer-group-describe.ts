/** ConsumerGroupDescribe (KIP-848): a consumer group's epochs, assignor and members with their assignments. */
import type {
  ConsumerGroupDescribeResponseDescribedGroupInput,
  ConsumerGroupDescribeResponseAssignmentInput,
} from '@sluice/protocol/messages/api/69-consumer-group-describe.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { type Assignment, assignmentToList } from './assignment.js';
import type { ConsumerGroup } from './consumer-group.js';
import type { TopicsImage } from './subscribed-topics.js';

/** ConsumerGroupDescribe v1 tells consumer-protocol members (1) from classic ones (0). */
const CONSUMER_MEMBER_TYPE = 1;

export interface DescribeLookup {
  consumerGroup(groupId: string): ConsumerGroup | undefined;
  /** Whether a group of another type (classic) has that id. */
  otherGroupExists(groupId: string): boolean;
}

export function describeConsumerGroup(
  groupId: string,
  lookup: DescribeLookup,
  image: TopicsImage,
  defaultAssignor: string,
): ConsumerGroupDescribeResponseDescribedGroupInput {
  const group = lookup.consumerGroup(groupId);
  if (group === undefined) {
    const message = lookup.otherGroupExists(groupId) ? `Group ${groupId} is not a consumer group.` : `Group ${groupId} not found.`;
    return { groupId, errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: message };
  }
  return {
    groupId,
    errorCode: ErrorCode.NONE,
    groupState: group.state,
    groupEpoch: group.groupEpoch,
    assignmentEpoch: group.assignmentEpoch,
    assignorName: group.preferredAssignor() ?? defaultAssignor,
    members: [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      instanceId: m.instanceId,
      rackId: m.rackId,
      memberEpoch: m.memberEpoch,
      clientId: m.clientId,
      clientHost: m.clientHost,
      subscribedTopicNames: [...m.subscribedTopicNames],
      // Kafka describes a member that subscribed by names with an empty regex, not a null one.
      subscribedTopicRegex: m.subscribedTopicRegex ?? '',
      assignment: described(m.assignedPartitions, image),
      targetAssignment: described(group.target(m.memberId), image),
      memberType: CONSUMER_MEMBER_TYPE,
    })),
  };
}

/** Partitions of topics deleted since they were assigned are left out: they have no name any more. */
function described(a: Assignment, image: TopicsImage): ConsumerGroupDescribeResponseAssignmentInput {
  return {
    topicPartitions: assignmentToList(a).flatMap((t) => {
      const topic = image.topicById(t.topicId);
      return topic === undefined ? [] : [{ topicId: t.topicId, topicName: topic.name, partitions: t.partitions }];
    }),
  };
}
