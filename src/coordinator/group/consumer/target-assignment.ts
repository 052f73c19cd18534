/**
 * Computes a group's target assignment for its current members and topics with the chosen
 * server-side assignor, and writes the members' targets that changed plus the new assignment
 * epoch.
 */
import type { CoordinatorRecord } from '../records.js';
import { EMPTY_ASSIGNMENT, assignmentsEqual } from './assignment.js';
import type { AssignmentMember, ServerAssignor } from './assignor.js';
import type { ConsumerGroup } from './consumer-group.js';
import type { ConsumerGroups } from './consumer-groups.js';
import { type TopicsImage, subscribedTopicsOf } from './subscribed-topics.js';

export function updateTargetAssignment(
  groups: ConsumerGroups,
  group: ConsumerGroup,
  assignor: ServerAssignor,
  image: TopicsImage,
  records: CoordinatorRecord[],
): void {
  const partitionCounts = new Map<string, number>();
  const members: AssignmentMember[] = [...group.members.values()]
    .sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0))
    .map((m) => {
      const topicIds = new Set<string>();
      for (const name of subscribedTopicsOf(m, image)) {
        const t = image.topic(name)!;
        topicIds.add(t.topicId);
        partitionCounts.set(t.topicId, t.partitionCount);
      }
      return { memberId: m.memberId, topicIds, current: group.target(m.memberId) };
    });
  const result = assignor.assign({ members, partitionCounts });
  const { groupId } = group;
  for (const m of members) {
    const value = result.get(m.memberId) ?? EMPTY_ASSIGNMENT;
    // A new member gets its target record even when empty, so replay knows it has one.
    if (!group.targets.has(m.memberId) || !assignmentsEqual(value, m.current))
      groups.write({ kind: 'target', groupId, memberId: m.memberId, value }, records);
  }
  groups.write({ kind: 'target-epoch', groupId, value: group.groupEpoch }, records);
}
