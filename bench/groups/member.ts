/**
 * A lean classic-protocol group member: JoinGroup (with the v4+ MEMBER_ID_REQUIRED round trip),
 * SyncGroup, periodic Heartbeat and LeaveGroup over its own connection, as a Java or KafkaJS
 * consumer does them but without fetching, so a hundred members fit in one Node process. The
 * leader assigns the topic's partitions round-robin in member-id order and encodes them with
 * the generated `ConsumerProtocolAssignment`.
 */
import { performance } from 'node:perf_hooks';
import { decodeMemberAssignment, type TopicPartitions } from '@sluice/client/consumer-protocol.js';
import { ErrorCode, errorName } from '@sluice/protocol/errors.js';
import {
  ConsumerProtocolAssignment,
  ConsumerProtocolSubscription,
  HeartbeatRequest,
  HeartbeatResponse,
  JoinGroupRequest,
  JoinGroupResponse,
  LeaveGroupRequest,
  LeaveGroupResponse,
  SyncGroupRequest,
  SyncGroupResponse,
  type JoinGroupResponseJoinGroupResponseMember,
} from '@sluice/protocol/messages/index.js';
import { Writer } from '@sluice/protocol/primitives/writer.js';
import { PINNED_VERSIONS, type WireConnection } from './wire.js';

export interface MemberSettings {
  readonly groupId: string;
  readonly topic: string;
  readonly partitions: number;
  readonly sessionTimeoutMs: number;
  readonly rebalanceTimeoutMs: number;
  /** How often a Stable member heartbeats, and so how soon it hears of a rebalance. */
  readonly heartbeatIntervalMs: number;
}

export interface SyncedEvent {
  readonly member: GroupMember;
  readonly generation: number;
  /** Members the leader was given in JoinGroup; null for followers, which are not told. */
  readonly leaderSawMembers: number | null;
}

/** Version 0 of the consumer protocol: topics only, as the assignment's user data is unused. */
const CONSUMER_PROTOCOL_VERSION = 0;
const PROTOCOL_TYPE = 'consumer';
const ASSIGNOR = 'roundrobin';

type State = 'idle' | 'joining' | 'stable' | 'left';

export class GroupMember {
  memberId = '';
  syncedGeneration = -1;
  /** The last generation this member led. */
  ledGeneration = -1;
  assignment: TopicPartitions[] = [];
  /** When a heartbeat last answered REBALANCE_IN_PROGRESS (performance.now()). */
  rebalanceNoticedAt: number | null = null;
  /** JoinGroup requests sent, MEMBER_ID_REQUIRED round trips included. */
  joins = 0;
  private state: State = 'idle';
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private readonly subscription: Buffer;

  constructor(
    private readonly conn: WireConnection,
    private readonly settings: MemberSettings,
    private readonly onSynced: (e: SyncedEvent) => void,
    private readonly onFailed: (err: Error) => void,
  ) {
    const w = new Writer(64);
    w.int16(CONSUMER_PROTOCOL_VERSION);
    ConsumerProtocolSubscription.write(w, { topics: [settings.topic], userData: null }, CONSUMER_PROTOCOL_VERSION);
    this.subscription = w.finish();
  }

  get isStable(): boolean {
    return this.state === 'stable';
  }

  /** Starts (re)joining; completion is reported through `onSynced`. */
  join(): void {
    this.stopHeartbeat();
    this.state = 'joining';
    this.syncedGeneration = -1;
    this.joinLoop().catch((err: unknown) => this.fail(err));
  }

  /** LeaveGroup v3+ (a members array); the member stops heartbeating first. */
  async leave(): Promise<void> {
    this.stopHeartbeat();
    this.state = 'left';
    const res = await this.conn.request(LeaveGroupRequest, LeaveGroupResponse, PINNED_VERSIONS.LeaveGroup, {
      groupId: this.settings.groupId,
      members: [{ memberId: this.memberId, groupInstanceId: null, reason: 'benchmark' }],
    });
    const code = res.errorCode !== ErrorCode.NONE ? res.errorCode : (res.members[0]?.errorCode ?? ErrorCode.NONE);
    if (code !== ErrorCode.NONE) throw new Error(`LeaveGroup: ${errorName(code)}`);
  }

  /** Stops without telling the broker (the group is left in one batched LeaveGroup by the caller). */
  stop(): void {
    this.stopHeartbeat();
    this.state = 'left';
  }

  private async joinLoop(): Promise<void> {
    const s = this.settings;
    for (;;) {
      const join = await this.conn.request(JoinGroupRequest, JoinGroupResponse, PINNED_VERSIONS.JoinGroup, {
        groupId: s.groupId,
        sessionTimeoutMs: s.sessionTimeoutMs,
        rebalanceTimeoutMs: s.rebalanceTimeoutMs,
        memberId: this.memberId,
        groupInstanceId: null,
        protocolType: PROTOCOL_TYPE,
        protocols: [{ name: ASSIGNOR, metadata: this.subscription }],
        reason: null,
      });
      this.joins++;
      if (this.state !== 'joining') return;
      if (join.errorCode === ErrorCode.MEMBER_ID_REQUIRED) {
        this.memberId = join.memberId;
        continue;
      }
      if (join.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) {
        this.memberId = '';
        continue;
      }
      if (join.errorCode !== ErrorCode.NONE) throw new Error(`JoinGroup: ${errorName(join.errorCode)}`);
      this.memberId = join.memberId;
      const isLeader = join.leader === join.memberId;
      const sync = await this.conn.request(SyncGroupRequest, SyncGroupResponse, PINNED_VERSIONS.SyncGroup, {
        groupId: s.groupId,
        generationId: join.generationId,
        memberId: this.memberId,
        groupInstanceId: null,
        protocolType: PROTOCOL_TYPE,
        protocolName: join.protocolName,
        assignments: isLeader ? roundRobin(join.members, s.topic, s.partitions) : [],
      });
      if (this.state !== 'joining') return;
      // A member that joined meanwhile restarts the rebalance: join again, as a consumer does.
      if (sync.errorCode === ErrorCode.REBALANCE_IN_PROGRESS || sync.errorCode === ErrorCode.ILLEGAL_GENERATION) continue;
      if (sync.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) {
        this.memberId = '';
        continue;
      }
      if (sync.errorCode !== ErrorCode.NONE) throw new Error(`SyncGroup: ${errorName(sync.errorCode)}`);
      this.assignment = decodeMemberAssignment(sync.assignment);
      this.syncedGeneration = join.generationId;
      if (isLeader) this.ledGeneration = join.generationId;
      this.state = 'stable';
      this.scheduleHeartbeat();
      this.onSynced({ member: this, generation: join.generationId, leaderSawMembers: isLeader ? join.members.length : null });
      return;
    }
  }

  private scheduleHeartbeat(): void {
    this.heartbeatTimer = setTimeout(() => {
      this.heartbeatTimer = null;
      this.heartbeat().catch((err: unknown) => this.fail(err));
    }, this.settings.heartbeatIntervalMs);
  }

  private async heartbeat(): Promise<void> {
    const generation = this.syncedGeneration;
    const res = await this.conn.request(HeartbeatRequest, HeartbeatResponse, PINNED_VERSIONS.Heartbeat, {
      groupId: this.settings.groupId,
      generationId: generation,
      memberId: this.memberId,
      groupInstanceId: null,
    });
    // An answer for a generation this member has already moved on from says nothing.
    if (this.state !== 'stable' || this.syncedGeneration !== generation) return;
    switch (res.errorCode) {
      case ErrorCode.NONE:
        this.scheduleHeartbeat();
        return;
      case ErrorCode.UNKNOWN_MEMBER_ID:
        this.memberId = '';
        this.join();
        return;
      case ErrorCode.REBALANCE_IN_PROGRESS:
        this.rebalanceNoticedAt = performance.now();
        this.join();
        return;
      case ErrorCode.ILLEGAL_GENERATION:
        this.join();
        return;
      default:
        throw new Error(`Heartbeat: ${errorName(res.errorCode)}`);
    }
  }

  private stopHeartbeat(): void {
    if (this.heartbeatTimer !== null) clearTimeout(this.heartbeatTimer);
    this.heartbeatTimer = null;
  }

  private fail(err: unknown): void {
    this.stop();
    this.onFailed(err instanceof Error ? err : new Error(String(err)));
  }
}

/** Partition p goes to member p mod n, members sorted by id (Kafka's RoundRobinAssignor for one topic). */
export function roundRobin(
  members: readonly JoinGroupResponseJoinGroupResponseMember[],
  topic: string,
  partitions: number,
): { memberId: string; assignment: Buffer }[] {
  const ids = members.map((m) => m.memberId).sort();
  const owned = new Map<string, number[]>(ids.map((id) => [id, []]));
  for (let p = 0; p < partitions; p++) owned.get(ids[p % ids.length]!)!.push(p);
  return ids.map((memberId) => {
    const w = new Writer(32 + 4 * partitions);
    w.int16(CONSUMER_PROTOCOL_VERSION);
    ConsumerProtocolAssignment.write(
      w,
      { assignedPartitions: [{ topic, partitions: owned.get(memberId)! }], userData: null },
      CONSUMER_PROTOCOL_VERSION,
    );
    return { memberId, assignment: w.finish() };
  });
}
