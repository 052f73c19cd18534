/**
 * A KIP-848 consumer group member as the coordinator keeps it: what the member sent (its
 * subscription, persisted as ConsumerGroupMemberMetadata) and where its reconciliation stands
 * (persisted as ConsumerGroupCurrentMemberAssignment). Plain immutable objects: an update is a
 * new object, so "did anything change" is a comparison and a record.
 */
import { type Assignment, EMPTY_ASSIGNMENT, assignmentsEqual } from './assignment.js';

/** Kafka's `MemberState` byte values, as stored in the current-assignment record. */
export const MemberState = {
  STABLE: 0,
  /** Waiting for the member to acknowledge that it revoked partitions. */
  UNREVOKED_PARTITIONS: 1,
  /** Waiting for other members to release partitions this member is to get. */
  UNRELEASED_PARTITIONS: 2,
  UNKNOWN: 127,
} as const;
export type MemberStateCode = (typeof MemberState)[keyof typeof MemberState];

/** Epoch -1 leaves the group; -2 is a static member leaving for a while (it may come back). */
export const LEAVE_GROUP_MEMBER_EPOCH = -1;
export const LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;

export interface MemberSubscription {
  instanceId: string | null;
  rackId: string | null;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: readonly string[];
  subscribedTopicRegex: string | null;
  rebalanceTimeoutMs: number;
  serverAssignor: string | null;
}

export interface MemberAssignmentState {
  memberEpoch: number;
  previousMemberEpoch: number;
  state: MemberStateCode;
  assignedPartitions: Assignment;
  partitionsPendingRevocation: Assignment;
}

export interface ConsumerMember extends MemberSubscription, MemberAssignmentState {
  readonly memberId: string;
}

export const INITIAL_SUBSCRIPTION: MemberSubscription = {
  instanceId: null,
  rackId: null,
  clientId: '',
  clientHost: '',
  subscribedTopicNames: [],
  subscribedTopicRegex: null,
  rebalanceTimeoutMs: -1,
  serverAssignor: null,
};

export const INITIAL_ASSIGNMENT_STATE: MemberAssignmentState = {
  memberEpoch: 0,
  previousMemberEpoch: 0,
  state: MemberState.STABLE,
  assignedPartitions: EMPTY_ASSIGNMENT,
  partitionsPendingRevocation: EMPTY_ASSIGNMENT,
};

export function newMember(memberId: string): ConsumerMember {
  return { memberId, ...INITIAL_SUBSCRIPTION, ...INITIAL_ASSIGNMENT_STATE };
}

export function subscriptionOf(m: ConsumerMember): MemberSubscription {
  const { instanceId, rackId, clientId, clientHost, subscribedTopicNames, subscribedTopicRegex, rebalanceTimeoutMs, serverAssignor } = m;
  return { instanceId, rackId, clientId, clientHost, subscribedTopicNames, subscribedTopicRegex, rebalanceTimeoutMs, serverAssignor };
}

export function assignmentStateOf(m: ConsumerMember): MemberAssignmentState {
  const { memberEpoch, previousMemberEpoch, state, assignedPartitions, partitionsPendingRevocation } = m;
  return { memberEpoch, previousMemberEpoch, state, assignedPartitions, partitionsPendingRevocation };
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((n, i) => n === b[i]);
}

/** The topics the member asked for changed: the group epoch must be bumped. */
export function subscribedTopicsChanged(a: MemberSubscription, b: MemberSubscription): boolean {
  return !sameNames(a.subscribedTopicNames, b.subscribedTopicNames) || a.subscribedTopicRegex !== b.subscribedTopicRegex;
}

export function subscriptionsEqual(a: MemberSubscription, b: MemberSubscription): boolean {
  return (
    !subscribedTopicsChanged(a, b) &&
    a.instanceId === b.instanceId &&
    a.rackId === b.rackId &&
    a.clientId === b.clientId &&
    a.clientHost === b.clientHost &&
    a.rebalanceTimeoutMs === b.rebalanceTimeoutMs &&
    a.serverAssignor === b.serverAssignor
  );
}

export function assignmentStatesEqual(a: MemberAssignmentState, b: MemberAssignmentState): boolean {
  return (
    a.memberEpoch === b.memberEpoch &&
    a.previousMemberEpoch === b.previousMemberEpoch &&
    a.state === b.state &&
    assignmentsEqual(a.assignedPartitions, b.assignedPartitions) &&
    assignmentsEqual(a.partitionsPendingRevocation, b.partitionsPendingRevocation)
  );
}

/** Kafka's `isReconciledTo`: the member holds exactly the target of that epoch. */
export function isReconciledTo(m: MemberAssignmentState, assignmentEpoch: number): boolean {
  return m.state === MemberState.STABLE && m.memberEpoch === assignmentEpoch;
}
