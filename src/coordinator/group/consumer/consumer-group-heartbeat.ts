/**
 * ConsumerGroupHeartbeat (KIP-848), after Kafka's `GroupMetadataManager.consumerGroupHeartbeat`:
 * join (epoch 0), heartbeat (the member's epoch, or the previous one when the response with the
 * bump was lost), leave (-1; -2 for a static member that will come back). Each heartbeat:
 *
 * 1. updates the member's subscription; a change of subscribed topics, or of the subscribed topics'
 *    metadata (checked on every heartbeat: a topic appeared or gained partitions), bumps the group
 *    epoch;
 * 2. recomputes the target assignment when the group epoch is ahead of it;
 * 3. reconciles the member towards its target (revocation before reassignment).
 *
 * Every request error is checked before anything changes, so an error leaves no trace. Sessions
 * (`group.consumer.session.timeout.ms`) and revocation deadlines (the member's rebalance timeout)
 * fence the member when they fire in `tick`.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import type {
  ConsumerGroupHeartbeatRequestData,
  ConsumerGroupHeartbeatResponseDataInput,
} from '@sluice/protocol/messages/api/68-consumer-group-heartbeat.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { GroupCoordinatorConfig } from '../config.js';
import type { DeadlineTimer } from '../deadline-timer.js';
import type { TimerAction } from '../group-membership.js';
import type { CoordinatorRecord } from '../records.js';
import { assignmentToList, assignmentsEqual } from './assignment.js';
import { assignorNamed } from './assignor.js';
import type { ConsumerGroup } from './consumer-group.js';
import type { ConsumerGroups } from './consumer-groups.js';
import {
  type ConsumerMember,
  LEAVE_GROUP_MEMBER_EPOCH,
  LEAVE_GROUP_STATIC_MEMBER_EPOCH,
  MemberState,
  type MemberSubscription,
  assignmentStateOf,
  assignmentStatesEqual,
  isReconciledTo,
  newMember,
  subscribedTopicsChanged,
  subscriptionOf,
  subscriptionsEqual,
} from './consumer-member.js';
import { reconcile } from './reconciliation.js';
import { type TopicsImage, compileTopicRegex, metadataHash, subscribedTopicsOf } from './subscribed-topics.js';
import { updateTargetAssignment } from './target-assignment.js';

/** From v1 the client generates its member id; v0 lets the coordinator do it. */
const FIRST_VERSION_WITH_CLIENT_MEMBER_ID = 1;

export interface ConsumerHeartbeatContext {
  apiVersion: number;
  clientId: string;
  /** As Kafka shows it, e.g. `/127.0.0.1`. */
  clientHost: string;
  now: number;
  topics: TopicsImage;
}

/** What the consumer protocol needs to know of classic groups sharing the group id space. */
export interface ClassicGroupsView {
  /** 'active': a classic group with members, which a consumer group cannot take over. */
  stateOf(groupId: string): 'none' | 'empty' | 'active';
  /** Removes an empty classic group a consumer group replaces, writing its tombstone. */
  remove(groupId: string, records: CoordinatorRecord[]): void;
}

function fail(code: number, message: string): never {
  throw new KafkaError(code, message);
}

export class ConsumerGroupHeartbeats<T> {
  constructor(
    private readonly groups: ConsumerGroups,
    private readonly classic: ClassicGroupsView,
    private readonly timer: DeadlineTimer<TimerAction<T>>,
    private readonly config: GroupCoordinatorConfig,
    private readonly newMemberId: () => string,
  ) {}

  /** Throws KafkaError for an answer with an error; `records` is then untouched. */
  heartbeat(
    request: ConsumerGroupHeartbeatRequestData,
    ctx: ConsumerHeartbeatContext,
    records: CoordinatorRecord[],
  ): ConsumerGroupHeartbeatResponseDataInput {
    this.validate(request, ctx.apiVersion);
    if (request.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH || request.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH)
      return this.leave(request, ctx.topics, records);

    const { groupId, memberEpoch, instanceId } = request;
    const joining = memberEpoch === 0;
    const group = this.groups.get(groupId);
    if (group === undefined) {
      if (!joining) fail(ErrorCode.GROUP_ID_NOT_FOUND, `Consumer group ${groupId} not found.`);
      if (this.classic.stateOf(groupId) === 'active') fail(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a consumer group.`);
    }
    if (
      group !== undefined &&
      group.members.size >= this.config.consumerGroupMaxSize &&
      (request.memberId === '' || !group.members.has(request.memberId))
    ) {
      fail(
        ErrorCode.GROUP_MAX_SIZE_REACHED,
        `The consumer group has reached its maximum capacity of ${this.config.consumerGroupMaxSize} members.`,
      );
    }
    const memberId = request.memberId === '' ? this.newMemberId() : request.memberId;
    const { existing, replaced } = this.findMember(group, memberId, instanceId, request);

    // Checks are done: from here on the group changes.
    if (group === undefined && this.classic.stateOf(groupId) === 'empty') this.classic.remove(groupId, records);
    if (replaced !== undefined) this.replaceStaticMember(groupId, replaced, memberId, records);
    // A replacing static member starts from its predecessor's state: same subscription, no rebalance.
    const prior = existing ?? (replaced !== undefined ? this.groups.get(groupId)!.members.get(memberId) : undefined);
    const before = prior ?? newMember(memberId);
    const subscription: MemberSubscription = {
      instanceId: instanceId ?? before.instanceId,
      rackId: request.rackId ?? before.rackId,
      clientId: ctx.clientId,
      clientHost: ctx.clientHost,
      subscribedTopicNames: request.subscribedTopicNames ?? before.subscribedTopicNames,
      // An empty regex clears it (the client switched to topic names).
      subscribedTopicRegex:
        request.subscribedTopicRegex === null
          ? before.subscribedTopicRegex
          : request.subscribedTopicRegex === ''
            ? null
            : request.subscribedTopicRegex,
      rebalanceTimeoutMs: request.rebalanceTimeoutMs === -1 ? before.rebalanceTimeoutMs : request.rebalanceTimeoutMs,
      serverAssignor: request.serverAssignor ?? before.serverAssignor,
    };
    let bumpEpoch = false;
    if (prior === undefined || !subscriptionsEqual(subscription, subscriptionOf(before))) {
      this.groups.write({ kind: 'member', groupId, memberId, value: subscription }, records);
      bumpEpoch = prior === undefined || subscribedTopicsChanged(subscription, before);
    }
    const g = this.groups.get(groupId)!;

    // 1. The group epoch follows subscriptions and the subscribed topics' metadata.
    const hash = metadataHash(this.subscribedTopicNames(g, ctx.topics), ctx.topics);
    if (bumpEpoch || hash !== g.metadataHash)
      this.groups.write({ kind: 'group-epoch', groupId, value: { epoch: g.groupEpoch + 1, metadataHash: hash } }, records);

    // 2. The target assignment follows the group epoch.
    if (g.groupEpoch > g.assignmentEpoch) {
      const assignor = assignorNamed(g.preferredAssignor() ?? this.config.consumerGroupAssignors[0]!, this.config.consumerGroupAssignors);
      if (assignor === undefined)
        fail(ErrorCode.UNKNOWN_SERVER_ERROR, `no server assignor among ${this.config.consumerGroupAssignors.join(', ')}`);
      updateTargetAssignment(this.groups, g, assignor, ctx.topics, records);
    }

    // 3. The member moves towards its target.
    const current = g.members.get(memberId)!;
    this.maybeReconcile(g, current, request.topicPartitions, ctx.now, records);
    const member = g.members.get(memberId)!;
    this.scheduleSession(groupId, memberId, ctx.now);

    const isFullRequest =
      joining ||
      (request.rebalanceTimeoutMs !== -1 &&
        (request.subscribedTopicNames !== null || request.subscribedTopicRegex !== null) &&
        request.topicPartitions !== null);
    const changed = !assignmentsEqual(before.assignedPartitions, member.assignedPartitions);
    return {
      errorCode: ErrorCode.NONE,
      memberId,
      memberEpoch: member.memberEpoch,
      heartbeatIntervalMs: this.config.groupOverrides(groupId).consumerHeartbeatIntervalMs ?? this.config.consumerGroupHeartbeatIntervalMs,
      assignment: isFullRequest || changed ? { topicPartitions: assignmentToList(member.assignedPartitions) } : null,
    };
  }

  /** Removes a member: its records are tombstoned and the group epoch bumped so the others rebalance. */
  fence(group: ConsumerGroup, memberId: string, image: TopicsImage | null, records: CoordinatorRecord[]): void {
    const { groupId } = group;
    this.removeMember(groupId, memberId, records);
    // Without a topics image (a timer firing) the hash stays; the next heartbeat refreshes it.
    const hash = image === null ? group.metadataHash : metadataHash(this.subscribedTopicNames(group, image), image);
    this.groups.write({ kind: 'group-epoch', groupId, value: { epoch: group.groupEpoch + 1, metadataHash: hash } }, records);
    this.cancelTimers(groupId, memberId);
  }

  /** Every member's session starts again: after loading, as Kafka does. */
  startSessions(now: number): void {
    for (const group of this.groups.all()) {
      for (const m of group.members.values()) {
        this.scheduleSession(group.groupId, m.memberId, now);
        if (m.state === MemberState.UNREVOKED_PARTITIONS) this.scheduleRevocation(group.groupId, m, now);
      }
    }
  }

  cancelTimers(groupId: string, memberId: string): void {
    this.timer.cancel(sessionKey(groupId, memberId));
    this.timer.cancel(revocationKey(groupId, memberId));
  }

  private validate(request: ConsumerGroupHeartbeatRequestData, apiVersion: number): void {
    const invalid = (message: string): never => fail(ErrorCode.INVALID_REQUEST, message);
    const { memberEpoch } = request;
    if (apiVersion >= FIRST_VERSION_WITH_CLIENT_MEMBER_ID || memberEpoch > 0 || memberEpoch === LEAVE_GROUP_MEMBER_EPOCH) {
      if (request.memberId === '') invalid("MemberId can't be empty.");
    }
    if (request.groupId === '') invalid("GroupId can't be empty.");
    if (request.instanceId === '') invalid("InstanceId can't be empty.");
    if (request.rackId === '') invalid("RackId can't be empty.");
    if (memberEpoch === 0) {
      if (request.rebalanceTimeoutMs === -1) invalid('RebalanceTimeoutMs must be provided in first request.');
      if (request.topicPartitions === null || request.topicPartitions.length > 0)
        invalid('TopicPartitions must be empty when (re-)joining.');
      const hasNames = request.subscribedTopicNames !== null && request.subscribedTopicNames.length > 0;
      const hasRegex = request.subscribedTopicRegex !== null && request.subscribedTopicRegex !== '';
      if (!hasNames && !hasRegex) invalid('SubscribedTopicNames or SubscribedTopicRegex must be set in first request.');
    } else if (memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      if (request.instanceId === null) invalid("InstanceId can't be null.");
    } else if (memberEpoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      invalid('MemberEpoch is invalid.');
    }
    if (
      request.subscribedTopicRegex !== null &&
      request.subscribedTopicRegex !== '' &&
      compileTopicRegex(request.subscribedTopicRegex) === null
    ) {
      fail(
        ErrorCode.INVALID_REGULAR_EXPRESSION,
        `SubscribedTopicRegex \`${request.subscribedTopicRegex}\` is not a valid regular expression.`,
      );
    }
    if (request.serverAssignor !== null && assignorNamed(request.serverAssignor, this.config.consumerGroupAssignors) === undefined) {
      fail(
        ErrorCode.UNSUPPORTED_ASSIGNOR,
        `ServerAssignor ${request.serverAssignor} is not supported. Supported assignors: ${this.config.consumerGroupAssignors.join(', ')}.`,
      );
    }
  }

  /** The member the heartbeat is for, or the static member it replaces; throws the member errors. */
  private findMember(
    group: ConsumerGroup | undefined,
    memberId: string,
    instanceId: string | null,
    request: ConsumerGroupHeartbeatRequestData,
  ): { existing?: ConsumerMember; replaced?: ConsumerMember } {
    const joining = request.memberEpoch === 0;
    if (instanceId === null) {
      const existing = group?.members.get(memberId);
      if (existing === undefined) {
        if (!joining) fail(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${request.groupId}.`);
        return {};
      }
      // A known member re-joining (epoch 0) gets its current state back.
      if (!joining) checkEpoch(existing, request);
      return { existing };
    }
    const holder = group?.staticMember(instanceId);
    if (joining) {
      if (holder === undefined) return {};
      // The instance id is taken over only from a static member that said it would leave (-2).
      if (holder.memberEpoch !== LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
        fail(
          ErrorCode.UNRELEASED_INSTANCE_ID,
          `Static member ${memberId} with instance id ${instanceId} cannot join the group because the instance id is owned by ${holder.memberId} member.`,
        );
      }
      return holder.memberId === memberId ? { existing: holder } : { replaced: holder };
    }
    if (holder === undefined) fail(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${instanceId} is unknown.`);
    if (holder.memberId !== memberId)
      fail(
        ErrorCode.FENCED_INSTANCE_ID,
        `Static member ${memberId} with instance id ${instanceId} was fenced by member ${holder.memberId}.`,
      );
    checkEpoch(holder, request);
    return { existing: holder };
  }

  private leave(
    request: ConsumerGroupHeartbeatRequestData,
    image: TopicsImage,
    records: CoordinatorRecord[],
  ): ConsumerGroupHeartbeatResponseDataInput {
    const { groupId, memberId, instanceId, memberEpoch } = request;
    const group = this.groups.get(groupId) ?? fail(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} not found.`);
    const response = { errorCode: ErrorCode.NONE, memberId, memberEpoch };
    if (instanceId === null) {
      if (!group.members.has(memberId)) fail(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${groupId}.`);
      this.fence(group, memberId, image, records);
      return response;
    }
    const holder = group.staticMember(instanceId) ?? fail(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${instanceId} is unknown.`);
    if (holder.memberId !== memberId)
      fail(
        ErrorCode.FENCED_INSTANCE_ID,
        `Static member ${memberId} with instance id ${instanceId} was fenced by member ${holder.memberId}.`,
      );
    if (memberEpoch === LEAVE_GROUP_MEMBER_EPOCH) {
      this.fence(group, memberId, image, records);
      return response;
    }
    // A static member leaving for a while keeps its partitions (and its session) until it comes back.
    const leaving = { ...assignmentStateOf(holder), memberEpoch: LEAVE_GROUP_STATIC_MEMBER_EPOCH, partitionsPendingRevocation: new Map() };
    this.groups.write({ kind: 'current', groupId, memberId, value: leaving }, records);
    this.timer.cancel(revocationKey(groupId, memberId));
    return { errorCode: ErrorCode.NONE, memberId, memberEpoch: LEAVE_GROUP_STATIC_MEMBER_EPOCH };
  }

  /** A static member re-joining under a new member id takes over its predecessor's state. */
  private replaceStaticMember(groupId: string, old: ConsumerMember, memberId: string, records: CoordinatorRecord[]): void {
    const group = this.groups.get(groupId)!;
    const target = group.target(old.memberId);
    this.removeMember(groupId, old.memberId, records);
    this.cancelTimers(groupId, old.memberId);
    this.groups.write({ kind: 'member', groupId, memberId, value: subscriptionOf(old) }, records);
    this.groups.write({ kind: 'target', groupId, memberId, value: target }, records);
    this.groups.write(
      { kind: 'current', groupId, memberId, value: { ...assignmentStateOf(old), memberEpoch: 0, previousMemberEpoch: 0 } },
      records,
    );
  }

  /** Kafka's order: current assignment, target, then the member itself. */
  private removeMember(groupId: string, memberId: string, records: CoordinatorRecord[]): void {
    this.groups.write({ kind: 'current', groupId, memberId, value: null }, records);
    this.groups.write({ kind: 'target', groupId, memberId, value: null }, records);
    this.groups.write({ kind: 'member', groupId, memberId, value: null }, records);
  }

  private maybeReconcile(
    group: ConsumerGroup,
    member: ConsumerMember,
    owned: ConsumerGroupHeartbeatRequestData['topicPartitions'],
    now: number,
    records: CoordinatorRecord[],
  ): void {
    if (isReconciledTo(member, group.assignmentEpoch)) return;
    const state = assignmentStateOf(member);
    const next = reconcile({
      member: state,
      targetEpoch: group.assignmentEpoch,
      target: group.target(member.memberId),
      partitionEpoch: (topicId, p) => group.currentPartitionEpoch(topicId, p),
      owned,
    });
    if (assignmentStatesEqual(next, state)) return;
    this.groups.write({ kind: 'current', groupId: group.groupId, memberId: member.memberId, value: next }, records);
    const updated = group.members.get(member.memberId)!;
    if (next.state === MemberState.UNREVOKED_PARTITIONS) this.scheduleRevocation(group.groupId, updated, now);
    else this.timer.cancel(revocationKey(group.groupId, member.memberId));
  }

  private subscribedTopicNames(group: ConsumerGroup, image: TopicsImage): Set<string> {
    const names = new Set<string>();
    for (const m of group.members.values()) for (const n of subscribedTopicsOf(m, image)) names.add(n);
    return names;
  }

  private scheduleSession(groupId: string, memberId: string, now: number): void {
    const sessionTimeoutMs = this.config.groupOverrides(groupId).consumerSessionTimeoutMs ?? this.config.consumerGroupSessionTimeoutMs;
    this.timer.schedule(sessionKey(groupId, memberId), now + sessionTimeoutMs, (fx) => {
      const group = this.groups.get(groupId);
      if (group?.members.has(memberId) === true) this.fence(group, memberId, null, fx.records);
    });
  }

  /** A member must revoke within its rebalance timeout, or it is fenced so its partitions can move. */
  private scheduleRevocation(groupId: string, member: ConsumerMember, now: number): void {
    const epoch = member.memberEpoch;
    this.timer.schedule(revocationKey(groupId, member.memberId), now + member.rebalanceTimeoutMs, (fx) => {
      const group = this.groups.get(groupId);
      const m = group?.members.get(member.memberId);
      if (group !== undefined && m !== undefined && m.memberEpoch === epoch && m.state === MemberState.UNREVOKED_PARTITIONS)
        this.fence(group, member.memberId, null, fx.records);
    });
  }
}

/** Kafka's epoch check; the previous epoch is accepted when the member owns no more than its assignment. */
function checkEpoch(member: ConsumerMember, request: ConsumerGroupHeartbeatRequestData): void {
  const received = request.memberEpoch;
  if (received > member.memberEpoch) {
    fail(
      ErrorCode.FENCED_MEMBER_EPOCH,
      `The consumer group member has a greater member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
    );
  }
  if (received < member.memberEpoch && (received !== member.previousMemberEpoch || !ownsSubsetOf(request.topicPartitions, member))) {
    fail(
      ErrorCode.FENCED_MEMBER_EPOCH,
      `The consumer group member has a smaller member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
    );
  }
}

function ownsSubsetOf(owned: ConsumerGroupHeartbeatRequestData['topicPartitions'], member: ConsumerMember): boolean {
  if (owned === null) return false;
  return owned.every((t) => t.partitions.every((p) => member.assignedPartitions.get(t.topicId)?.has(p) === true));
}

function sessionKey(groupId: string, memberId: string): string {
  return `consumer-session:${groupId}:${memberId}`;
}

function revocationKey(groupId: string, memberId: string): string {
  return `consumer-revocation:${groupId}:${memberId}`;
}
