/**
 * OffsetCommit / OffsetFetch exchanges over raw sockets with the generated codecs, for the tests
 * that check exact error codes against Sluice and against Apache Kafka alike: a topic created and
 * visible in the metadata, a coordinator ready to answer, a classic group member, and commits
 * and fetches at a chosen version.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import * as M from '@sluice/protocol/messages/index.js';
import { waitFor } from './wait-for.js';
import { wireCall } from './wire-call.js';

/** An id no topic has: topic ids are random, and Kafka reserves the ids this small. */
export const NO_SUCH_TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAABw';
/** A simple consumer's commit: no generation, no member. */
export const SIMPLE = { generationIdOrMemberEpoch: -1, memberId: '' } as const;

const READY_TIMEOUT_MS = 30_000;
/** Errors a coordinator answers while it is being created or loaded. */
const NOT_READY = new Set<number>([ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.NOT_COORDINATOR]);

/** Polls `probe` until it resolves with a value, for a readiness that Kafka reaches some time after the request that causes it. */
export function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  return waitFor(what, READY_TIMEOUT_MS, probe);
}

/** Creates the topic and waits until the metadata lists every partition (Kafka's cache lags a creation); resolves with its id. */
export async function createTopic(
  bootstrap: string,
  name: string,
  numPartitions: number,
  configs: M.CreateTopicsRequestCreatableTopicConfigInput[] = [],
): Promise<string> {
  const created = await wireCall(bootstrap, M.CreateTopicsRequest, M.CreateTopicsResponse, 7, {
    timeoutMs: 10_000,
    topics: [{ name, numPartitions, replicationFactor: 1, configs }],
  });
  if (created.topics[0]?.errorCode !== ErrorCode.NONE) throw new Error(`creating ${name}: error ${created.topics[0]?.errorCode}`);
  return until(`${name} in the metadata`, async () => {
    const md = await wireCall(bootstrap, M.MetadataRequest, M.MetadataResponse, 12, { topics: [{ name }], allowAutoTopicCreation: false });
    const t = md.topics[0];
    const ready =
      t !== undefined &&
      t.errorCode === ErrorCode.NONE &&
      t.partitions.length === numPartitions &&
      t.partitions.every((p) => p.errorCode === ErrorCode.NONE);
    return ready ? t.topicId : undefined;
  });
}

export async function deleteTopic(bootstrap: string, name: string): Promise<void> {
  const res = await wireCall(bootstrap, M.DeleteTopicsRequest, M.DeleteTopicsResponse, 6, { timeoutMs: 10_000, topics: [{ name }] });
  if (res.responses[0]?.errorCode !== ErrorCode.NONE) throw new Error(`deleting ${name}: error ${res.responses[0]?.errorCode}`);
}

/** Waits until the group's coordinator answers OffsetFetch (Kafka creates and loads `__consumer_offsets` on first use). */
export async function awaitCoordinator(bootstrap: string, groupId: string): Promise<void> {
  await until(`the coordinator of ${groupId}`, async () => {
    const found = await wireCall(bootstrap, M.FindCoordinatorRequest, M.FindCoordinatorResponse, 4, {
      keyType: 0,
      coordinatorKeys: [groupId],
    });
    if (found.coordinators[0]?.errorCode !== ErrorCode.NONE) return undefined;
    const fetched = await wireCall(bootstrap, M.OffsetFetchRequest, M.OffsetFetchResponse, 8, { groups: [{ groupId, topics: null }] });
    return NOT_READY.has(fetched.groups[0]?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR) ? undefined : true;
  });
}

export interface GroupMember {
  readonly generationIdOrMemberEpoch: number;
  readonly memberId: string;
}

/** The one member of a classic consumer group, joined (through MEMBER_ID_REQUIRED) and synced. */
export async function joinClassicGroup(bootstrap: string, groupId: string): Promise<GroupMember> {
  const join = (memberId: string) =>
    wireCall(bootstrap, M.JoinGroupRequest, M.JoinGroupResponse, 9, {
      groupId,
      sessionTimeoutMs: 30_000,
      rebalanceTimeoutMs: 5_000,
      memberId,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
    });
  const first = await join('');
  if (first.errorCode !== ErrorCode.MEMBER_ID_REQUIRED) throw new Error(`JoinGroup: error ${first.errorCode}`);
  const joined = await join(first.memberId);
  if (joined.errorCode !== ErrorCode.NONE) throw new Error(`JoinGroup: error ${joined.errorCode}`);
  const synced = await wireCall(bootstrap, M.SyncGroupRequest, M.SyncGroupResponse, 5, {
    groupId,
    generationId: joined.generationId,
    memberId: joined.memberId,
    protocolType: 'consumer',
    protocolName: 'range',
    assignments: [{ memberId: joined.memberId, assignment: Buffer.alloc(0) }],
  });
  if (synced.errorCode !== ErrorCode.NONE) throw new Error(`SyncGroup: error ${synced.errorCode}`);
  return { generationIdOrMemberEpoch: joined.generationId, memberId: joined.memberId };
}

/** A KIP-848 consumer group's one member (ConsumerGroupHeartbeat v1, whose member ids the client makes up). */
export async function joinConsumerGroup(bootstrap: string, groupId: string, topic: string, memberId: string): Promise<GroupMember> {
  const joined = await wireCall(bootstrap, M.ConsumerGroupHeartbeatRequest, M.ConsumerGroupHeartbeatResponse, 1, {
    groupId,
    memberId,
    memberEpoch: 0,
    rebalanceTimeoutMs: 5_000,
    subscribedTopicNames: [topic],
    topicPartitions: [],
  });
  if (joined.errorCode !== ErrorCode.NONE) throw new Error(`ConsumerGroupHeartbeat: error ${joined.errorCode}`);
  return { generationIdOrMemberEpoch: joined.memberEpoch, memberId };
}

export function committed(partitionIndex: number, committedOffset = 5n): M.OffsetCommitRequestOffsetCommitRequestPartitionInput {
  return { partitionIndex, committedOffset, committedLeaderEpoch: -1, committedMetadata: 'm' };
}

export function commitOffsets(
  bootstrap: string,
  version: number,
  groupId: string,
  topics: M.OffsetCommitRequestOffsetCommitRequestTopicInput[],
  member: GroupMember = SIMPLE,
): Promise<M.OffsetCommitResponseData> {
  return wireCall(bootstrap, M.OffsetCommitRequest, M.OffsetCommitResponse, version, { groupId, ...member, topics });
}

/** OffsetFetch of one group at v8+ (`topics` null: every committed offset). */
export function fetchOffsets(
  bootstrap: string,
  version: number,
  groupId: string,
  topics: M.OffsetFetchRequestOffsetFetchRequestTopicsInput[] | null,
): Promise<M.OffsetFetchResponseData> {
  return wireCall(bootstrap, M.OffsetFetchRequest, M.OffsetFetchResponse, version, { groups: [{ groupId, topics }] });
}
