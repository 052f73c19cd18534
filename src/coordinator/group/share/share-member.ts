/**
 * A share group member as the coordinator keeps it: what the member sent (persisted as
 * ShareGroupMemberMetadata) and the partitions it was given (ShareGroupCurrentMemberAssignment).
 * Plain immutable objects, as consumer members are: an update is a new object.
 */
import { type Assignment, EMPTY_ASSIGNMENT, assignmentsEqual } from '../consumer/assignment.js';
import { MemberState, type MemberStateCode } from '../consumer/consumer-member.js';

/** ShareGroupHeartbeat epoch -1: the member leaves. Share groups have no static members. */
export const SHARE_LEAVE_GROUP_MEMBER_EPOCH = -1;

export interface ShareMemberSubscription {
  rackId: string | null;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: readonly string[];
}

export interface ShareMemberAssignmentState {
  memberEpoch: number;
  previousMemberEpoch: number;
  state: MemberStateCode;
  assignedPartitions: Assignment;
}

export interface ShareMember extends ShareMemberSubscription, ShareMemberAssignmentState {
  readonly memberId: string;
}

export const INITIAL_SHARE_ASSIGNMENT_STATE: ShareMemberAssignmentState = {
  memberEpoch: 0,
  previousMemberEpoch: 0,
  state: MemberState.STABLE,
  assignedPartitions: EMPTY_ASSIGNMENT,
};

export function newShareMember(memberId: string): ShareMember {
  return { memberId, rackId: null, clientId: '', clientHost: '', subscribedTopicNames: [], ...INITIAL_SHARE_ASSIGNMENT_STATE };
}

export function shareSubscriptionOf(m: ShareMember): ShareMemberSubscription {
  const { rackId, clientId, clientHost, subscribedTopicNames } = m;
  return { rackId, clientId, clientHost, subscribedTopicNames };
}

export function shareAssignmentStateOf(m: ShareMember): ShareMemberAssignmentState {
  const { memberEpoch, previousMemberEpoch, state, assignedPartitions } = m;
  return { memberEpoch, previousMemberEpoch, state, assignedPartitions };
}

export function sameTopicNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((n, i) => n === b[i]);
}

export function shareSubscriptionsEqual(a: ShareMemberSubscription, b: ShareMemberSubscription): boolean {
  return (
    sameTopicNames(a.subscribedTopicNames, b.subscribedTopicNames) &&
    a.rackId === b.rackId &&
    a.clientId === b.clientId &&
    a.clientHost === b.clientHost
  );
}

export function shareAssignmentStatesEqual(a: ShareMemberAssignmentState, b: ShareMemberAssignmentState): boolean {
  return (
    a.memberEpoch === b.memberEpoch &&
    a.previousMemberEpoch === b.previousMemberEpoch &&
    a.state === b.state &&
    assignmentsEqual(a.assignedPartitions, b.assignedPartitions)
  );
}
