/**
 * ShareGroupHeartbeat (KIP-932), after Kafka 4.4's `GroupMetadataManager.shareGroupHeartbeat`:
 * join (epoch 0, with the member id the client generated), heartbeat (the member's epoch or the
 * previous one, when the response with the bump was lost) and leave (-1). Each heartbeat:
 *
 * 1. updates the member; a change of subscribed topics, of their metadata (a topic appeared or
 *    grew), or initialized share-partitions the target does not hold yet bump the group epoch;
 * 2. recomputes the target assignment (`simple` assignor, initialized partitions only) when the
 *    group epoch is ahead of it;
 * 3. moves the member to its target at once (shared partitions need no revocation);
 * 4. marks the subscribed partitions without share-partition state as initializing and returns
 *    them, for the service to initialize through the persister.
 *
 * Every request error is checked before anything changes. Sessions fence silent members in `tick`.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import type {
  ShareGroupHeartbeatRequestData,
  ShareGroupHeartbeatResponseDataInput,
} from '@sluice/protocol/messages/api/76-share-group-heartbeat.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { GroupCoordinatorConfig } from '../config.js';
import type { DeadlineTimer } from '../deadline-timer.js';
import type { TimerAction } from '../group-membership.js';
import type { CoordinatorRecord } from '../records.js';
import { type Assignment, EMPTY_ASSIGNMENT, assignmentToList, assignmentsEqual } from '../consumer/assignment.js';
import { MemberState } from '../consumer/consumer-member.js';
import { type TopicsImage, metadataHash } from '../consumer/subscribed-topics.js';
import type { ShareGroup } from './share-group.js';
import type { ShareGroups } from './share-groups.js';
import { type ShareInitialization, UNINITIALIZED_START_OFFSET, markInitializing, partitionsToInitialize } from './share-initialization.js';
import {
  SHARE_LEAVE_GROUP_MEMBER_EPOCH,
  type ShareMember,
  type ShareMemberSubscription,
  newShareMember,
  sameTopicNames,
  shareAssignmentStateOf,
  shareAssignmentStatesEqual,
  shareSubscriptionOf,
  shareSubscriptionsEqual,
} from './share-member.js';
import { partitionsOf } from './share-partitions-state.js';
import { simpleAssign } from './simple-assignor.js';

export interface ShareHeartbeatContext {
  clientId: string;
  /** As Kafka shows it, e.g. `/127.0.0.1`. */
  clientHost: string;
  now: number;
  topics: TopicsImage;
}

/** What another group type sharing the id space says about an id. */
export type OtherGroupLookup = (groupId: string) => boolean;

export interface ShareHeartbeatResult {
  response: ShareGroupHeartbeatResponseDataInput;
  /** Share-partitions to initialize through the persister, or null. */
  initialize: ShareInitialization | null;
}

function fail(code: number, message: string): never {
  throw new KafkaError(code, message);
}

/** Kafka's checks, made before the coordinator is asked; they answer INVALID_REQUEST. */
export function validateShareGroupHeartbeat(request: ShareGroupHeartbeatRequestData): void {
  const invalid = (message: string): never => fail(ErrorCode.INVALID_REQUEST, message);
  if (request.memberId === '') invalid("MemberId can't be empty.");
  if (request.groupId === '') invalid("GroupId can't be empty.");
  if (request.rackId === '') invalid("RackId can't be empty.");
  if (request.memberEpoch === 0) {
    if (request.subscribedTopicNames === null || request.subscribedTopicNames.length === 0)
      invalid('SubscribedTopicNames must be set in first request.');
  } else if (request.memberEpoch < SHARE_LEAVE_GROUP_MEMBER_EPOCH) invalid('MemberEpoch is invalid.');
}

export class ShareGroupHeartbeats<T> {
  constructor(
    private readonly groups: ShareGroups,
    private readonly otherGroupExists: OtherGroupLookup,
    private readonly timer: DeadlineTimer<TimerAction<T>>,
    private readonly config: GroupCoordinatorConfig,
  ) {}

  /** Throws KafkaError for an answer with an error; `records` is then untouched. */
  heartbeat(request: ShareGroupHeartbeatRequestData, ctx: ShareHeartbeatContext, records: CoordinatorRecord[]): ShareHeartbeatResult {
    validateShareGroupHeartbeat(request);
    if (request.memberEpoch === SHARE_LEAVE_GROUP_MEMBER_EPOCH)
      return { response: this.leave(request, ctx.topics, records), initialize: null };

    const { groupId, memberId, memberEpoch } = request;
    const joining = memberEpoch === 0;
    const existingGroup = this.shareGroup(groupId, joining);
    if (
      existingGroup !== undefined &&
      existingGroup.members.size >= this.config.shareGroupMaxSize &&
      !existingGroup.members.has(memberId)
    ) {
      fail(
        ErrorCode.GROUP_MAX_SIZE_REACHED,
        `The share group has reached its maximum capacity of ${this.config.shareGroupMaxSize} members.`,
      );
    }
    const prior = existingGroup?.members.get(memberId);
    if (prior === undefined && !joining) fail(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${groupId}.`);
    const before = prior ?? newShareMember(memberId);
    checkEpoch(before, memberEpoch);

    // Checks are done: from here on the group changes.
    const subscription: ShareMemberSubscription = {
      rackId: request.rackId ?? before.rackId,
      clientId: ctx.clientId,
      clientHost: ctx.clientHost,
      subscribedTopicNames: request.subscribedTopicNames ?? before.subscribedTopicNames,
    };
    let bumpEpoch = false;
    let subscriptionChanged = false;
    if (prior === undefined || !shareSubscriptionsEqual(subscription, shareSubscriptionOf(before))) {
      this.groups.write({ kind: 'member', groupId, memberId, value: subscription }, records);
      subscriptionChanged = prior === undefined || !sameTopicNames(subscription.subscribedTopicNames, before.subscribedTopicNames);
      bumpEpoch = subscriptionChanged;
    }
    const group = this.groups.get(groupId)!;
    bumpEpoch ||= initializedAssignmentPending(group, ctx.topics);

    // 1. The group epoch follows subscriptions, their topics' metadata and initialized partitions.
    const hash = metadataHash(group.subscribedTopicNames(), ctx.topics);
    if (bumpEpoch || hash !== group.metadataHash)
      this.groups.write({ kind: 'group-epoch', groupId, value: { epoch: group.groupEpoch + 1, metadataHash: hash } }, records);

    // 2. The target assignment follows the group epoch.
    if (group.groupEpoch > group.assignmentEpoch) this.updateTargetAssignment(group, ctx.topics, records);

    // 3. The member takes its target.
    this.reconcile(group, group.members.get(memberId)!, subscriptionChanged, ctx.topics, records);
    const member = group.members.get(memberId)!;
    this.scheduleSession(groupId, memberId, ctx.now);

    // 4. Subscribed partitions without share-partition state get it.
    const adds = partitionsToInitialize(group, ctx.topics, ctx.now, this.config.shareGroupInitializeRetryIntervalMs);
    let initialize: ShareInitialization | null = null;
    if (adds.size > 0) {
      markInitializing(this.groups, group, adds, ctx.now, records);
      const partitions = [...adds].flatMap(([topicId, t]) =>
        [...t.partitions].map((partition) => ({ topicId, partition, startOffset: UNINITIALIZED_START_OFFSET })),
      );
      initialize = { groupId, stateEpoch: group.groupEpoch, partitions };
    }

    const full = joining || request.subscribedTopicNames !== null;
    const changed = !assignmentsEqual(before.assignedPartitions, member.assignedPartitions);
    return {
      response: {
        errorCode: ErrorCode.NONE,
        memberId,
        memberEpoch: member.memberEpoch,
        heartbeatIntervalMs: this.heartbeatIntervalMs(groupId),
        assignment: full || changed ? { topicPartitions: assignmentToList(member.assignedPartitions) } : null,
      },
      initialize,
    };
  }

  /** Removes a member: its records are tombstoned and the group epoch bumped so the others get its partitions. */
  fence(group: ShareGroup, memberId: string, image: TopicsImage | null, records: CoordinatorRecord[]): void {
    const { groupId } = group;
    this.groups.write({ kind: 'current', groupId, memberId, value: null }, records);
    this.groups.write({ kind: 'target', groupId, memberId, value: null }, records);
    this.groups.write({ kind: 'member', groupId, memberId, value: null }, records);
    // Without a topics image (a timer firing) the hash stays; the next heartbeat refreshes it.
    const hash = image === null ? group.metadataHash : metadataHash(group.subscribedTopicNames(), image);
    this.groups.write({ kind: 'group-epoch', groupId, value: { epoch: group.groupEpoch + 1, metadataHash: hash } }, records);
    this.timer.cancel(sessionKey(groupId, memberId));
  }

  /** Every member's session starts again: after loading, as Kafka does. */
  startSessions(now: number): void {
    for (const group of this.groups.all()) for (const m of group.members.values()) this.scheduleSession(group.groupId, m.memberId, now);
  }

  cancelTimers(group: ShareGroup): void {
    for (const memberId of group.members.keys()) this.timer.cancel(sessionKey(group.groupId, memberId));
  }

  heartbeatIntervalMs(groupId: string): number {
    return this.config.groupOverrides(groupId).shareHeartbeatIntervalMs ?? this.config.shareGroupHeartbeatIntervalMs;
  }

  /** The share group of that id; GROUP_ID_NOT_FOUND when there is none (and none may be created) or the id is another type's. */
  shareGroup(groupId: string, createIfAbsent: boolean): ShareGroup | undefined {
    const group = this.groups.get(groupId);
    if (group !== undefined) return group;
    if (this.otherGroupExists(groupId)) fail(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a share group.`);
    if (!createIfAbsent) fail(ErrorCode.GROUP_ID_NOT_FOUND, `Share group ${groupId} not found.`);
    return undefined;
  }

  private leave(
    request: ShareGroupHeartbeatRequestData,
    image: TopicsImage,
    records: CoordinatorRecord[],
  ): ShareGroupHeartbeatResponseDataInput {
    const { groupId, memberId, memberEpoch } = request;
    const group = this.shareGroup(groupId, false)!;
    if (!group.members.has(memberId)) fail(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${groupId}.`);
    this.fence(group, memberId, image, records);
    return { errorCode: ErrorCode.NONE, memberId, memberEpoch, heartbeatIntervalMs: 0 };
  }

  private updateTargetAssignment(group: ShareGroup, image: TopicsImage, records: CoordinatorRecord[]): void {
    const members = [...group.members.values()]
      .sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0))
      .map((m) => ({ memberId: m.memberId, topicIds: subscribedTopicIds(m, image), current: group.target(m.memberId) }));
    const result = simpleAssign({ members, assignable: partitionsOf(group.partitions.initialized) });
    const { groupId } = group;
    for (const m of members) {
      const value = result.get(m.memberId) ?? EMPTY_ASSIGNMENT;
      // A new member gets its target record even when empty, so replay knows it has one.
      if (!group.targets.has(m.memberId) || !assignmentsEqual(value, m.current))
        this.groups.write({ kind: 'target', groupId, memberId: m.memberId, value }, records);
    }
    this.groups.write({ kind: 'target-epoch', groupId, value: group.groupEpoch }, records);
  }

  private reconcile(
    group: ShareGroup,
    member: ShareMember,
    subscriptionChanged: boolean,
    image: TopicsImage,
    records: CoordinatorRecord[],
  ): void {
    const atTarget = member.memberEpoch === group.assignmentEpoch;
    if (atTarget && !subscriptionChanged) return;
    const state = shareAssignmentStateOf(member);
    // The target may predate the member's new subscription: only partitions of subscribed topics are handed over.
    const assignedPartitions = onlyTopics(group.target(member.memberId), subscribedTopicIds(member, image));
    const next = atTarget
      ? { ...state, assignedPartitions }
      : { memberEpoch: group.assignmentEpoch, previousMemberEpoch: member.memberEpoch, state: MemberState.STABLE, assignedPartitions };
    if (!shareAssignmentStatesEqual(next, state))
      this.groups.write({ kind: 'current', groupId: group.groupId, memberId: member.memberId, value: next }, records);
  }

  private scheduleSession(groupId: string, memberId: string, now: number): void {
    const timeoutMs = this.config.groupOverrides(groupId).shareSessionTimeoutMs ?? this.config.shareGroupSessionTimeoutMs;
    this.timer.schedule(sessionKey(groupId, memberId), now + timeoutMs, (fx) => {
      const group = this.groups.get(groupId);
      if (group?.members.has(memberId) === true) this.fence(group, memberId, null, fx.records);
    });
  }
}

/**
 * Kafka's `initializedAssignmentPending`: a subscribed topic's initialized partitions differ from
 * what the target assigns, so the target must be recomputed (they were initialized since).
 */
function initializedAssignmentPending(group: ShareGroup, image: TopicsImage): boolean {
  if (group.members.size === 0 || group.partitions.initialized.size === 0) return false;
  const subscribed = group.subscribedTopicNames();
  const assigned = new Map<string, Set<number>>();
  for (const target of group.targets.values()) {
    for (const [topicId, partitions] of target) {
      let set = assigned.get(topicId);
      if (set === undefined) assigned.set(topicId, (set = new Set()));
      for (const p of partitions) set.add(p);
    }
  }
  for (const topicId of group.partitions.initialized.keys()) {
    // A deleted topic (even one recreated under the same name, with a new id) has nothing to assign.
    const name = image.topicById(topicId)?.name;
    if (name === undefined || !subscribed.has(name)) continue;
    const info = group.partitions.initialized.get(topicId)!;
    const have = assigned.get(topicId);
    if (have === undefined || have.size !== info.partitions.size || [...info.partitions].some((p) => !have.has(p))) return true;
  }
  return false;
}

function subscribedTopicIds(m: ShareMemberSubscription, image: TopicsImage): Set<string> {
  const ids = new Set<string>();
  for (const name of m.subscribedTopicNames) {
    const t = image.topic(name);
    if (t !== undefined) ids.add(t.topicId);
  }
  return ids;
}

function onlyTopics(a: Assignment, topicIds: ReadonlySet<string>): Assignment {
  return new Map([...a].filter(([topicId]) => topicIds.has(topicId)));
}

/** Kafka's share epoch check: the previous epoch is accepted (the response with the bump was lost). */
function checkEpoch(member: ShareMember, received: number): void {
  if (received > member.memberEpoch) {
    fail(
      ErrorCode.FENCED_MEMBER_EPOCH,
      `The share group member has a greater member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
    );
  }
  if (received < member.memberEpoch && received !== member.previousMemberEpoch) {
    fail(
      ErrorCode.FENCED_MEMBER_EPOCH,
      `The share group member has a smaller member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}), and it does not match the previous member epoch (${member.previousMemberEpoch}). The member must abandon all its partitions and rejoin.`,
    );
  }
}

function sessionKey(groupId: string, memberId: string): string {
  return `share-session:${groupId}:${memberId}`;
}
