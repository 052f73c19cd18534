/** Builders shared by the group coordinator tests: requests with every field, predictable member ids. */
import type { JoinGroupRequestData } from '@sluice/protocol/messages/api/11-join-group.js';
import type { SyncGroupRequestData } from '@sluice/protocol/messages/api/14-sync-group.js';
import type { OffsetCommitRequestData } from '@sluice/protocol/messages/api/08-offset-commit.js';
import { ConsumerProtocolSubscription } from '@sluice/protocol/messages/schemas/consumer-protocol-subscription.js';
import { Writer } from '@sluice/protocol/primitives/writer.js';
import { GroupCoordinator } from '../../../../src/coordinator/group/group-coordinator.js';
import type { GroupCoordinatorConfig } from '../../../../src/coordinator/group/config.js';
import type { Released } from '../../../../src/coordinator/group/results.js';
import { ZERO_UUID } from '@sluice/protocol/common/uuid.js';

export const GROUP = 'g1';
export const SESSION_MS = 10_000;
export const REBALANCE_MS = 30_000;

/** Coordinator whose member ids are `<prefix>-1`, `<prefix>-2`, … */
export function newCoordinator(config: Partial<GroupCoordinatorConfig> = {}): GroupCoordinator<string> {
  let n = 0;
  return new GroupCoordinator<string>({ config, newMemberId: (prefix) => `${prefix}-${++n}` });
}

export function subscription(topics: string[]): Buffer {
  const w = new Writer();
  w.int16(0);
  ConsumerProtocolSubscription.write(w, { topics }, 0);
  return w.finish();
}

export function joinRequest(overrides: Partial<JoinGroupRequestData> = {}): JoinGroupRequestData {
  return {
    groupId: GROUP,
    sessionTimeoutMs: SESSION_MS,
    rebalanceTimeoutMs: REBALANCE_MS,
    memberId: '',
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: subscription(['t1']) }],
    reason: null,
    ...overrides,
  };
}

export function syncRequest(memberId: string, generationId: number, assignments: Array<[string, Buffer]> = []): SyncGroupRequestData {
  return {
    groupId: GROUP,
    generationId,
    memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocolName: 'range',
    assignments: assignments.map(([id, assignment]) => ({ memberId: id, assignment })),
  };
}

export function commitRequest(
  generationIdOrMemberEpoch: number,
  memberId: string,
  partitions: Array<{ topic: string; partition: number; offset: bigint; metadata?: string | null; leaderEpoch?: number }>,
  groupId = GROUP,
): OffsetCommitRequestData {
  const topics = [...new Set(partitions.map((p) => p.topic))];
  return {
    groupId,
    generationIdOrMemberEpoch,
    memberId,
    groupInstanceId: null,
    retentionTimeMs: -1n,
    topics: topics.map((name) => ({
      name,
      topicId: ZERO_UUID,
      partitions: partitions
        .filter((p) => p.topic === name)
        .map((p) => ({
          partitionIndex: p.partition,
          committedOffset: p.offset,
          committedLeaderEpoch: p.leaderEpoch ?? -1,
          committedMetadata: p.metadata ?? null,
        })),
    })),
  };
}

export const JOIN_VERSION = 9;

/** A dynamic member through MEMBER_ID_REQUIRED: returns its member id (its rejoin is parked or answered). */
export function joinCtx(now: number, replyTo: string, clientId = 'client') {
  return { apiVersion: JOIN_VERSION, clientId, clientHost: '/127.0.0.1', now, replyTo };
}

/**
 * Drives `count` dynamic members into a Stable group: each gets a member id, rejoins, the initial
 * delay passes, the leader syncs assignments `a-<i>`. Returns member ids (leader first) and the
 * generation.
 */
export function stableGroup(c: GroupCoordinator<string>, count: number, now = 0): { members: string[]; generation: number; now: number } {
  const members: string[] = [];
  for (let i = 0; i < count; i++) {
    const first = c.joinGroup(joinRequest(), joinCtx(now, `join0-${i}`, `c${i}`));
    const memberId = String(first.response?.memberId);
    members.push(memberId);
    c.joinGroup(joinRequest({ memberId }), joinCtx(now, `join-${memberId}`, `c${i}`));
  }
  // The initial rebalance delay is extended while members keep arriving: fire deadlines until it ends.
  let t = now;
  let leaderJoin: Released<string> | undefined;
  while (leaderJoin === undefined) {
    t = c.nextDeadline() ?? t;
    leaderJoin = c.tick(t).released.find((r) => r.to === `join-${members[0]}`);
  }
  if (leaderJoin.api !== 'JoinGroup') throw new Error('leader not answered');
  const generation = leaderJoin.response.generationId ?? -1;
  for (const m of members.slice(1)) c.syncGroup(syncRequest(m, generation), { now: t, replyTo: `sync-${m}` });
  c.syncGroup(
    syncRequest(
      members[0]!,
      generation,
      members.map((m, i) => [m, Buffer.from(`a-${i}`)]),
    ),
    { now: t, replyTo: `sync-${members[0]}` },
  );
  return { members, generation, now: t };
}
