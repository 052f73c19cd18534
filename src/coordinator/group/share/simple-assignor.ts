/**
 * `simple`, Kafka's share group assignor (KIP-932): every assignable partition goes to at least
 * one member, and when there are more members than partitions each partition is shared by
 * ceil(members / partitions) of them. Balance comes first — members' partition counts differ by at
 * most one where subscriptions allow — then stickiness: a member keeps what it had while its quota
 * and the partition's sharing allow. Only partitions whose share-partition state is initialized
 * are assignable (the caller passes those). Pure: the same input gives the same assignment.
 */
import { type Assignment, assignmentOfPairs, pairsOf } from '../consumer/assignment.js';

export const SIMPLE_ASSIGNOR_NAME = 'simple';

export interface ShareAssignmentMember {
  memberId: string;
  /** Topic ids of the member's subscribed topics. */
  topicIds: ReadonlySet<string>;
  /** The member's current target, kept where balance allows. */
  current: Assignment;
}

export interface ShareAssignmentSpec {
  /** Sorted by member id. */
  members: readonly ShareAssignmentMember[];
  /** Topic id → the partitions that may be assigned. */
  assignable: Assignment;
}

type Pair = readonly [string, number];
const keyOf = (p: Pair): string => `${p[0]}:${p[1]}`;

export function simpleAssign(spec: ShareAssignmentSpec): Map<string, Assignment> {
  const members = spec.members;
  const owned: Pair[][] = members.map(() => []);
  const result = (): Map<string, Assignment> => new Map(members.map((m, i) => [m.memberId, assignmentOfPairs(owned[i]!)]));
  const eligible = (i: number, p: Pair): boolean => members[i]!.topicIds.has(p[0]);
  const pairs = [...pairsOf(spec.assignable)]
    .filter((p) => members.some((_, i) => eligible(i, p)))
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
  if (members.length === 0 || pairs.length === 0) return result();

  const sharing = Math.ceil(members.length / pairs.length);
  const total = sharing * pairs.length;
  // Member i's share of the slots: the counts differ by at most one and add up to `total`.
  const quota = members.map((_, i) => Math.ceil((total * (i + 1)) / members.length) - Math.ceil((total * i) / members.length));
  const owners = new Map<string, Set<number>>(pairs.map((p) => [keyOf(p), new Set()]));
  const give = (i: number, p: Pair): void => {
    owners.get(keyOf(p))!.add(i);
    owned[i]!.push(p);
  };

  // 1. Stickiness: keep current partitions within the member's quota and the partition's sharing.
  members.forEach((m, i) => {
    const current = [...pairsOf(m.current)].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
    for (const p of current) {
      const holders = owners.get(keyOf(p));
      if (holders === undefined || !eligible(i, p) || owned[i]!.length >= quota[i]! || holders.size >= sharing) continue;
      give(i, p);
    }
  });

  // 2. Balance: each partition up to its sharing, each time to the least loaded member under quota.
  const leastLoaded = (p: Pair, underQuota: boolean): number | null => {
    const holders = owners.get(keyOf(p))!;
    let best: number | null = null;
    for (let i = 0; i < members.length; i++) {
      if (holders.has(i) || !eligible(i, p) || (underQuota && owned[i]!.length >= quota[i]!)) continue;
      if (best === null || owned[i]!.length < owned[best]!.length) best = i;
    }
    return best;
  };
  for (const p of pairs) {
    while (owners.get(keyOf(p))!.size < sharing) {
      const to = leastLoaded(p, true);
      if (to === null) break;
      give(to, p);
    }
  }

  // 3. Coverage: with different subscriptions the quotas may not fit; no partition is left without a member.
  for (const p of pairs) {
    if (owners.get(keyOf(p))!.size > 0) continue;
    const to = leastLoaded(p, false);
    if (to !== null) give(to, p);
  }
  return result();
}
