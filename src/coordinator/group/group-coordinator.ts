/**
 * The classic group coordinator of one `__consumer_offsets` partition (the lead creates one per
 * partition this broker leads; `partitionFor` says which partition a group id lives in). A
 * deterministic state machine: no sockets, no storage, no clock of its own.
 *
 * - Every write operation returns `{ records, response, released }`: the caller appends `records`
 *   to the partition, then sends `response` and the `released` answers of requests parked earlier.
 * - JoinGroup and SyncGroup may park (`response: null`); their answer comes back, addressed to the
 *   `replyTo` passed with them, in the `released` of a later operation or `tick`.
 * - Time moves only through `now` arguments and `tick(now)`, which fires due deadlines (sessions,
 *   rebalance and sync timeouts, the initial rebalance delay, the offset-expiry sweep) in deadline
 *   order, each at its own deadline. `nextDeadline()` says when to call `tick` next.
 * - `replay(key, value, producerId)` and `replayEndTransactionMarker` rebuild state from the
 *   partition's records and transaction markers; call `loaded(now)` once the partition is read
 *   (also for an empty one) to start member sessions and the expiry sweep.
 * - TxnOffsetCommit's records belong in its producer's transactional batch; the offsets stay
 *   pending until the transaction's end marker is applied (`replayEndTransactionMarker`, also
 *   for markers written live).
 * - Reads (OffsetFetch, DescribeGroups, ListGroups) return their response directly. State changes
 *   as soon as an operation returns, so the caller should run one coordinator's operations in
 *   order, each after the previous one's append; if an append fails, `unload()` and replay.
 *
 * KIP-848 consumer groups (ConsumerGroupHeartbeat, ConsumerGroupDescribe) live beside the classic
 * groups in the same group id space, offsets and timers; see `consumer/` and docs/design/kip-848.md.
 * So do KIP-932 share groups (`share/`): ShareGroupHeartbeat, ShareGroupDescribe and the share
 * group steps of the admin APIs, whose persister calls the service makes between them. A group id
 * belongs to one type: a client of another type gets Kafka's GROUP_ID_NOT_FOUND.
 *
 * Owned by the thread that handles group requests; not thread-safe.
 */
import { randomUUID } from 'node:crypto';
import type { DeleteGroupsRequestData, DeleteGroupsResponseDataInput } from '@sluice/protocol/messages/api/42-delete-groups.js';
import type {
  DescribeGroupsRequestData,
  DescribeGroupsResponseDataInput,
  DescribeGroupsResponseDescribedGroupInput,
} from '@sluice/protocol/messages/api/15-describe-groups.js';
import type { HeartbeatRequestData, HeartbeatResponseDataInput } from '@sluice/protocol/messages/api/12-heartbeat.js';
import type { JoinGroupRequestData, JoinGroupResponseDataInput } from '@sluice/protocol/messages/api/11-join-group.js';
import type { LeaveGroupRequestData, LeaveGroupResponseDataInput } from '@sluice/protocol/messages/api/13-leave-group.js';
import type { ListGroupsRequestData, ListGroupsResponseDataInput } from '@sluice/protocol/messages/api/16-list-groups.js';
import type { OffsetCommitRequestData, OffsetCommitResponseDataInput } from '@sluice/protocol/messages/api/08-offset-commit.js';
import type { TxnOffsetCommitRequestData, TxnOffsetCommitResponseDataInput } from '@sluice/protocol/messages/api/28-txn-offset-commit.js';
import type { OffsetDeleteRequestData, OffsetDeleteResponseDataInput } from '@sluice/protocol/messages/api/47-offset-delete.js';
import type { OffsetFetchRequestData, OffsetFetchResponseDataInput } from '@sluice/protocol/messages/api/09-offset-fetch.js';
import type { SyncGroupRequestData, SyncGroupResponseDataInput } from '@sluice/protocol/messages/api/14-sync-group.js';
import type {
  ConsumerGroupHeartbeatRequestData,
  ConsumerGroupHeartbeatResponseDataInput,
} from '@sluice/protocol/messages/api/68-consumer-group-heartbeat.js';
import type {
  ConsumerGroupDescribeRequestData,
  ConsumerGroupDescribeResponseDataInput,
} from '@sluice/protocol/messages/api/69-consumer-group-describe.js';
import type { ShareGroupHeartbeatRequestData } from '@sluice/protocol/messages/api/76-share-group-heartbeat.js';
import type {
  ShareGroupDescribeRequestData,
  ShareGroupDescribeResponseDataInput,
} from '@sluice/protocol/messages/api/77-share-group-describe.js';
import type { AlterShareGroupOffsetsRequestData } from '@sluice/protocol/messages/api/91-alter-share-group-offsets.js';
import type { DeleteShareGroupOffsetsRequestData } from '@sluice/protocol/messages/api/92-delete-share-group-offsets.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { randomUuid } from '@sluice/protocol/common/uuid.js';
import { ConsumerGroupHeartbeats, type ConsumerHeartbeatContext } from './consumer/consumer-group-heartbeat.js';
import { describeConsumerGroup } from './consumer/consumer-group-describe.js';
import { ConsumerGroups } from './consumer/consumer-groups.js';
import { decodeChange } from './consumer/consumer-records.js';
import type { TopicsImage } from './consumer/subscribed-topics.js';
import { EMPTY_ASSIGNMENT } from './classic-group.js';
import { DEFAULT_GROUP_COORDINATOR_CONFIG, type GroupCoordinatorConfig } from './config.js';
import { DeadlineTimer } from './deadline-timer.js';
import { groupFromMetadataValue } from './group-metadata-value.js';
import { type Group, GroupMembership, type TimerAction } from './group-membership.js';
import { GroupOffsets, type OffsetFetchGroupQuery } from './group-offsets.js';
import type { GroupOffset } from '../../common/metrics/consumer-lag.js';
import { OffsetStore } from './offset-store.js';
import { type CoordinatorRecord, groupMetadataTombstone, decodeRecord } from './records.js';
import { type CoordinatorResult, Effects, type ParkableResult, type Released, type TickResult, type Waiter } from './results.js';
import type { Assignment } from './consumer/assignment.js';
import { ShareGroupHeartbeats, type ShareHeartbeatContext, type ShareHeartbeatResult } from './share/share-group-heartbeat.js';
import { ShareGroups } from './share/share-groups.js';
import { SHARE_PROTOCOL_TYPE } from './share/share-group.js';
import { decodeShareChange } from './share/share-records.js';
import { markInitialized, markUninitialized } from './share/share-initialization.js';
import {
  type ShareOffsetsAlterPlan,
  type ShareOffsetsDeletionPlan,
  type ShareTopicDeletion,
  completeShareTopicDeletion,
  deleteShareGroup,
  describeShareGroup,
  initializedPartitions,
  planAlterShareGroupOffsets,
  planDeleteShareGroupOffsets,
  planShareGroupDeletion,
} from './share/share-group-admin.js';

/** OffsetFetch v8 batches groups. */
const FIRST_FETCH_VERSION_WITH_GROUPS = 8;
/** LeaveGroup v3 batches members. */
const FIRST_LEAVE_VERSION_WITH_MEMBERS = 3;
/** DescribeGroups v6 reports unknown groups as GROUP_ID_NOT_FOUND (KIP-1043). */
const FIRST_DESCRIBE_VERSION_WITH_NOT_FOUND = 6;
const CLASSIC_GROUP_TYPE = 'classic';
const CONSUMER_GROUP_TYPE = 'consumer';
const SWEEP_KEY = 'offset-expiry-sweep';

export interface GroupCoordinatorOptions {
  config?: Partial<GroupCoordinatorConfig>;
  /** New member ids: `<client id or group instance id>-<uuid>` by default; tests make them predictable. */
  newMemberId?: (prefix: string) => string;
  /** Member ids of ConsumerGroupHeartbeat v0 joins (v1 clients bring their own): random Kafka UUIDs by default. */
  newConsumerMemberId?: () => string;
}

export interface JoinGroupContext<T> {
  apiVersion: number;
  clientId: string;
  /** As Kafka shows it, e.g. `/127.0.0.1`. */
  clientHost: string;
  now: number;
  replyTo: T;
}

export interface SyncGroupContext<T> {
  now: number;
  replyTo: T;
}

export class GroupCoordinator<T> {
  private readonly config: GroupCoordinatorConfig;
  private readonly groups = new Map<string, Group<T>>();
  private readonly store = new OffsetStore();
  private readonly timer = new DeadlineTimer<TimerAction<T>>();
  private readonly membership: GroupMembership<T>;
  private readonly offsets: GroupOffsets<T>;
  private readonly consumerGroups = new ConsumerGroups();
  private readonly consumer: ConsumerGroupHeartbeats<T>;
  private readonly shareGroups = new ShareGroups();
  private readonly share: ShareGroupHeartbeats<T>;

  constructor(options: GroupCoordinatorOptions = {}) {
    this.config = { ...DEFAULT_GROUP_COORDINATOR_CONFIG, ...options.config };
    const newMemberId = options.newMemberId ?? ((prefix: string) => `${prefix}-${randomUUID()}`);
    this.membership = new GroupMembership(this.groups, this.timer, this.config, newMemberId);
    this.offsets = new GroupOffsets(this.groups, this.consumerGroups, this.store, this.membership, this.config);
    const classicView = {
      stateOf: (groupId: string): 'none' | 'empty' | 'active' => {
        const group = this.groups.get(groupId);
        return group === undefined ? 'none' : group.is('Empty') ? 'empty' : 'active';
      },
      remove: (groupId: string, records: CoordinatorRecord[]): void => {
        records.push(groupMetadataTombstone(groupId));
        this.forget(this.groups.get(groupId)!);
      },
    };
    this.consumer = new ConsumerGroupHeartbeats(
      this.consumerGroups,
      classicView,
      this.timer,
      this.config,
      options.newConsumerMemberId ?? randomUuid,
    );
    const otherThanShare = (groupId: string): boolean => this.groups.has(groupId) || this.consumerGroups.has(groupId);
    this.share = new ShareGroupHeartbeats(this.shareGroups, otherThanShare, this.timer, this.config);
  }

  /**
   * ShareGroupHeartbeat (KIP-932); `ctx.topics` is the cluster's topics now. `initialize` names the
   * share-partitions the caller must initialize through the persister, then report with
   * `initializeShareGroupState` / `uninitializeShareGroupState`.
   */
  shareGroupHeartbeat(request: ShareGroupHeartbeatRequestData, ctx: ShareHeartbeatContext): CoordinatorResult<ShareHeartbeatResult, T> {
    const records: CoordinatorRecord[] = [];
    try {
      return { records, response: this.share.heartbeat(request, ctx, records), released: [] };
    } catch (err) {
      if (!(err instanceof KafkaError)) throw err;
      return {
        records: [],
        response: {
          response: { errorCode: err.code, errorMessage: err.message, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0 },
          initialize: null,
        },
        released: [],
      };
    }
  }

  /** The persister initialized these share-partitions: they become assignable (a group deleted meanwhile is left alone). */
  initializeShareGroupState(groupId: string, done: Assignment, topics: TopicsImage): CoordinatorResult<void, T> {
    const records: CoordinatorRecord[] = [];
    const group = this.shareGroups.get(groupId);
    if (group !== undefined && done.size > 0) markInitialized(this.shareGroups, group, done, topics, records);
    return { records, response: undefined, released: [] };
  }

  /** The persister failed these share-partitions: a later heartbeat initializes them again. */
  uninitializeShareGroupState(groupId: string, failed: Assignment): CoordinatorResult<void, T> {
    const records: CoordinatorRecord[] = [];
    const group = this.shareGroups.get(groupId);
    if (group !== undefined && failed.size > 0) markUninitialized(this.shareGroups, group, failed, records);
    return { records, response: undefined, released: [] };
  }

  shareGroupDescribe(request: ShareGroupDescribeRequestData, topics: TopicsImage): ShareGroupDescribeResponseDataInput {
    return {
      groups: request.groupIds.map((groupId) =>
        describeShareGroup(this.shareGroups.get(groupId), groupId, this.groups.has(groupId) || this.consumerGroups.has(groupId), topics),
      ),
    };
  }

  /** The group's initialized share-partitions (none for an unknown group), for DescribeShareGroupOffsets. */
  shareGroupInitializedPartitions(groupId: string): Assignment {
    return initializedPartitions(this.shareGroups.get(groupId));
  }

  /** AlterShareGroupOffsets, first step; throws GROUP_ID_NOT_FOUND (another type's id) or NON_EMPTY_GROUP. */
  alterShareGroupOffsets(
    request: AlterShareGroupOffsetsRequestData,
    topics: TopicsImage,
    now: number,
  ): CoordinatorResult<ShareOffsetsAlterPlan, T> {
    const group = this.share.shareGroup(request.groupId, true);
    const records: CoordinatorRecord[] = [];
    return { records, response: planAlterShareGroupOffsets(this.shareGroups, group, request, topics, now, records), released: [] };
  }

  /** DeleteShareGroupOffsets, first step; throws GROUP_ID_NOT_FOUND or NON_EMPTY_GROUP. */
  deleteShareGroupOffsets(
    request: DeleteShareGroupOffsetsRequestData,
    topics: TopicsImage,
  ): CoordinatorResult<ShareOffsetsDeletionPlan, T> {
    const group = this.share.shareGroup(request.groupId, false)!;
    const records: CoordinatorRecord[] = [];
    return { records, response: planDeleteShareGroupOffsets(this.shareGroups, group, request, topics, records), released: [] };
  }

  /** The persister deleted these topics' share-partitions (DeleteShareGroupOffsets, last step). */
  completeShareTopicDeletion(groupId: string, topicIds: readonly string[]): CoordinatorResult<void, T> {
    const records: CoordinatorRecord[] = [];
    const group = this.shareGroups.get(groupId);
    if (group !== undefined && topicIds.length > 0) completeShareTopicDeletion(this.shareGroups, group, topicIds, records);
    return { records, response: undefined, released: [] };
  }

  /**
   * DeleteGroups of a share group, first step: null when `groupId` is not a share group (DeleteGroups
   * answers it as usual); otherwise the share-partitions to delete before `deleteGroups` removes the
   * group. Throws NON_EMPTY_GROUP.
   */
  prepareShareGroupDeletion(groupId: string, topics: TopicsImage): CoordinatorResult<ShareTopicDeletion[] | null, T> {
    const group = this.shareGroups.get(groupId);
    const records: CoordinatorRecord[] = [];
    return {
      records,
      response: group === undefined ? null : planShareGroupDeletion(this.shareGroups, group, topics, records),
      released: [],
    };
  }

  /** ConsumerGroupHeartbeat (KIP-848); `ctx.topics` is the cluster's topics now. */
  consumerGroupHeartbeat(
    request: ConsumerGroupHeartbeatRequestData,
    ctx: ConsumerHeartbeatContext,
  ): CoordinatorResult<ConsumerGroupHeartbeatResponseDataInput, T> {
    const records: CoordinatorRecord[] = [];
    try {
      if (this.shareGroups.has(request.groupId))
        throw new KafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${request.groupId} is not a consumer group.`);
      const response = this.consumer.heartbeat(request, ctx, records);
      return { records, response, released: [] };
    } catch (err) {
      if (!(err instanceof KafkaError)) throw err;
      return {
        records: [],
        response: { errorCode: err.code, errorMessage: err.message, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0 },
        released: [],
      };
    }
  }

  consumerGroupDescribe(request: ConsumerGroupDescribeRequestData, topics: TopicsImage): ConsumerGroupDescribeResponseDataInput {
    const lookup = {
      consumerGroup: (id: string) => this.consumerGroups.get(id),
      otherGroupExists: (id: string) => this.groups.has(id) || this.shareGroups.has(id),
    };
    return {
      groups: request.groupIds.map((groupId) => describeConsumerGroup(groupId, lookup, topics, this.config.consumerGroupAssignors[0]!)),
    };
  }

  joinGroup(request: JoinGroupRequestData, ctx: JoinGroupContext<T>): ParkableResult<JoinGroupResponseDataInput, T> {
    // Classic members joining a KIP-848 group (Kafka's mixed groups) are not supported.
    if (this.consumerGroups.has(request.groupId)) {
      return {
        records: [],
        response: { errorCode: ErrorCode.INCONSISTENT_GROUP_PROTOCOL, generationId: -1, memberId: request.memberId },
        released: [],
      };
    }
    if (this.shareGroups.has(request.groupId))
      return {
        records: [],
        response: { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, generationId: -1, memberId: request.memberId },
        released: [],
      };
    const waiter: Waiter<T> = { to: ctx.replyTo };
    const fx = new Effects<T>();
    this.membership.join(request, ctx, waiter, fx);
    const { own, released } = fx.split(waiter);
    return { records: fx.records, response: own?.api === 'JoinGroup' ? own.response : null, released };
  }

  syncGroup(request: SyncGroupRequestData, ctx: SyncGroupContext<T>): ParkableResult<SyncGroupResponseDataInput, T> {
    if (this.consumerGroups.has(request.groupId) || this.shareGroups.has(request.groupId))
      return { records: [], response: { errorCode: ErrorCode.UNKNOWN_MEMBER_ID }, released: [] };
    const waiter: Waiter<T> = { to: ctx.replyTo };
    const fx = new Effects<T>();
    this.membership.sync(request, ctx.now, waiter, fx);
    const { own, released } = fx.split(waiter);
    return { records: fx.records, response: own?.api === 'SyncGroup' ? own.response : null, released };
  }

  heartbeat(request: HeartbeatRequestData, now: number): CoordinatorResult<HeartbeatResponseDataInput, T> {
    if (this.consumerGroups.has(request.groupId) || this.shareGroups.has(request.groupId))
      return { records: [], response: { errorCode: ErrorCode.UNKNOWN_MEMBER_ID }, released: [] };
    return { records: [], response: { errorCode: this.membership.heartbeat(request, now) }, released: [] };
  }

  leaveGroup(request: LeaveGroupRequestData, apiVersion: number, now: number): CoordinatorResult<LeaveGroupResponseDataInput, T> {
    const fx = new Effects<T>();
    const batched = apiVersion >= FIRST_LEAVE_VERSION_WITH_MEMBERS;
    const group = request.groupId === '' ? undefined : this.groups.get(request.groupId);
    let response: LeaveGroupResponseDataInput;
    if (request.groupId === '') response = { errorCode: ErrorCode.INVALID_GROUP_ID };
    else if (group === undefined && (this.consumerGroups.has(request.groupId) || this.shareGroups.has(request.groupId))) {
      const unknown = { errorCode: ErrorCode.UNKNOWN_MEMBER_ID };
      response = batched
        ? {
            errorCode: ErrorCode.NONE,
            members: request.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, ...unknown })),
          }
        : unknown;
    } else if (group === undefined) response = { errorCode: ErrorCode.UNKNOWN_MEMBER_ID };
    else if (group.is('Dead')) response = { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE };
    else {
      const members = batched ? request.members : [{ memberId: request.memberId, groupInstanceId: null, reason: null }];
      const results = this.membership.leave(group, members, now, fx);
      response = batched ? { errorCode: ErrorCode.NONE, members: results } : { errorCode: results[0]!.errorCode };
    }
    return { records: fx.records, response, released: fx.split(null).released };
  }

  commitOffsets(request: OffsetCommitRequestData, apiVersion: number, now: number): CoordinatorResult<OffsetCommitResponseDataInput, T> {
    if (this.shareGroups.has(request.groupId))
      return { records: [], response: { topics: refusedForShareGroup(request.topics) }, released: [] };
    const fx = new Effects<T>();
    const response = this.offsets.commit(request, apiVersion, now, fx.records);
    return { records: fx.records, response, released: [] };
  }

  /**
   * TxnOffsetCommit: `records` go in one transactional batch of `request.producerId` (the caller
   * appends them so); the offsets stay pending until the transaction's end marker.
   */
  commitTransactionalOffsets(request: TxnOffsetCommitRequestData, now: number): CoordinatorResult<TxnOffsetCommitResponseDataInput, T> {
    if (this.shareGroups.has(request.groupId))
      return { records: [], response: { topics: refusedForShareGroup(request.topics) }, released: [] };
    const fx = new Effects<T>();
    const response = this.offsets.commitTransactional(request, now, fx.records);
    return { records: fx.records, response, released: [] };
  }

  fetchOffsets(request: OffsetFetchRequestData, apiVersion: number): OffsetFetchResponseDataInput {
    const { requireStable } = request;
    if (apiVersion >= FIRST_FETCH_VERSION_WITH_GROUPS) {
      return {
        groups: request.groups.map((g) =>
          this.shareGroups.has(g.groupId)
            ? { groupId: g.groupId, errorCode: ErrorCode.GROUP_ID_NOT_FOUND, topics: [] }
            : this.offsets.fetch({ groupId: g.groupId, memberId: g.memberId, memberEpoch: g.memberEpoch, topics: g.topics, requireStable }),
        ),
      };
    }
    if (this.shareGroups.has(request.groupId)) return { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, topics: [] };
    const query: OffsetFetchGroupQuery = {
      groupId: request.groupId,
      memberId: null,
      memberEpoch: -1,
      topics:
        request.topics === null ? null : request.topics.map((t) => ({ name: t.name, topicId: '', partitionIndexes: t.partitionIndexes })),
      requireStable,
    };
    const group = this.offsets.fetch(query);
    return {
      errorCode: group.errorCode ?? ErrorCode.NONE,
      topics: (group.topics ?? []).map((t) => ({ name: t.name ?? '', partitions: t.partitions ?? [] })),
    };
  }

  /** Every group's committed offsets (classic, consumer-protocol and simple groups alike), for the lag metrics. */
  committedOffsets(): GroupOffset[] {
    return this.store.all();
  }

  describeGroups(request: DescribeGroupsRequestData, apiVersion: number): DescribeGroupsResponseDataInput {
    return { groups: request.groups.map((groupId) => this.describe(groupId, apiVersion)) };
  }

  private describe(groupId: string, apiVersion: number): DescribeGroupsResponseDescribedGroupInput {
    if (groupId === '') return { groupId, errorCode: ErrorCode.INVALID_GROUP_ID, groupState: 'Dead' };
    // Kafka 4.x: DescribeGroups only describes classic groups; v6+ says why.
    if (this.consumerGroups.has(groupId) || this.shareGroups.has(groupId)) {
      return apiVersion >= FIRST_DESCRIBE_VERSION_WITH_NOT_FOUND
        ? { groupId, groupState: 'Dead', errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${groupId} is not a classic group.` }
        : { groupId, groupState: 'Dead' };
    }
    const group = this.groups.get(groupId);
    if (group === undefined) {
      return apiVersion >= FIRST_DESCRIBE_VERSION_WITH_NOT_FOUND
        ? { groupId, groupState: 'Dead', errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${groupId} not found.` }
        : { groupId, groupState: 'Dead' };
    }
    // Metadata and assignments are only meaningful once the generation's assignment is out.
    const stable = group.is('Stable');
    return {
      groupId,
      groupState: group.state,
      protocolType: group.protocolType ?? '',
      protocolData: stable ? (group.protocolName ?? '') : '',
      members: [...group.members.values()].map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        memberMetadata: stable ? group.metadataOf(m) : EMPTY_ASSIGNMENT,
        memberAssignment: stable ? m.assignment : EMPTY_ASSIGNMENT,
      })),
    };
  }

  listGroups(request: ListGroupsRequestData): ListGroupsResponseDataInput {
    const states = new Set(request.statesFilter.map((s) => s.trim().toLowerCase()));
    const types = new Set(request.typesFilter.map((t) => t.trim().toLowerCase()));
    const all = [
      ...[...this.groups.values()].map((g) => ({
        groupId: g.groupId,
        protocolType: g.protocolType ?? '',
        groupState: g.state,
        groupType: CLASSIC_GROUP_TYPE,
      })),
      ...[...this.consumerGroups.all()].map((g) => ({
        groupId: g.groupId,
        protocolType: CONSUMER_GROUP_TYPE,
        groupState: g.state,
        groupType: CONSUMER_GROUP_TYPE,
      })),
      ...[...this.shareGroups.all()].map((g) => ({
        groupId: g.groupId,
        protocolType: SHARE_PROTOCOL_TYPE,
        groupState: g.state,
        groupType: SHARE_PROTOCOL_TYPE,
      })),
    ];
    return {
      errorCode: ErrorCode.NONE,
      groups: all.filter(
        (g) => (states.size === 0 || states.has(g.groupState.toLowerCase())) && (types.size === 0 || types.has(g.groupType)),
      ),
    };
  }

  deleteGroups(request: DeleteGroupsRequestData): CoordinatorResult<DeleteGroupsResponseDataInput, T> {
    const fx = new Effects<T>();
    const results = request.groupsNames.map((groupId) => {
      const group = groupId === '' ? undefined : this.groups.get(groupId);
      if (groupId === '') return { groupId, errorCode: ErrorCode.INVALID_GROUP_ID };
      const shareGroup = this.shareGroups.get(groupId);
      if (shareGroup !== undefined) {
        if (shareGroup.members.size > 0) return { groupId, errorCode: ErrorCode.NON_EMPTY_GROUP };
        this.offsets.deleteAll(groupId, fx.records);
        this.share.cancelTimers(shareGroup);
        deleteShareGroup(this.shareGroups, shareGroup, fx.records);
        return { groupId, errorCode: ErrorCode.NONE };
      }
      const consumerGroup = this.consumerGroups.get(groupId);
      if (consumerGroup !== undefined) {
        if (consumerGroup.members.size > 0) return { groupId, errorCode: ErrorCode.NON_EMPTY_GROUP };
        this.offsets.deleteAll(groupId, fx.records);
        this.offsets.deleteConsumerGroup(consumerGroup, fx.records);
        return { groupId, errorCode: ErrorCode.NONE };
      }
      if (group === undefined || group.is('Dead')) return { groupId, errorCode: ErrorCode.GROUP_ID_NOT_FOUND };
      if (!group.is('Empty')) return { groupId, errorCode: ErrorCode.NON_EMPTY_GROUP };
      this.offsets.deleteAll(groupId, fx.records);
      fx.records.push(groupMetadataTombstone(groupId));
      this.forget(group);
      return { groupId, errorCode: ErrorCode.NONE };
    });
    return { records: fx.records, response: { results }, released: [] };
  }

  deleteOffsets(request: OffsetDeleteRequestData): CoordinatorResult<OffsetDeleteResponseDataInput, T> {
    if (this.shareGroups.has(request.groupId))
      return { records: [], response: { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, topics: [] }, released: [] };
    const fx = new Effects<T>();
    const response = this.offsets.delete(request, fx.records);
    return { records: fx.records, response, released: [] };
  }

  /** Fires every deadline due at or before `now`, each at its own deadline. */
  tick(now: number): TickResult<T> {
    const fx = new Effects<T>();
    for (let due = this.timer.takeDue(now); due !== null; due = this.timer.takeDue(now)) due.action(fx, due.deadline);
    return { records: fx.records, released: fx.split(null).released };
  }

  nextDeadline(): number | null {
    return this.timer.nextDeadline();
  }

  /**
   * Applies one record of the partition, in log order; `producerId`: the producer whose
   * transactional batch holds it, null outside transactions. Records of other group types are skipped.
   */
  replay(key: Buffer, value: Buffer | null, producerId: bigint | null = null): void {
    const record = decodeRecord(key, value);
    switch (record.type) {
      case 'offset-commit':
        if (record.value === null) this.offsets.replayOffsetTombstone(record.key);
        else this.offsets.replayOffsetCommit(record.key, record.value, producerId);
        return;
      case 'group-metadata': {
        const existing = this.groups.get(record.group);
        if (existing !== undefined) this.forget(existing);
        if (record.value !== null) this.groups.set(record.group, groupFromMetadataValue(record.group, record.value));
        return;
      }
      case 'other': {
        const shareChange = decodeShareChange(record.recordType, key, value);
        if (shareChange !== null) {
          this.shareGroups.apply(shareChange);
          return;
        }
        const change = decodeChange(record.recordType, key, value);
        if (change === null) return;
        // A consumer group replaces the simple group its offsets created (offsets came first).
        const classic = this.groups.get(change.groupId);
        if (classic !== undefined && !this.consumerGroups.has(change.groupId)) this.forget(classic);
        this.consumerGroups.apply(change);
        return;
      }
    }
  }

  /** A transaction's end marker in the partition, replayed or just written: its pending offsets are committed or dropped. */
  replayEndTransactionMarker(producerId: bigint, _producerEpoch: number, commit: boolean): void {
    this.offsets.replayEndTransactionMarker(producerId, commit);
  }

  /** The partition is loaded: members' sessions start now, and so does the offset-expiry sweep. */
  loaded(now: number): void {
    this.membership.startSessions(now);
    this.consumer.startSessions(now);
    this.share.startSessions(now);
    this.scheduleSweep(now + this.config.offsetsRetentionCheckIntervalMs);
  }

  /**
   * Gives the partition up (leadership moved, shutdown, failed append): every parked request is
   * answered NOT_COORDINATOR so its client looks for the coordinator again. Not usable afterwards:
   * build a new coordinator and replay the partition.
   */
  unload(): Released<T>[] {
    const fx = new Effects<T>();
    for (const group of this.groups.values()) {
      for (const m of group.members.values()) {
        if (m.awaitingJoin !== null) fx.answerJoin(m.awaitingJoin, { errorCode: ErrorCode.NOT_COORDINATOR, memberId: m.memberId });
        if (m.awaitingSync !== null) fx.answerSync(m.awaitingSync, { errorCode: ErrorCode.NOT_COORDINATOR });
      }
    }
    this.groups.clear();
    this.consumerGroups.clear();
    this.shareGroups.clear();
    this.timer.clear();
    return fx.split(null).released;
  }

  private scheduleSweep(deadline: number): void {
    this.timer.schedule(SWEEP_KEY, deadline, (fx, at) => {
      this.offsets.expire(at, fx.records);
      this.scheduleSweep(at + this.config.offsetsRetentionCheckIntervalMs);
    });
  }

  private forget(group: Group<T>): void {
    this.membership.cancelTimers(group);
    this.groups.delete(group.groupId);
  }
}

/** Kafka's share groups refuse committed offsets: every partition of the request answers GROUP_ID_NOT_FOUND. */
function refusedForShareGroup(
  topics: ReadonlyArray<{ name: string; topicId?: string; partitions: ReadonlyArray<{ partitionIndex: number }> }>,
) {
  return topics.map((t) => ({
    name: t.name,
    ...(t.topicId === undefined ? {} : { topicId: t.topicId }),
    partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.GROUP_ID_NOT_FOUND })),
  }));
}
