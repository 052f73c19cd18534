/**
 * Consumer-group and share-group administration over the wire: the requests behind `sluice groups`. ListGroups
 * goes to every broker (each answers for the groups it coordinates); everything about one group
 * goes to its coordinator (`group-coordinator.ts`), retried while the coordinator moves, loads
 * or is still being created. Broker error codes become KafkaErrors carrying the broker's message.
 *
 * Offsets are committed as Kafka's admin client commits them, as a "simple consumer": generation
 * -1 and no member id, which a coordinator accepts only while the group has no members.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  DeleteGroupsRequest,
  DeleteGroupsResponse,
  DescribeGroupsRequest,
  DescribeGroupsResponse,
  ListGroupsRequest,
  ListGroupsResponse,
  OffsetCommitRequest,
  OffsetCommitResponse,
  OffsetDeleteRequest,
  OffsetDeleteResponse,
  OffsetFetchRequest,
  OffsetFetchResponse,
  ShareGroupDescribeRequest,
  ShareGroupDescribeResponse,
  DescribeShareGroupOffsetsRequest,
  DescribeShareGroupOffsetsResponse,
  AlterShareGroupOffsetsRequest,
  AlterShareGroupOffsetsResponse,
  DeleteShareGroupOffsetsRequest,
  DeleteShareGroupOffsetsResponse,
  type ListGroupsResponseListedGroup,
} from '@sluice/protocol/messages/index.js';
import { brokerError, throwIfError } from './client-errors.js';
import type { KafkaCluster } from './cluster.js';
import type { BrokerNode } from './cluster-metadata.js';
import type { KafkaConnection } from './connection.js';
import { decodeMemberAssignment, type TopicPartitions } from './consumer-protocol.js';
import { findGroupCoordinator } from './group-coordinator.js';
import { comparePartitions } from './partition-offsets.js';
import { withRetries } from './retry.js';

export interface GroupListing {
  readonly groupId: string;
  /** `consumer` for consumer groups, empty for groups that only hold offsets. */
  readonly protocolType: string;
  /** Kafka's state name (`Stable`, `Empty`, …); empty from brokers older than ListGroups v4. */
  readonly state: string;
  /** `classic` or `consumer` (KIP-848); empty from brokers older than ListGroups v5. */
  readonly type: string;
}

export interface GroupMember {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  /** Decoded from the consumer protocol; empty for other protocols or while the group rebalances. */
  readonly assignment: readonly TopicPartitions[];
}

export interface GroupDescription {
  readonly groupId: string;
  /** `Dead` for a group the coordinator does not know (what DescribeGroups v0–5 answer; v6 answers GROUP_ID_NOT_FOUND). */
  readonly state: string;
  readonly protocolType: string;
  /** The selected protocol: for consumer groups, the assignor. */
  readonly protocol: string;
  readonly members: readonly GroupMember[];
  readonly coordinator: BrokerNode;
}

export interface PartitionOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
}

/** A share group (KIP-932) as ShareGroupDescribe shows it. */
export interface ShareGroupDescription {
  readonly groupId: string;
  /** `Empty` or `Stable`; `Dead` for a group that is not a share group (or does not exist). */
  readonly state: string;
  readonly groupEpoch: number;
  readonly assignmentEpoch: number;
  readonly assignor: string;
  readonly members: ReadonlyArray<{
    readonly memberId: string;
    readonly clientId: string;
    readonly clientHost: string;
    readonly memberEpoch: number;
    readonly assignment: readonly TopicPartitions[];
  }>;
  readonly coordinator: BrokerNode;
}

/** A share-partition's start offset (-1: none yet) as DescribeShareGroupOffsets answers it. */
export interface SharePartitionOffset {
  readonly topic: string;
  readonly partition: number;
  readonly startOffset: bigint;
  readonly leaderEpoch: number;
  /** -1 when the broker does not know it (DescribeShareGroupOffsets v0, or no summary). */
  readonly lag: bigint;
}

export interface TopicResult {
  readonly topic: string;
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

export interface PartitionResult {
  readonly topic: string;
  readonly partition: number;
  readonly errorCode: number;
}

export interface GroupAdminOptions {
  /** How long retriable coordinator errors are retried. */
  readonly retryTimeoutMs?: number;
}

const DEFAULT_RETRY_TIMEOUT_MS = 30_000;
/** OffsetFetch v8+ and the answers of v10 (topic ids instead of names). */
const OFFSET_FETCH_BATCHED_VERSION = 8;
const NO_OFFSET = -1n;
const CONSUMER_PROTOCOL = 'consumer';
/** What Kafka's admin client lists as consumer groups: these protocol types and group types. */
const CONSUMER_PROTOCOL_TYPES = new Set(['', CONSUMER_PROTOCOL]);
const CONSUMER_GROUP_TYPES = new Set(['', 'classic', 'consumer']);
const SHARE_GROUP_TYPE = 'share';

export class KafkaGroupAdminClient {
  private readonly retryTimeoutMs: number;

  constructor(
    private readonly cluster: KafkaCluster,
    options: GroupAdminOptions = {},
  ) {
    this.retryTimeoutMs = options.retryTimeoutMs ?? DEFAULT_RETRY_TIMEOUT_MS;
  }

  /** Every consumer group of the cluster (classic and KIP-848, and offset-only groups), sorted by id. */
  async listConsumerGroups(): Promise<GroupListing[]> {
    return this.listGroups((g) => CONSUMER_PROTOCOL_TYPES.has(g.protocolType) && CONSUMER_GROUP_TYPES.has(g.groupType));
  }

  /** Every share group (KIP-932) of the cluster, sorted by id. */
  async listShareGroups(): Promise<GroupListing[]> {
    return this.listGroups((g) => g.groupType === SHARE_GROUP_TYPE);
  }

  private async listGroups(wanted: (g: ListGroupsResponseListedGroup) => boolean): Promise<GroupListing[]> {
    const metadata = await this.cluster.metadata([]);
    const perBroker = await Promise.all(
      [...metadata.brokers.keys()].map((nodeId) =>
        this.retry(async () => {
          const connection = await this.cluster.nodeConnection(nodeId);
          const res = await connection.request(ListGroupsRequest, ListGroupsResponse, () => ({ statesFilter: [], typesFilter: [] }));
          throwIfError(res.errorCode, null, `list groups on broker ${nodeId}`);
          return res.groups;
        }),
      ),
    );
    const groups = new Map<string, GroupListing>();
    for (const g of perBroker.flat()) {
      if (!wanted(g)) continue;
      groups.set(g.groupId, { groupId: g.groupId, protocolType: g.protocolType, state: g.groupState, type: g.groupType });
    }
    return [...groups.values()].sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0));
  }

  async describeGroup(groupId: string): Promise<GroupDescription> {
    return this.withCoordinator(groupId, async (connection, coordinator) => {
      const res = await connection.request(DescribeGroupsRequest, DescribeGroupsResponse, () => ({
        groups: [groupId],
        includeAuthorizedOperations: false,
      }));
      const g = res.groups.find((x) => x.groupId === groupId);
      if (g === undefined)
        throw brokerError(ErrorCode.UNKNOWN_SERVER_ERROR, 'the group is missing from the answer', `DescribeGroups '${groupId}'`);
      if (g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND)
        return { groupId, state: 'Dead', protocolType: '', protocol: '', members: [], coordinator };
      throwIfError(g.errorCode, g.errorMessage, `describe group '${groupId}'`);
      const members = g.members.map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        assignment: g.protocolType === CONSUMER_PROTOCOL ? decodeMemberAssignment(m.memberAssignment) : [],
      }));
      return { groupId, state: g.groupState, protocolType: g.protocolType, protocol: g.protocolData, members, coordinator };
    });
  }

  /** The group's committed offsets, by topic then partition; partitions without one are left out. */
  async fetchOffsets(groupId: string): Promise<PartitionOffset[]> {
    const found = await this.withCoordinator(groupId, async (connection) => {
      let batched = false;
      const res = await connection.request(OffsetFetchRequest, OffsetFetchResponse, (version) => {
        batched = version >= OFFSET_FETCH_BATCHED_VERSION;
        // Null topics: every topic the group has offsets for.
        return batched ? { groups: [{ groupId, memberId: null, memberEpoch: -1, topics: null }] } : { groupId, topics: null };
      });
      if (!batched) {
        throwIfError(res.errorCode, null, `fetch offsets of group '${groupId}'`);
        return res.topics.map((t) => ({ name: t.name, topicId: '', partitions: t.partitions }));
      }
      const g = res.groups.find((x) => x.groupId === groupId);
      if (g === undefined)
        throw brokerError(ErrorCode.UNKNOWN_SERVER_ERROR, 'the group is missing from the answer', `OffsetFetch '${groupId}'`);
      throwIfError(g.errorCode, null, `fetch offsets of group '${groupId}'`);
      return g.topics;
    });
    const names = await this.topicNames(found.filter((t) => t.name === '').map((t) => t.topicId));
    const offsets: PartitionOffset[] = [];
    for (const t of found) {
      const topic = t.name !== '' ? t.name : names.get(t.topicId);
      // v10 names topics by id; a topic deleted since the commit has no name left to show.
      if (topic === undefined) continue;
      for (const p of t.partitions) {
        throwIfError(p.errorCode, null, `fetch offset of group '${groupId}' topic '${topic}' partition ${p.partitionIndex}`);
        if (p.committedOffset !== NO_OFFSET) offsets.push({ topic, partition: p.partitionIndex, offset: p.committedOffset });
      }
    }
    return offsets.sort(comparePartitions);
  }

  /** Commits `offsets` as a simple consumer (generation -1, no member id); refused while the group has members. */
  async commitOffsets(groupId: string, offsets: readonly PartitionOffset[]): Promise<void> {
    const byTopic = new Map<string, PartitionOffset[]>();
    for (const o of offsets) {
      const list = byTopic.get(o.topic);
      if (list === undefined) byTopic.set(o.topic, [o]);
      else list.push(o);
    }
    // OffsetCommit v10 names topics by id, earlier versions by name; each version writes the one it carries.
    const metadata = await this.cluster.metadata([...byTopic.keys()]);
    const topics = [...byTopic].map(([name, partitions]) => ({
      name,
      topicId: metadata.topics.get(name)?.topicId ?? '',
      partitions: partitions.map((p) => ({
        partitionIndex: p.partition,
        committedOffset: p.offset,
        committedLeaderEpoch: -1,
        committedMetadata: '',
      })),
    }));
    const nameOf = new Map(topics.map((t) => [t.topicId, t.name]));
    await this.withCoordinator(groupId, async (connection) => {
      const res = await connection.request(OffsetCommitRequest, OffsetCommitResponse, () => ({
        groupId,
        generationIdOrMemberEpoch: -1,
        memberId: '',
        topics,
      }));
      for (const t of res.topics) {
        for (const p of t.partitions) {
          const topic = t.name !== '' ? t.name : (nameOf.get(t.topicId) ?? t.topicId);
          throwIfError(p.errorCode, null, `commit offset of group '${groupId}' topic '${topic}' partition ${p.partitionIndex}`);
        }
      }
    });
  }

  /** Deletes the group and its offsets; Kafka refuses a group with members (NON_EMPTY_GROUP). */
  async deleteGroup(groupId: string): Promise<void> {
    await this.withCoordinator(groupId, async (connection) => {
      const res = await connection.request(DeleteGroupsRequest, DeleteGroupsResponse, () => ({ groupsNames: [groupId] }));
      const result = res.results.find((r) => r.groupId === groupId);
      if (result === undefined)
        throw brokerError(ErrorCode.UNKNOWN_SERVER_ERROR, 'the group is missing from the answer', `DeleteGroups '${groupId}'`);
      throwIfError(result.errorCode, result.errorMessage, `delete group '${groupId}'`);
    });
  }

  /**
   * Deletes the group's offsets of these partitions. Group-level refusals (GROUP_ID_NOT_FOUND,
   * NON_EMPTY_GROUP) are thrown; partition-level ones (GROUP_SUBSCRIBED_TO_TOPIC) are returned.
   */
  async deleteOffsets(groupId: string, partitions: readonly TopicPartitions[]): Promise<PartitionResult[]> {
    return this.withCoordinator(groupId, async (connection) => {
      const res = await connection.request(OffsetDeleteRequest, OffsetDeleteResponse, () => ({
        groupId,
        topics: partitions.map((t) => ({ name: t.topic, partitions: t.partitions.map((partitionIndex) => ({ partitionIndex })) })),
      }));
      throwIfError(res.errorCode, null, `delete offsets of group '${groupId}'`);
      return res.topics
        .flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, errorCode: p.errorCode })))
        .sort(comparePartitions);
    });
  }

  /** ShareGroupDescribe; a group that is not a share group (or does not exist) is answered `Dead`. */
  async describeShareGroup(groupId: string): Promise<ShareGroupDescription> {
    return this.withCoordinator(groupId, async (connection, coordinator) => {
      const dead = { groupId, state: 'Dead', groupEpoch: -1, assignmentEpoch: -1, assignor: '', members: [], coordinator };
      // A broker without share groups (before Kafka 4.0) has none to describe.
      if (!connection.versions.has(ShareGroupDescribeRequest.apiKey!)) return dead;
      const res = await connection.request(ShareGroupDescribeRequest, ShareGroupDescribeResponse, () => ({
        groupIds: [groupId],
        includeAuthorizedOperations: false,
      }));
      const g = res.groups.find((x) => x.groupId === groupId);
      if (g === undefined)
        throw brokerError(ErrorCode.UNKNOWN_SERVER_ERROR, 'the group is missing from the answer', `ShareGroupDescribe '${groupId}'`);
      if (g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) return dead;
      throwIfError(g.errorCode, g.errorMessage, `describe share group '${groupId}'`);
      const members = g.members.map((m) => ({
        memberId: m.memberId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        memberEpoch: m.memberEpoch,
        assignment: m.assignment.topicPartitions.map((t) => ({ topic: t.topicName, partitions: [...t.partitions].sort((a, b) => a - b) })),
      }));
      return {
        groupId,
        state: g.groupState,
        groupEpoch: g.groupEpoch,
        assignmentEpoch: g.assignmentEpoch,
        assignor: g.assignorName,
        members,
        coordinator,
      };
    });
  }

  /** The start offset of every share-partition the group has state for, by topic then partition. */
  async describeShareGroupOffsets(groupId: string): Promise<SharePartitionOffset[]> {
    return this.withCoordinator(groupId, async (connection) => {
      const res = await connection.request(DescribeShareGroupOffsetsRequest, DescribeShareGroupOffsetsResponse, () => ({
        groups: [{ groupId, topics: null }],
      }));
      const g = res.groups.find((x) => x.groupId === groupId);
      if (g === undefined)
        throw brokerError(ErrorCode.UNKNOWN_SERVER_ERROR, 'the group is missing from the answer', `DescribeShareGroupOffsets '${groupId}'`);
      throwIfError(g.errorCode, g.errorMessage, `describe offsets of share group '${groupId}'`);
      const offsets = g.topics.flatMap((t) =>
        t.partitions.map((p) => {
          throwIfError(
            p.errorCode,
            p.errorMessage,
            `describe offset of share group '${groupId}' topic '${t.topicName}' partition ${p.partitionIndex}`,
          );
          return { topic: t.topicName, partition: p.partitionIndex, startOffset: p.startOffset, leaderEpoch: p.leaderEpoch, lag: p.lag };
        }),
      );
      return offsets.sort(comparePartitions);
    });
  }

  /** AlterShareGroupOffsets: the share-partitions restart at these offsets; refused while the group has members. */
  async alterShareGroupOffsets(groupId: string, offsets: readonly PartitionOffset[]): Promise<PartitionResult[]> {
    const topics = [...new Set(offsets.map((o) => o.topic))].map((topicName) => ({
      topicName,
      partitions: offsets.filter((o) => o.topic === topicName).map((o) => ({ partitionIndex: o.partition, startOffset: o.offset })),
    }));
    return this.withCoordinator(groupId, async (connection) => {
      const res = await connection.request(AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse, () => ({ groupId, topics }));
      throwIfError(res.errorCode, res.errorMessage, `alter offsets of share group '${groupId}'`);
      return res.responses
        .flatMap((t) => t.partitions.map((p) => ({ topic: t.topicName, partition: p.partitionIndex, errorCode: p.errorCode })))
        .sort(comparePartitions);
    });
  }

  /** DeleteShareGroupOffsets: forgets the group's share-partition state of whole topics; refused while the group has members. */
  async deleteShareGroupOffsets(groupId: string, topics: readonly string[]): Promise<TopicResult[]> {
    return this.withCoordinator(groupId, async (connection) => {
      const res = await connection.request(DeleteShareGroupOffsetsRequest, DeleteShareGroupOffsetsResponse, () => ({
        groupId,
        topics: topics.map((topicName) => ({ topicName })),
      }));
      throwIfError(res.errorCode, res.errorMessage, `delete offsets of share group '${groupId}'`);
      return res.responses.map((t) => ({ topic: t.topicName, errorCode: t.errorCode, errorMessage: t.errorMessage }));
    });
  }

  /** Runs `use` against the group's coordinator, looking it up again after each retriable failure. */
  private withCoordinator<T>(groupId: string, use: (connection: KafkaConnection, coordinator: BrokerNode) => Promise<T>): Promise<T> {
    return this.retry(async () => {
      const coordinator = await findGroupCoordinator(this.cluster, groupId);
      return use(coordinator.connection, coordinator.node);
    });
  }

  private retry<T>(attempt: () => Promise<T>): Promise<T> {
    return withRetries(attempt, { deadline: Date.now() + this.retryTimeoutMs });
  }

  private async topicNames(topicIds: readonly string[]): Promise<Map<string, string>> {
    if (topicIds.length === 0) return new Map();
    const metadata = await this.cluster.metadata(null);
    return new Map([...metadata.topics.values()].map((t) => [t.topicId, t.name]));
  }
}
