/**
 * Moves one member's current assignment towards its target (KIP-848 reconciliation):
 *
 * - partitions the member has and the target does not are revoked first: the member stays at its
 *   epoch in UNREVOKED_PARTITIONS until a heartbeat shows it no longer owns them;
 * - partitions the target adds are given only once no other member holds them (assigned or
 *   pending revocation); until then the member waits in UNRELEASED_PARTITIONS;
 * - once nothing is left to revoke the member moves to the target's epoch.
 *
 * So a partition never has two owners. Pure: the caller applies the returned state.
 */
import type { ConsumerGroupHeartbeatRequestTopicPartitions } from '@sluice/protocol/messages/api/68-consumer-group-heartbeat.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import type { Assignment } from './assignment.js';
import { type MemberAssignmentState, MemberState } from './consumer-member.js';
import { NO_OWNER_EPOCH } from './consumer-group.js';

export interface ReconcileInput {
  member: MemberAssignmentState;
  targetEpoch: number;
  target: Assignment;
  /** The epoch of the member holding a partition, NO_OWNER_EPOCH when free. */
  partitionEpoch: (topicId: string, partition: number) => number;
  /** What the member says it owns; null when the heartbeat did not say. */
  owned: readonly ConsumerGroupHeartbeatRequestTopicPartitions[] | null;
}

export function reconcile(input: ReconcileInput): MemberAssignmentState {
  const { member, targetEpoch, owned } = input;
  switch (member.state) {
    case MemberState.STABLE:
      return member.memberEpoch === targetEpoch ? member : next(input, member.memberEpoch);
    case MemberState.UNREVOKED_PARTITIONS:
      // Still holding what it must give up: nothing moves until it lets go.
      if (ownsAny(owned, member.partitionsPendingRevocation)) return member;
      return next(input, member.memberEpoch + 1);
    case MemberState.UNRELEASED_PARTITIONS:
      return next(input, member.memberEpoch);
    default:
      if (owned === null || owned.length > 0) {
        throw new KafkaError(
          ErrorCode.FENCED_MEMBER_EPOCH,
          'The consumer group member is in a unknown state. The member must abandon all its partitions and rejoin.',
        );
      }
      return next(input, targetEpoch);
  }
}

/** A null `owned` means "unchanged since the last heartbeat": assume the member still has them. */
function ownsAny(owned: ReconcileInput['owned'], partitions: Assignment): boolean {
  if (owned === null) return true;
  return owned.some((t) => t.partitions.some((p) => partitions.get(t.topicId)?.has(p) === true));
}

function next(input: ReconcileInput, memberEpoch: number): MemberAssignmentState {
  const { member, target, targetEpoch, partitionEpoch, owned } = input;
  const assigned = new Map<string, Set<number>>();
  const revoking = new Map<string, Set<number>>();
  const adding = new Map<string, Set<number>>();
  let unreleased = false;
  const add = (m: Map<string, Set<number>>, topicId: string, p: number): void => {
    let set = m.get(topicId);
    if (set === undefined) m.set(topicId, (set = new Set()));
    set.add(p);
  };
  for (const [topicId, partitions] of member.assignedPartitions) {
    for (const p of partitions) add(target.get(topicId)?.has(p) === true ? assigned : revoking, topicId, p);
  }
  for (const [topicId, partitions] of target) {
    for (const p of partitions) {
      if (assigned.get(topicId)?.has(p) === true) continue;
      if (partitionEpoch(topicId, p) !== NO_OWNER_EPOCH) unreleased = true;
      else add(adding, topicId, p);
    }
  }
  if (revoking.size > 0 && ownsAny(owned, revoking)) {
    return {
      memberEpoch,
      previousMemberEpoch: member.memberEpoch,
      state: MemberState.UNREVOKED_PARTITIONS,
      assignedPartitions: assigned,
      partitionsPendingRevocation: revoking,
    };
  }
  for (const [topicId, partitions] of adding) for (const p of partitions) add(assigned, topicId, p);
  return {
    memberEpoch: targetEpoch,
    previousMemberEpoch: member.memberEpoch,
    state: unreleased ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE,
    assignedPartitions: assigned,
    partitionsPendingRevocation: new Map(),
  };
}
