/**
 * `range`: per topic, the subscribed members in member-id order each get a contiguous range of
 * partitions, the first `partitions % members` one more. Members subscribed to the same topics
 * with the same partition counts get the same partition numbers of each (co-partitioning).
 */
import { assignmentOfPairs } from './assignment.js';
import type { Assignment } from './assignment.js';
import type { AssignmentSpec, ServerAssignor } from './assignor.js';

export const rangeAssignor: ServerAssignor = {
  name: 'range',
  assign(spec: AssignmentSpec): Map<string, Assignment> {
    const pairs = new Map<string, Array<[string, number]>>(spec.members.map((m) => [m.memberId, []]));
    for (const topicId of [...spec.partitionCounts.keys()].sort()) {
      const count = spec.partitionCounts.get(topicId)!;
      const members = spec.members.filter((m) => m.topicIds.has(topicId));
      if (members.length === 0) continue;
      const base = Math.floor(count / members.length);
      const extra = count % members.length;
      let next = 0;
      members.forEach((m, i) => {
        const n = base + (i < extra ? 1 : 0);
        for (let k = 0; k < n; k++) pairs.get(m.memberId)!.push([topicId, next++]);
      });
    }
    return new Map([...pairs].map(([memberId, p]) => [memberId, assignmentOfPairs(p)]));
  },
};
