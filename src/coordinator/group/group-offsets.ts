/**
 * OffsetCommit, TxnOffsetCommit, OffsetFetch, OffsetDelete and offset expiry for classic and simple
 * groups, following Kafka's rules: generation checks on commit (a memberless commit with generation
 * -1 is a simple consumer's and is allowed while the group is Empty), metadata size limit,
 * per-commit expiry for OffsetCommit v2-v4, retention counted from when the group fell Empty.
 * Members of KIP-848 consumer groups commit with their member epoch (STALE_MEMBER_EPOCH when it is
 * not the current one).
 *
 * Offsets committed in a transaction are pending (`TransactionalOffsets`) until its end marker;
 * a COMMIT makes each one the committed offset unless a commit record written after it already
 * is (Kafka keeps the latest record, transactional or not). Live commits and replay apply records
 * through the same `replayOffsetCommit`, so a reloaded coordinator holds exactly what was written.
 */
import type {
  OffsetCommitRequestData,
  OffsetCommitRequestOffsetCommitRequestPartition,
  OffsetCommitResponseDataInput,
} from '@sluice/protocol/messages/api/08-offset-commit.js';
import type { TxnOffsetCommitRequestData, TxnOffsetCommitResponseDataInput } from '@sluice/protocol/messages/api/28-txn-offset-commit.js';
import type { OffsetDeleteRequestData, OffsetDeleteResponseDataInput } from '@sluice/protocol/messages/api/47-offset-delete.js';
import type {
  OffsetFetchResponseOffsetFetchResponseGroupInput,
  OffsetFetchResponseOffsetFetchResponsePartitionsInput,
} from '@sluice/protocol/messages/api/09-offset-fetch.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { ZERO_UUID } from '@sluice/protocol/common/uuid.js';
import { ClassicGroup } from './classic-group.js';
import type { GroupCoordinatorConfig } from './config.js';
import { type Group, type GroupMembership, memberError } from './group-membership.js';
import { type OffsetStore, type CommittedOffset } from './offset-store.js';
import { type CoordinatorRecord, type OffsetKey, groupMetadataTombstone, offsetCommitRecord, offsetCommitTombstone } from './records.js';
import { TransactionalOffsets } from './transactional-offsets.js';
import type { OffsetCommitValueData } from '@sluice/protocol/messages/coordinator/offset-commit.js';
import type { ConsumerGroup } from './consumer/consumer-group.js';
import type { ConsumerGroups } from './consumer/consumer-groups.js';
import { regexMatches } from './consumer/subscribed-topics.js';

/** OffsetCommit v9 answers GROUP_ID_NOT_FOUND for an unknown group where older versions said ILLEGAL_GENERATION. */
const FIRST_COMMIT_VERSION_WITH_GROUP_ID_NOT_FOUND = 9;
/** OffsetCommitRequest's "keep the broker's retention" value. */
const DEFAULT_RETENTION_TIME = -1n;
const INVALID_OFFSET = -1n;
/** KIP-848 members must commit with OffsetCommit v9+, which carries the member epoch. */
const FIRST_COMMIT_VERSION_FOR_CONSUMER_MEMBERS = 9;

/** The topics of one group's OffsetFetch: named partitions, or null for every committed offset. */
export interface OffsetFetchGroupQuery {
  groupId: string;
  /** OffsetFetch v9+: a KIP-848 member fetching for itself (null / -1 otherwise). */
  memberId: string | null;
  memberEpoch: number;
  topics: Array<{ name: string; topicId: string; partitionIndexes: number[] }> | null;
  /** OffsetFetch v7+ (KIP-447): partitions with offsets of an open transaction answer UNSTABLE_OFFSET_COMMIT. */
  requireStable: boolean;
}

/** A commit's partition, as OffsetCommit and TxnOffsetCommit both carry it. */
type CommitPartition = Pick<
  OffsetCommitRequestOffsetCommitRequestPartition,
  'partitionIndex' | 'committedOffset' | 'committedLeaderEpoch' | 'committedMetadata'
>;

export class GroupOffsets<T> {
  private readonly pending = new TransactionalOffsets();
  /** The `recordOrder` of the next offset commit record applied. */
  private nextRecordOrder = 0;

  constructor(
    private readonly groups: Map<string, Group<T>>,
    private readonly consumerGroups: ConsumerGroups,
    private readonly store: OffsetStore,
    private readonly membership: GroupMembership<T>,
    private readonly config: GroupCoordinatorConfig,
  ) {}

  commit(request: OffsetCommitRequestData, apiVersion: number, now: number, records: CoordinatorRecord[]): OffsetCommitResponseDataInput {
    const groupError = this.validateCommit(request, apiVersion, now);
    const expireTimestamp = request.retentionTimeMs === DEFAULT_RETENTION_TIME ? -1n : BigInt(now) + request.retentionTimeMs;
    return {
      topics: request.topics.map((topic) => ({
        name: topic.name,
        topicId: topic.topicId,
        partitions: topic.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode:
            groupError !== ErrorCode.NONE
              ? groupError
              : this.commitPartition(request.groupId, topic.name, p, { now, expireTimestamp, producerId: null }, records),
        })),
      })),
    };
  }

  /**
   * TxnOffsetCommit: the offsets are written as they are for OffsetCommit, in the transaction's
   * batch (the caller appends `records` as producer `request.producerId`'s), and stay pending
   * until the transaction's end marker.
   */
  commitTransactional(request: TxnOffsetCommitRequestData, now: number, records: CoordinatorRecord[]): TxnOffsetCommitResponseDataInput {
    const groupError = this.validateTransactionalCommit(request);
    return {
      topics: request.topics.map((topic) => ({
        name: topic.name,
        topicId: topic.topicId,
        partitions: topic.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode:
            groupError !== ErrorCode.NONE
              ? groupError
              : this.commitPartition(
                  request.groupId,
                  topic.name,
                  p,
                  { now, expireTimestamp: -1n, producerId: request.producerId },
                  records,
                ),
        })),
      })),
    };
  }

  /** Writes and applies one partition's commit record; answers its error code. */
  private commitPartition(
    group: string,
    topic: string,
    p: CommitPartition,
    commit: { now: number; expireTimestamp: bigint; producerId: bigint | null },
    records: CoordinatorRecord[],
  ): number {
    const metadata = p.committedMetadata ?? '';
    if (Buffer.byteLength(metadata) > this.config.offsetMetadataMaxBytes) return ErrorCode.OFFSET_METADATA_TOO_LARGE;
    const value = {
      offset: p.committedOffset,
      leaderEpoch: p.committedLeaderEpoch,
      metadata,
      commitTimestamp: BigInt(commit.now),
      expireTimestamp: commit.expireTimestamp,
    };
    const key = { group, topic, partition: p.partitionIndex };
    records.push(offsetCommitRecord(key, value));
    this.replayOffsetCommit(key, value, commit.producerId);
    return ErrorCode.NONE;
  }

  private validateCommit(request: OffsetCommitRequestData, apiVersion: number, now: number): number {
    const { groupId, memberId, groupInstanceId } = request;
    const generation = request.generationIdOrMemberEpoch;
    if (groupId === '') return ErrorCode.INVALID_GROUP_ID;
    const consumerGroup = this.consumerGroups.get(groupId);
    if (consumerGroup !== undefined) return validateConsumerGroupCommit(consumerGroup, memberId, generation, apiVersion);
    let group = this.groups.get(groupId);
    if (group === undefined) {
      if (generation >= 0)
        return apiVersion >= FIRST_COMMIT_VERSION_WITH_GROUP_ID_NOT_FOUND ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.ILLEGAL_GENERATION;
      group = this.simpleGroup(groupId);
    }
    const error = validateClassicCommit(group, memberId, groupInstanceId, generation, false);
    if (error !== ErrorCode.NONE) return error;
    // In the classic protocol a commit also proves the member alive.
    if (group.is('Stable') || group.is('PreparingRebalance')) this.membership.keepAlive(group, memberId, now);
    return ErrorCode.NONE;
  }

  /** Kafka's `validateTransactionalOffsetCommit`: the group state is not enforced, and a memberless commit is a producer's own. */
  private validateTransactionalCommit(request: TxnOffsetCommitRequestData): number {
    const { groupId, memberId, groupInstanceId } = request;
    const generation = request.generationIdOrMemberEpoch;
    if (groupId === '') return ErrorCode.INVALID_GROUP_ID;
    const consumerGroup = this.consumerGroups.get(groupId);
    if (consumerGroup !== undefined) return validateConsumerGroupCommit(consumerGroup, memberId, generation, null);
    const group = this.groups.get(groupId) ?? (generation < 0 ? this.simpleGroup(groupId) : undefined);
    if (group === undefined) return ErrorCode.ILLEGAL_GENERATION;
    return validateClassicCommit(group, memberId, groupInstanceId, generation, true);
  }

  /**
   * Applies one offset commit record, live or replayed: into the committed offsets, or with
   * `producerId` into that producer's open transaction. Offsets without a group belong to a
   * simple consumer's group, created here.
   */
  replayOffsetCommit(
    key: OffsetKey,
    value: Pick<OffsetCommitValueData, 'offset' | 'leaderEpoch' | 'metadata' | 'commitTimestamp' | 'expireTimestamp'>,
    producerId: bigint | null,
  ): void {
    if (!this.consumerGroups.has(key.group)) this.simpleGroup(key.group);
    const offset = committedOffsetOf(value, this.nextRecordOrder++);
    if (producerId === null) this.store.put(key.group, key.topic, key.partition, offset);
    else this.pending.put(producerId, key.group, key.topic, key.partition, offset);
  }

  /** Applies an offset tombstone, live or replayed: the committed offset goes, and so does the partition's offset in every open transaction of the group. */
  replayOffsetTombstone(key: OffsetKey): void {
    this.store.remove(key.group, key.topic, key.partition);
    this.pending.remove(key.group, key.topic, key.partition);
  }

  /**
   * A transaction's end marker, live or replayed. On COMMIT each of the producer's pending offsets
   * becomes the committed one unless the committed one's record came later; on ABORT they go.
   */
  replayEndTransactionMarker(producerId: bigint, commit: boolean): void {
    const ended = this.pending.end(producerId);
    if (!commit) return;
    for (const { group, topic, partition, offset } of ended.entries()) {
      const committed = this.store.get(group, topic, partition);
      if (committed === undefined || offset.recordOrder > committed.recordOrder) this.store.put(group, topic, partition, offset);
    }
  }

  /** A group that only stores offsets: Empty, no protocol type. Created by commits and their replay. */
  simpleGroup(groupId: string): Group<T> {
    let group = this.groups.get(groupId);
    if (group === undefined) {
      group = new ClassicGroup(groupId, {
        state: 'Empty',
        generationId: 0,
        protocolType: null,
        protocolName: null,
        currentStateTimestamp: null,
      });
      this.groups.set(groupId, group);
    }
    return group;
  }

  fetch(query: OffsetFetchGroupQuery): OffsetFetchResponseOffsetFetchResponseGroupInput {
    const consumerGroup = this.consumerGroups.get(query.groupId);
    if (consumerGroup !== undefined && query.memberEpoch >= 0) {
      const member = consumerGroup.members.get(query.memberId ?? '');
      const errorCode =
        member === undefined
          ? ErrorCode.UNKNOWN_MEMBER_ID
          : member.memberEpoch !== query.memberEpoch
            ? ErrorCode.STALE_MEMBER_EPOCH
            : ErrorCode.NONE;
      if (errorCode !== ErrorCode.NONE) return { groupId: query.groupId, errorCode, topics: [] };
    }
    // An unknown group is not an error: it simply has no offsets.
    const offsets = this.store.ofGroup(query.groupId);
    const partition = (
      topic: string,
      partitionIndex: number,
      o: CommittedOffset | undefined,
    ): OffsetFetchResponseOffsetFetchResponsePartitionsInput => {
      if (query.requireStable && this.pending.has(query.groupId, topic, partitionIndex)) {
        return {
          partitionIndex,
          committedOffset: INVALID_OFFSET,
          committedLeaderEpoch: -1,
          metadata: '',
          errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT,
        };
      }
      return o === undefined
        ? { partitionIndex, committedOffset: INVALID_OFFSET, committedLeaderEpoch: -1, metadata: '' }
        : { partitionIndex, committedOffset: o.offset, committedLeaderEpoch: o.leaderEpoch, metadata: o.metadata };
    };
    const topics =
      query.topics === null
        ? [...offsets].map(([name, parts]) => ({ name, topicId: ZERO_UUID, partitions: [...parts].map(([i, o]) => partition(name, i, o)) }))
        : query.topics.map((t) => ({
            name: t.name,
            topicId: t.topicId,
            partitions: t.partitionIndexes.map((i) => partition(t.name, i, offsets.get(t.name)?.get(i))),
          }));
    return { groupId: query.groupId, errorCode: query.groupId === '' ? ErrorCode.INVALID_GROUP_ID : ErrorCode.NONE, topics };
  }

  delete(request: OffsetDeleteRequestData, records: CoordinatorRecord[]): OffsetDeleteResponseDataInput {
    const consumerGroup = this.consumerGroups.get(request.groupId);
    // A KIP-848 group's offsets may go whatever its state, except those of topics it subscribes to.
    if (consumerGroup !== undefined)
      return this.deleteFrom(request, (topic) => consumerGroup.isSubscribedToTopic(topic, regexMatches), records);
    const group = request.groupId === '' ? undefined : this.groups.get(request.groupId);
    if (group === undefined) return { errorCode: request.groupId === '' ? ErrorCode.INVALID_GROUP_ID : ErrorCode.GROUP_ID_NOT_FOUND };
    // Offsets of a live non-consumer group cannot be judged safe to delete.
    if (!group.is('Empty') && !group.usesConsumerProtocol()) return { errorCode: ErrorCode.NON_EMPTY_GROUP };
    return this.deleteFrom(request, (topic) => group.isSubscribedToTopic(topic), records);
  }

  private deleteFrom(
    request: OffsetDeleteRequestData,
    isSubscribed: (topic: string) => boolean,
    records: CoordinatorRecord[],
  ): OffsetDeleteResponseDataInput {
    const groupId = request.groupId;
    return {
      topics: request.topics.map((topic) => {
        const subscribed = isSubscribed(topic.name);
        return {
          name: topic.name,
          partitions: topic.partitions.map(({ partitionIndex }) => {
            if (subscribed) return { partitionIndex, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC };
            // A pending transactional offset is deleted too: its commit marker would bring it back.
            if (
              this.store.get(groupId, topic.name, partitionIndex) !== undefined ||
              this.pending.has(groupId, topic.name, partitionIndex)
            ) {
              this.removeOffset(groupId, topic.name, partitionIndex, records);
            }
            return { partitionIndex, errorCode: ErrorCode.NONE };
          }),
        };
      }),
    };
  }

  /** Tombstones every offset of a group, those of open transactions too (DeleteGroups). */
  deleteAll(groupId: string, records: CoordinatorRecord[]): void {
    const partitions = [...this.pending.partitionsOf(groupId)];
    for (const [topic, committed] of this.store.ofGroup(groupId)) {
      for (const partition of committed.keys()) if (!this.pending.has(groupId, topic, partition)) partitions.push({ topic, partition });
    }
    for (const { topic, partition } of partitions) this.removeOffset(groupId, topic, partition, records);
  }

  /** Tombstones an empty KIP-848 group's assignment epoch and then the group (DeleteGroups, expiry). */
  deleteConsumerGroup(group: ConsumerGroup, records: CoordinatorRecord[]): void {
    this.consumerGroups.write({ kind: 'target-epoch', groupId: group.groupId, value: null }, records);
    this.consumerGroups.write({ kind: 'group-epoch', groupId: group.groupId, value: null }, records);
  }

  /**
   * The periodic sweep: tombstones offsets past retention, then groups left Empty with no offsets.
   * Offsets of topics a live consumer group subscribes to never expire; neither do offsets an open
   * transaction is about to replace, nor groups with an open transaction.
   */
  expire(now: number, records: CoordinatorRecord[]): void {
    this.expireConsumerGroups(now, records);
    for (const group of [...this.groups.values()]) {
      const baseTimestamp = this.retentionBase(group);
      if (baseTimestamp === null) continue;
      let allExpired = true;
      for (const [topic, partitions] of [...this.store.ofGroup(group.groupId)]) {
        if (group.isSubscribedToTopic(topic)) {
          allExpired = false;
          continue;
        }
        for (const [partition, o] of [...partitions]) {
          const expired = o.expireTimestamp !== null ? now >= o.expireTimestamp : now - baseTimestamp(o) >= this.config.offsetsRetentionMs;
          if (expired && !this.pending.has(group.groupId, topic, partition)) this.removeOffset(group.groupId, topic, partition, records);
          else allExpired = false;
        }
      }
      if (allExpired && group.is('Empty') && !this.pending.hasOpenTransactions(group.groupId)) {
        records.push(groupMetadataTombstone(group.groupId));
        this.groups.delete(group.groupId);
      }
    }
  }

  /** KIP-848 groups: offsets of unsubscribed topics age from their commit; an empty group without offsets goes. */
  private expireConsumerGroups(now: number, records: CoordinatorRecord[]): void {
    for (const group of [...this.consumerGroups.all()]) {
      for (const [topic, partitions] of [...this.store.ofGroup(group.groupId)]) {
        if (group.isSubscribedToTopic(topic, regexMatches)) continue;
        for (const [partition, o] of [...partitions]) {
          const expired = o.expireTimestamp !== null ? now >= o.expireTimestamp : now - o.commitTimestamp >= this.config.offsetsRetentionMs;
          if (expired && !this.pending.has(group.groupId, topic, partition)) this.removeOffset(group.groupId, topic, partition, records);
        }
      }
      const unused =
        group.members.size === 0 && this.store.ofGroup(group.groupId).size === 0 && !this.pending.hasOpenTransactions(group.groupId);
      if (unused) this.deleteConsumerGroup(group, records);
    }
  }

  /** From when a group's offsets age, or null when they do not (a live group that is not a Stable consumer group). */
  private retentionBase(group: ClassicGroup<unknown>): ((o: CommittedOffset) => number) | null {
    // A simple group: each offset ages from its commit.
    if (group.protocolType === null) return (o) => o.commitTimestamp;
    if (group.is('Empty')) return (o) => group.currentStateTimestamp ?? o.commitTimestamp;
    if (group.usesConsumerProtocol() && group.subscribedTopics !== null && group.is('Stable')) return (o) => o.commitTimestamp;
    return null;
  }

  private removeOffset(group: string, topic: string, partition: number, records: CoordinatorRecord[]): void {
    const key = { group, topic, partition };
    records.push(offsetCommitTombstone(key));
    this.replayOffsetTombstone(key);
  }
}

function committedOffsetOf(
  value: Pick<OffsetCommitValueData, 'offset' | 'leaderEpoch' | 'metadata' | 'commitTimestamp' | 'expireTimestamp'>,
  recordOrder: number,
): CommittedOffset {
  return {
    offset: value.offset,
    leaderEpoch: value.leaderEpoch,
    metadata: value.metadata,
    commitTimestamp: Number(value.commitTimestamp),
    expireTimestamp: value.expireTimestamp === -1n ? null : Number(value.expireTimestamp),
    recordOrder,
  };
}

/**
 * Kafka's `ClassicGroup.validateOffsetCommit`. A transactional commit is not held to the group's
 * state (no REBALANCE_IN_PROGRESS) and needs no member: older producers send none.
 */
function validateClassicCommit<T>(
  group: Group<T>,
  memberId: string,
  groupInstanceId: string | null,
  generation: number,
  transactional: boolean,
): number {
  if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  // No generation and no members: a simple consumer or an admin tool.
  if (generation < 0 && group.is('Empty')) return ErrorCode.NONE;
  if (generation >= 0 || memberId !== '' || groupInstanceId !== null) {
    const error = memberError(group, memberId, groupInstanceId);
    if (error !== ErrorCode.NONE) return error;
    if (generation !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
  } else if (!transactional) {
    return ErrorCode.UNKNOWN_MEMBER_ID;
  }
  // The member has the new generation but the assignment is not out yet.
  if (!transactional && group.is('CompletingRebalance')) return ErrorCode.REBALANCE_IN_PROGRESS;
  return ErrorCode.NONE;
}

/**
 * Kafka's `ConsumerGroup.validateOffsetCommit` for members using the consumer protocol;
 * `offsetCommitVersion` is null for TxnOffsetCommit.
 */
function validateConsumerGroupCommit(
  group: ConsumerGroup,
  memberId: string,
  memberEpoch: number,
  offsetCommitVersion: number | null,
): number {
  // An admin tool or a consumer outside group management may commit while nobody is in the group.
  if (memberEpoch < 0 && group.members.size === 0) return ErrorCode.NONE;
  const member = group.members.get(memberId);
  if (member === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
  if (offsetCommitVersion !== null && offsetCommitVersion < FIRST_COMMIT_VERSION_FOR_CONSUMER_MEMBERS) return ErrorCode.UNSUPPORTED_VERSION;
  if (memberEpoch === member.memberEpoch) return ErrorCode.NONE;
  // Producers know no STALE_MEMBER_EPOCH: to TxnOffsetCommit a stale epoch is a stale generation.
  return offsetCommitVersion === null ? ErrorCode.ILLEGAL_GENERATION : ErrorCode.STALE_MEMBER_EPOCH;
}
