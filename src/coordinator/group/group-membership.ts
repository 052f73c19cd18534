/**
 * The classic group protocol — JoinGroup, SyncGroup, Heartbeat, LeaveGroup — and the deadlines
 * that drive it: member sessions, the rebalance timeout, the pending-sync timeout and
 * `group.initial.rebalance.delay.ms`. Follows Kafka's classic group coordinator (error codes,
 * which member leads, when a generation advances); answers to parked requests go into `Effects`.
 * Owned by `GroupCoordinator`, which shares its group map with the offset side.
 */
import type { HeartbeatRequestData } from '@sluice/protocol/messages/api/12-heartbeat.js';
import type { JoinGroupRequestData, JoinGroupResponseDataInput } from '@sluice/protocol/messages/api/11-join-group.js';
import type { LeaveGroupRequestMemberIdentity } from '@sluice/protocol/messages/api/13-leave-group.js';
import type { SyncGroupRequestData } from '@sluice/protocol/messages/api/14-sync-group.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { ClassicGroup, EMPTY_ASSIGNMENT, type ClassicMember, sameProtocols } from './classic-group.js';
import type { GroupCoordinatorConfig } from './config.js';
import { type DeadlineTimer } from './deadline-timer.js';
import { groupMetadataValue } from './group-metadata-value.js';
import { groupMetadataRecord } from './records.js';
import type { Effects, Waiter } from './results.js';

/** The member id of a member that has none yet. */
export const UNKNOWN_MEMBER_ID = '';
/** KIP-394: from JoinGroup v4 a new member must come back with the member id it is given. */
const FIRST_VERSION_REQUIRING_KNOWN_MEMBER_ID = 4;
/** JoinGroup v9 can tell a replaced static leader to skip the assignment. */
const FIRST_VERSION_SKIPPING_ASSIGNMENT = 9;

export type Group<T> = ClassicGroup<Waiter<T>>;
type Member<T> = ClassicMember<Waiter<T>>;
export type TimerAction<T> = (fx: Effects<T>, now: number) => void;

export interface JoinContext {
  apiVersion: number;
  clientId: string;
  clientHost: string;
  now: number;
}

export class GroupMembership<T> {
  constructor(
    private readonly groups: Map<string, Group<T>>,
    private readonly timer: DeadlineTimer<TimerAction<T>>,
    private readonly config: GroupCoordinatorConfig,
    private readonly newMemberId: (prefix: string) => string,
  ) {}

  // ---- JoinGroup -------------------------------------------------------------------------------

  join(request: JoinGroupRequestData, ctx: JoinContext, waiter: Waiter<T>, fx: Effects<T>): void {
    const fail = (errorCode: number, memberId: string): void => fx.answerJoin(waiter, { errorCode, memberId });
    const { groupId, memberId } = request;
    if (groupId === '') return fail(ErrorCode.INVALID_GROUP_ID, memberId);
    if (request.sessionTimeoutMs < this.config.minSessionTimeoutMs || request.sessionTimeoutMs > this.config.maxSessionTimeoutMs) {
      return fail(ErrorCode.INVALID_SESSION_TIMEOUT, memberId);
    }
    const isUnknownMember = memberId === UNKNOWN_MEMBER_ID;
    let group = this.groups.get(groupId);
    const isNewGroup = group === undefined;
    if (group === undefined) {
      // A member id for a group that does not exist belongs to a group that is gone.
      if (!isUnknownMember) return fail(ErrorCode.UNKNOWN_MEMBER_ID, memberId);
      group = new ClassicGroup(groupId, {
        state: 'Empty',
        generationId: 0,
        protocolType: null,
        protocolName: null,
        currentStateTimestamp: null,
      });
      this.groups.set(groupId, group);
    }
    const recordsBefore = fx.records.length;
    if (!this.acceptsJoiningMember(group, memberId)) {
      this.removeMember(group, memberId, fx);
      fail(ErrorCode.GROUP_MAX_SIZE_REACHED, UNKNOWN_MEMBER_ID);
    } else if (isUnknownMember) {
      this.joinNewMember(group, request, ctx, waiter, fx);
    } else {
      this.joinExistingMember(group, request, ctx, waiter, fx);
    }
    // A new group is written at once (empty) so that it survives a restart like Kafka's does.
    if (isNewGroup && fx.records.length === recordsBefore) {
      fx.records.push(groupMetadataRecord(groupId, groupMetadataValue(group, new Map())));
    }
  }

  private acceptsJoiningMember(group: Group<T>, memberId: string): boolean {
    switch (group.state) {
      case 'Empty':
      case 'Dead':
        return true;
      case 'PreparingRebalance':
        // Counting members awaiting a join (not all members) lets the last rejoiners be turned away
        // when group.max.size was lowered below the current size.
        return group.member(memberId)?.awaitingJoin != null || group.numAwaitingJoin() < this.config.maxGroupSize;
      case 'CompletingRebalance':
      case 'Stable':
        return group.members.has(memberId) || group.members.size < this.config.maxGroupSize;
    }
  }

  private joinNewMember(group: Group<T>, request: JoinGroupRequestData, ctx: JoinContext, waiter: Waiter<T>, fx: Effects<T>): void {
    if (group.is('Dead')) return fx.answerJoin(waiter, { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, memberId: UNKNOWN_MEMBER_ID });
    if (
      !group.supportsProtocols(
        request.protocolType,
        request.protocols.map((p) => p.name),
      )
    ) {
      return fx.answerJoin(waiter, { errorCode: ErrorCode.INCONSISTENT_GROUP_PROTOCOL, memberId: UNKNOWN_MEMBER_ID });
    }
    const newMemberId = this.newMemberId(request.groupInstanceId ?? ctx.clientId);
    if (request.groupInstanceId !== null) {
      const existing = group.staticMemberId(request.groupInstanceId);
      if (existing !== undefined) return this.replaceStaticMember(group, request, ctx, existing, newMemberId, waiter, fx);
      return this.addMemberAndRebalance(group, request, ctx, newMemberId, waiter, fx);
    }
    if (ctx.apiVersion >= FIRST_VERSION_REQUIRING_KNOWN_MEMBER_ID) {
      group.pendingJoinMembers.add(newMemberId);
      this.scheduleSessionExpiry(group.groupId, newMemberId, ctx.now + request.sessionTimeoutMs);
      return fx.answerJoin(waiter, { errorCode: ErrorCode.MEMBER_ID_REQUIRED, memberId: newMemberId });
    }
    this.addMemberAndRebalance(group, request, ctx, newMemberId, waiter, fx);
  }

  private joinExistingMember(group: Group<T>, request: JoinGroupRequestData, ctx: JoinContext, waiter: Waiter<T>, fx: Effects<T>): void {
    const { memberId } = request;
    if (group.is('Dead')) return fx.answerJoin(waiter, { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, memberId });
    if (
      !group.supportsProtocols(
        request.protocolType,
        request.protocols.map((p) => p.name),
      )
    ) {
      return fx.answerJoin(waiter, { errorCode: ErrorCode.INCONSISTENT_GROUP_PROTOCOL, memberId });
    }
    if (group.pendingJoinMembers.has(memberId)) return this.addMemberAndRebalance(group, request, ctx, memberId, waiter, fx);
    const error = memberError(group, memberId, request.groupInstanceId);
    if (error !== ErrorCode.NONE) return fx.answerJoin(waiter, { errorCode: error, memberId });
    const member = group.member(memberId)!;
    const unchanged = sameProtocols(member.protocols, request.protocols);
    switch (group.state) {
      case 'PreparingRebalance':
        return this.updateMemberAndRebalance(group, member, request, waiter, ctx, fx);
      case 'CompletingRebalance':
        // Same metadata: the member lost its JoinGroup response; answer it again.
        if (unchanged) return fx.answerJoin(waiter, this.joinResponse(group, member, group.isLeader(memberId)));
        return this.updateMemberAndRebalance(group, member, request, waiter, ctx, fx);
      case 'Stable':
        // A rejoining leader forces a rebalance: it may have seen a change the metadata does not show.
        if (group.isLeader(memberId) || !unchanged) return this.updateMemberAndRebalance(group, member, request, waiter, ctx, fx);
        return fx.answerJoin(waiter, this.joinResponse(group, member, false));
      case 'Empty':
      case 'Dead':
        return fx.answerJoin(waiter, { errorCode: ErrorCode.UNKNOWN_MEMBER_ID, memberId });
    }
  }

  private addMemberAndRebalance(
    group: Group<T>,
    request: JoinGroupRequestData,
    ctx: JoinContext,
    memberId: string,
    waiter: Waiter<T>,
    fx: Effects<T>,
  ): void {
    const member: Member<T> = {
      memberId,
      groupInstanceId: request.groupInstanceId,
      clientId: ctx.clientId,
      clientHost: ctx.clientHost,
      rebalanceTimeoutMs: rebalanceTimeoutOf(request, ctx.apiVersion),
      sessionTimeoutMs: request.sessionTimeoutMs,
      protocolType: request.protocolType,
      protocols: request.protocols.map((p) => ({ name: p.name, metadata: p.metadata })),
      assignment: EMPTY_ASSIGNMENT,
      awaitingJoin: waiter,
      awaitingSync: null,
      isNew: true,
    };
    if (group.is('PreparingRebalance') && group.previousState === 'Empty') group.newMemberAdded = true;
    group.add(member);
    // A new member cannot heartbeat while its JoinGroup is parked; bound the wait instead.
    this.scheduleSessionExpiry(group.groupId, memberId, ctx.now + this.config.newMemberJoinTimeoutMs);
    this.rebalanceOrCompleteJoin(group, ctx.now, fx);
  }

  private updateMemberAndRebalance(
    group: Group<T>,
    member: Member<T>,
    request: JoinGroupRequestData,
    waiter: Waiter<T>,
    ctx: JoinContext,
    fx: Effects<T>,
  ): void {
    this.updateMember(group, member, request, ctx, waiter);
    this.rebalanceOrCompleteJoin(group, ctx.now, fx);
  }

  private updateMember(group: Group<T>, member: Member<T>, request: JoinGroupRequestData, ctx: JoinContext, waiter: Waiter<T>): void {
    group.updateProtocols(
      member,
      request.protocols.map((p) => ({ name: p.name, metadata: p.metadata })),
    );
    member.rebalanceTimeoutMs = rebalanceTimeoutOf(request, ctx.apiVersion);
    member.sessionTimeoutMs = request.sessionTimeoutMs;
    member.awaitingJoin = waiter;
  }

  /** KIP-345: a known static member rejoining with a new member id takes the old one's place. */
  private replaceStaticMember(
    group: Group<T>,
    request: JoinGroupRequestData,
    ctx: JoinContext,
    oldMemberId: string,
    newMemberId: string,
    waiter: Waiter<T>,
    fx: Effects<T>,
  ): void {
    const leaderBefore = group.leaderId;
    const { old, replacement } = group.replaceStaticMember(request.groupInstanceId!, oldMemberId, newMemberId);
    const fenced = { errorCode: ErrorCode.FENCED_INSTANCE_ID, memberId: oldMemberId, leader: '' };
    if (old.awaitingJoin !== null) fx.answerJoin(old.awaitingJoin, fenced);
    if (old.awaitingSync !== null) fx.answerSync(old.awaitingSync, { errorCode: ErrorCode.FENCED_INSTANCE_ID });
    this.timer.cancel(sessionKey(group.groupId, oldMemberId));
    this.scheduleSessionExpiry(group.groupId, newMemberId, ctx.now + replacement.sessionTimeoutMs);
    this.updateMember(group, replacement, request, ctx, waiter);

    switch (group.state) {
      case 'Stable': {
        if (group.selectProtocol() !== group.protocolName) return this.rebalanceOrCompleteJoin(group, ctx.now, fx);
        // Same protocol: no rebalance; persist the new member id and hand back the current generation.
        fx.records.push(groupMetadataRecord(group.groupId, groupMetadataValue(group, new Map())));
        replacement.awaitingJoin = null;
        if (ctx.apiVersion >= FIRST_VERSION_SKIPPING_ASSIGNMENT) {
          const isLeader = group.isLeader(newMemberId);
          fx.answerJoin(waiter, { ...this.joinResponse(group, replacement, isLeader), skipAssignment: isLeader });
        } else {
          // Older clients would recompute the assignment if told they lead: name the old leader id.
          fx.answerJoin(waiter, { ...this.joinResponse(group, replacement, false), leader: leaderBefore ?? '' });
        }
        return;
      }
      case 'CompletingRebalance':
        // The leader may be assigning to the old member id: start over.
        return this.prepareRebalance(group, ctx.now, fx);
      default:
        return this.maybeCompleteJoinPhase(group, ctx.now, fx);
    }
  }

  private joinResponse(group: Group<T>, member: Member<T>, withMembers: boolean): JoinGroupResponseDataInput {
    return {
      errorCode: ErrorCode.NONE,
      generationId: group.generationId,
      protocolType: group.protocolType,
      protocolName: group.protocolName,
      leader: group.leaderId ?? '',
      memberId: member.memberId,
      members: withMembers
        ? [...group.members.values()].map((m) => ({
            memberId: m.memberId,
            groupInstanceId: m.groupInstanceId,
            metadata: group.metadataOf(m),
          }))
        : [],
    };
  }

  // ---- rebalance -------------------------------------------------------------------------------

  private rebalanceOrCompleteJoin(group: Group<T>, now: number, fx: Effects<T>): void {
    if (group.canRebalance()) this.prepareRebalance(group, now, fx);
    else this.maybeCompleteJoinPhase(group, now, fx);
  }

  prepareRebalance(group: Group<T>, now: number, fx: Effects<T>): void {
    if (group.is('CompletingRebalance')) this.propagateAssignment(group, ErrorCode.REBALANCE_IN_PROGRESS, new Map(), now, fx);
    group.pendingSyncMembers.clear();
    this.timer.cancel(syncKey(group.groupId));
    const isInitialRebalance = group.is('Empty');
    group.transitionTo('PreparingRebalance', now);
    if (isInitialRebalance) {
      const delay = this.config.initialRebalanceDelayMs;
      const remaining = Math.max(group.rebalanceTimeoutMs() - delay, 0);
      this.scheduleInitialRebalance(group.groupId, now + delay, delay, remaining);
    } else if (group.hasAllMembersJoined()) {
      this.completeJoin(group, now, fx);
    } else {
      this.scheduleJoinCompletion(group, now + group.rebalanceTimeoutMs());
    }
  }

  /** The join phase ends early once everybody rejoined — except the first one, which waits out its delay. */
  private maybeCompleteJoinPhase(group: Group<T>, now: number, fx: Effects<T>): void {
    if (group.is('PreparingRebalance') && group.previousState !== 'Empty' && group.hasAllMembersJoined()) this.completeJoin(group, now, fx);
  }

  private scheduleInitialRebalance(groupId: string, deadline: number, delay: number, remaining: number): void {
    this.timer.schedule(joinKey(groupId), deadline, (fx, now) => {
      const group = this.groups.get(groupId);
      if (group === undefined) return;
      if (group.newMemberAdded && remaining !== 0) {
        // Somebody joined during the delay: wait a little longer, within the rebalance timeout.
        group.newMemberAdded = false;
        const nextDelay = Math.min(this.config.initialRebalanceDelayMs, remaining);
        this.scheduleInitialRebalance(groupId, now + nextDelay, nextDelay, Math.max(remaining - delay, 0));
      } else {
        this.completeJoin(group, now, fx);
      }
    });
  }

  private scheduleJoinCompletion(group: Group<T>, deadline: number): void {
    const { groupId } = group;
    this.timer.schedule(joinKey(groupId), deadline, (fx, now) => {
      const current = this.groups.get(groupId);
      if (current !== undefined) this.completeJoin(current, now, fx);
    });
  }

  private completeJoin(group: Group<T>, now: number, fx: Effects<T>): void {
    this.timer.cancel(joinKey(group.groupId));
    // Dynamic members that did not rejoin in time are out; static ones keep their place.
    for (const m of [...group.members.values()]) {
      if (m.awaitingJoin === null && m.groupInstanceId === null) this.removeMember(group, m.memberId, fx);
    }
    if (group.is('Dead')) return;
    if (!group.maybeElectNewJoinedLeader() && group.members.size > 0) {
      // Nobody rejoined: wait another round for sessions to expire the silent members.
      this.scheduleJoinCompletion(group, now + group.rebalanceTimeoutMs());
      return;
    }
    group.initNextGeneration(now);
    if (group.is('Empty')) {
      fx.records.push(groupMetadataRecord(group.groupId, groupMetadataValue(group, new Map())));
      return;
    }
    for (const m of group.members.values()) {
      if (m.awaitingJoin !== null) fx.answerJoin(m.awaitingJoin, this.joinResponse(group, m, group.isLeader(m.memberId)));
      m.awaitingJoin = null;
      m.isNew = false;
      this.scheduleSessionExpiry(group.groupId, m.memberId, now + m.sessionTimeoutMs);
      group.pendingSyncMembers.add(m.memberId);
    }
    const generation = group.generationId;
    this.timer.schedule(syncKey(group.groupId), now + group.rebalanceTimeoutMs(), (fx2, at) =>
      this.expirePendingSync(group.groupId, generation, at, fx2),
    );
  }

  /** Members that got the new generation but never sent SyncGroup are dropped and the group rebalances. */
  private expirePendingSync(groupId: string, generation: number, now: number, fx: Effects<T>): void {
    const group = this.groups.get(groupId);
    if (group === undefined || group.generationId !== generation) return;
    if (!(group.is('CompletingRebalance') || group.is('Stable')) || group.pendingSyncMembers.size === 0) return;
    for (const memberId of [...group.pendingSyncMembers]) this.removeMember(group, memberId, fx);
    this.prepareRebalance(group, now, fx);
  }

  /** Answers every parked SyncGroup: the assignment on success, empty with an error otherwise. */
  private propagateAssignment(
    group: Group<T>,
    errorCode: number,
    assignments: ReadonlyMap<string, Buffer>,
    now: number,
    fx: Effects<T>,
  ): void {
    for (const m of group.members.values()) {
      m.assignment = errorCode === ErrorCode.NONE ? (assignments.get(m.memberId) ?? EMPTY_ASSIGNMENT) : EMPTY_ASSIGNMENT;
      if (m.awaitingSync === null) continue;
      fx.answerSync(
        m.awaitingSync,
        errorCode === ErrorCode.NONE
          ? { errorCode, protocolType: group.protocolType, protocolName: group.protocolName, assignment: m.assignment }
          : { errorCode },
      );
      m.awaitingSync = null;
      this.scheduleSessionExpiry(group.groupId, m.memberId, now + m.sessionTimeoutMs);
    }
  }

  // ---- SyncGroup -------------------------------------------------------------------------------

  sync(request: SyncGroupRequestData, now: number, waiter: Waiter<T>, fx: Effects<T>): void {
    const fail = (errorCode: number): void => fx.answerSync(waiter, { errorCode });
    if (request.groupId === '') return fail(ErrorCode.INVALID_GROUP_ID);
    const group = this.groups.get(request.groupId);
    if (group === undefined || group.is('Empty')) return fail(ErrorCode.UNKNOWN_MEMBER_ID);
    if (group.is('Dead')) return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    const error = memberError(group, request.memberId, request.groupInstanceId);
    if (error !== ErrorCode.NONE) return fail(error);
    if (request.generationId !== group.generationId) return fail(ErrorCode.ILLEGAL_GENERATION);
    if (inconsistent(request.protocolType, group.protocolType) || inconsistent(request.protocolName, group.protocolName)) {
      return fail(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    }
    const member = group.member(request.memberId)!;
    switch (group.state) {
      case 'PreparingRebalance':
        return fail(ErrorCode.REBALANCE_IN_PROGRESS);
      case 'CompletingRebalance': {
        member.awaitingSync = waiter;
        this.syncReceived(group, member.memberId);
        if (!group.isLeader(member.memberId)) return;
        // Members the leader left out get an empty assignment.
        const assignments = new Map<string, Buffer>();
        for (const a of request.assignments) assignments.set(a.memberId, a.assignment);
        for (const id of group.members.keys()) if (!assignments.has(id)) assignments.set(id, EMPTY_ASSIGNMENT);
        fx.records.push(groupMetadataRecord(group.groupId, groupMetadataValue(group, assignments)));
        this.propagateAssignment(group, ErrorCode.NONE, assignments, now, fx);
        group.transitionTo('Stable', now);
        return;
      }
      case 'Stable':
        this.syncReceived(group, member.memberId);
        return fx.answerSync(waiter, {
          errorCode: ErrorCode.NONE,
          protocolType: group.protocolType,
          protocolName: group.protocolName,
          assignment: member.assignment,
        });
      default:
        return fail(ErrorCode.UNKNOWN_MEMBER_ID);
    }
  }

  private syncReceived(group: Group<T>, memberId: string): void {
    group.pendingSyncMembers.delete(memberId);
    if (group.pendingSyncMembers.size === 0) this.timer.cancel(syncKey(group.groupId));
  }

  // ---- Heartbeat -------------------------------------------------------------------------------

  heartbeat(request: HeartbeatRequestData, now: number): number {
    if (request.groupId === '') return ErrorCode.INVALID_GROUP_ID;
    const group = this.groups.get(request.groupId);
    if (group === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const error = memberError(group, request.memberId, request.groupInstanceId);
    if (error !== ErrorCode.NONE) return error;
    if (request.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    if (group.is('Empty')) return ErrorCode.UNKNOWN_MEMBER_ID;
    this.keepAlive(group, request.memberId, now);
    return group.is('PreparingRebalance') ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.NONE;
  }

  /** Pushes a member's session expiry back (heartbeats, and offset commits of Stable groups). */
  keepAlive(group: Group<T>, memberId: string, now: number): void {
    const member = group.member(memberId);
    if (member !== undefined) this.scheduleSessionExpiry(group.groupId, memberId, now + member.sessionTimeoutMs);
  }

  // ---- LeaveGroup ------------------------------------------------------------------------------

  /** Removes the members named (LeaveGroup v3+ batches them); per-member error codes in request order. */
  leave(
    group: Group<T>,
    members: readonly LeaveGroupRequestMemberIdentity[],
    now: number,
    fx: Effects<T>,
  ): Array<{ memberId: string; groupInstanceId: string | null; errorCode: number }> {
    const results = members.map((identity) => ({
      memberId: identity.memberId,
      groupInstanceId: identity.groupInstanceId,
      errorCode: this.leaveOne(group, identity, fx),
    }));
    if (results.some((r) => r.errorCode === ErrorCode.NONE)) {
      if (group.is('Stable') || group.is('CompletingRebalance')) this.rebalanceOrCompleteJoin(group, now, fx);
      else if (group.is('PreparingRebalance')) this.maybeCompleteJoinPhase(group, now, fx);
    }
    return results;
  }

  private leaveOne(group: Group<T>, identity: LeaveGroupRequestMemberIdentity, fx: Effects<T>): number {
    if (identity.memberId === UNKNOWN_MEMBER_ID) {
      // Administrative removal of a static member by its instance id alone.
      const memberId = identity.groupInstanceId === null ? undefined : group.staticMemberId(identity.groupInstanceId);
      if (memberId === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
      this.removeMember(group, memberId, fx);
      return ErrorCode.NONE;
    }
    if (group.pendingJoinMembers.has(identity.memberId)) {
      this.removeMember(group, identity.memberId, fx);
      return ErrorCode.NONE;
    }
    const error = memberError(group, identity.memberId, identity.groupInstanceId);
    if (error === ErrorCode.NONE) this.removeMember(group, identity.memberId, fx);
    return error;
  }

  // ---- sessions --------------------------------------------------------------------------------

  private scheduleSessionExpiry(groupId: string, memberId: string, deadline: number): void {
    this.timer.schedule(sessionKey(groupId, memberId), deadline, (fx, now) => this.expireSession(groupId, memberId, now, fx));
  }

  private expireSession(groupId: string, memberId: string, now: number, fx: Effects<T>): void {
    const group = this.groups.get(groupId);
    if (group === undefined || group.is('Dead')) return;
    if (group.pendingJoinMembers.has(memberId)) {
      group.remove(memberId);
      this.maybeCompleteRebalanceAfterRemoval(group, now, fx);
      return;
    }
    const member = group.member(memberId);
    // A member parked in JoinGroup or SyncGroup is alive by definition — unless it is brand new.
    if (member === undefined || (!member.isNew && (member.awaitingJoin !== null || member.awaitingSync !== null))) return;
    this.removeMember(group, memberId, fx);
    if (group.is('Stable') || group.is('CompletingRebalance')) this.rebalanceOrCompleteJoin(group, now, fx);
    else this.maybeCompleteRebalanceAfterRemoval(group, now, fx);
  }

  private maybeCompleteRebalanceAfterRemoval(group: Group<T>, now: number, fx: Effects<T>): void {
    if (group.is('PreparingRebalance') && group.hasAllMembersJoined()) this.completeJoin(group, now, fx);
  }

  /** Drops a member (or pending member id), answering its parked requests with UNKNOWN_MEMBER_ID so the client rejoins. */
  removeMember(group: Group<T>, memberId: string, fx: Effects<T>): void {
    this.timer.cancel(sessionKey(group.groupId, memberId));
    const removed = group.remove(memberId);
    if (removed?.awaitingJoin != null)
      fx.answerJoin(removed.awaitingJoin, { errorCode: ErrorCode.UNKNOWN_MEMBER_ID, memberId: UNKNOWN_MEMBER_ID });
    if (removed?.awaitingSync != null) fx.answerSync(removed.awaitingSync, { errorCode: ErrorCode.UNKNOWN_MEMBER_ID });
  }

  /** After loading: every member's session starts now, as if it had just heartbeated. */
  startSessions(now: number): void {
    for (const group of this.groups.values()) {
      for (const m of group.members.values()) this.scheduleSessionExpiry(group.groupId, m.memberId, now + m.sessionTimeoutMs);
    }
  }

  /** Forgets a group's deadlines (the group is being deleted or unloaded). */
  cancelTimers(group: Group<T>): void {
    this.timer.cancel(joinKey(group.groupId));
    this.timer.cancel(syncKey(group.groupId));
    for (const id of group.members.keys()) this.timer.cancel(sessionKey(group.groupId, id));
    for (const id of group.pendingJoinMembers) this.timer.cancel(sessionKey(group.groupId, id));
  }
}

/** UNKNOWN_MEMBER_ID or FENCED_INSTANCE_ID (a static member's stale member id), else NONE. */
export function memberError<W>(group: ClassicGroup<W>, memberId: string, groupInstanceId: string | null): number {
  if (groupInstanceId !== null) {
    const current = group.staticMemberId(groupInstanceId);
    if (current === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (current !== memberId) return ErrorCode.FENCED_INSTANCE_ID;
  }
  return group.members.has(memberId) ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID;
}

function inconsistent(requested: string | null, actual: string | null): boolean {
  return requested !== null && requested !== actual;
}

/** JoinGroup v0 has no rebalance timeout: the session timeout is used for both. */
function rebalanceTimeoutOf(request: JoinGroupRequestData, apiVersion: number): number {
  return apiVersion === 0 ? request.sessionTimeoutMs : request.rebalanceTimeoutMs;
}

function sessionKey(groupId: string, memberId: string): string {
  return `session\u0000${groupId}\u0000${memberId}`;
}
function joinKey(groupId: string): string {
  return `join\u0000${groupId}`;
}
function syncKey(groupId: string): string {
  return `sync\u0000${groupId}`;
}
