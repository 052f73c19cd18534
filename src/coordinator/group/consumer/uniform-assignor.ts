/**
 * `uniform` (Kafka's default): spreads partitions so member counts differ by at most one among
 * members that could take them, keeping each member's current partitions where balance allows
 * (sticky), which keeps revocations to the minimum a rebalance needs. Works for members with
 * different subscriptions too: a partition only goes to a member subscribed to its topic.
 */
import { assignmentOfPairs, pairsOf } from './assignment.js';
import type { AssignmentSpec, ServerAssignor } from './assignor.js';
import type { Assignment } from './assignment.js';

type Pair = readonly [string, number];

export const uniformAssignor: ServerAssignor = {
  name: 'uniform',
  assign(spec: AssignmentSpec): Map<string, Assignment> {
    const owned = new Map<string, Pair[]>(spec.members.map((m) => [m.memberId, []]));
    const eligible = (memberId: string, topicId: string): boolean =>
      spec.members.find((m) => m.memberId === memberId)!.topicIds.has(topicId);
    const taken = new Set<string>();
    const id = (p: Pair): string => `${p[0]}:${p[1]}`;
    // 1. Keep what each member has that is still valid.
    for (const m of spec.members) {
      for (const p of pairsOf(m.current)) {
        const count = spec.partitionCounts.get(p[0]);
        if (count === undefined || p[1] >= count || !m.topicIds.has(p[0]) || taken.has(id(p))) continue;
        taken.add(id(p));
        owned.get(m.memberId)!.push(p);
      }
    }
    // 2. Hand out the rest, each to the eligible member with the fewest partitions.
    for (const topicId of [...spec.partitionCounts.keys()].sort()) {
      for (let partition = 0; partition < spec.partitionCounts.get(topicId)!; partition++) {
        const p: Pair = [topicId, partition];
        if (taken.has(id(p))) continue;
        const to = leastLoaded(
          spec.members.filter((m) => m.topicIds.has(topicId)).map((m) => m.memberId),
          owned,
        );
        if (to === null) continue;
        taken.add(id(p));
        owned.get(to)!.push(p);
      }
    }
    // 3. Move partitions from the most to the least loaded eligible member until no move narrows the gap.
    for (let moved = true; moved;) {
      moved = false;
      for (const donor of [...owned.keys()].sort((a, b) => owned.get(b)!.length - owned.get(a)!.length || (a < b ? -1 : 1))) {
        const donorPairs = owned.get(donor)!;
        for (let i = donorPairs.length - 1; i >= 0 && !moved; i--) {
          const p = donorPairs[i]!;
          const candidates = [...owned.keys()].filter(
            (r) => r !== donor && eligible(r, p[0]) && owned.get(r)!.length + 1 < donorPairs.length,
          );
          const to = leastLoaded(candidates, owned);
          if (to === null) continue;
          donorPairs.splice(i, 1);
          owned.get(to)!.push(p);
          moved = true;
        }
        if (moved) break;
      }
    }
    return new Map([...owned].map(([memberId, pairs]) => [memberId, assignmentOfPairs(pairs)]));
  },
};

function leastLoaded(memberIds: readonly string[], owned: ReadonlyMap<string, readonly Pair[]>): string | null {
  let best: string | null = null;
  for (const m of memberIds) if (best === null || owned.get(m)!.length < owned.get(best)!.length) best = m;
  return best;
}
