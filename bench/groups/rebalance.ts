/**
 * Workload 1: how long a classic group of N members takes to become Stable — every member
 * holding its SyncGroup assignment of one common generation — after all N send JoinGroup at
 * once, and again after one follower leaves. Each repetition uses a fresh group and fresh
 * connections. After each phase DescribeGroups must agree with what the members were told
 * (Stable, the right members, each one's assignment), so a run also checks the driver.
 */
import { performance } from 'node:perf_hooks';
import { decodeMemberAssignment } from '@sluice/client/consumer-protocol.js';
import { ErrorCode, errorName } from '@sluice/protocol/errors.js';
import { DescribeGroupsRequest, DescribeGroupsResponse, LeaveGroupRequest, LeaveGroupResponse } from '@sluice/protocol/messages/index.js';
import { awaitCoordinator, type RunningBroker } from './brokers.js';
import { GroupMember, type MemberSettings, type SyncedEvent } from './member.js';
import { PINNED_VERSIONS, WireConnection } from './wire.js';

export interface RebalanceOptions {
  readonly members: number;
  readonly repetitions: number;
  readonly partitions: number;
  readonly heartbeatIntervalMs: number;
  readonly phaseTimeoutMs: number;
}

export interface PhaseSample {
  readonly ms: number;
  /** Generations the group went through before it settled. */
  readonly generations: number;
  /** JoinGroup requests all members sent, MEMBER_ID_REQUIRED round trips included. */
  readonly joinRequests: number;
}

export interface RebalanceSamples {
  readonly join: PhaseSample[];
  readonly leave: PhaseSample[];
  /**
   * From the first heartbeat answered REBALANCE_IN_PROGRESS to Stable: the leave time without
   * the wait for the next heartbeat, which `heartbeatIntervalMs` alone decides.
   */
  readonly leaveAfterNotice: number[];
}

const SESSION_TIMEOUT_MS = 30_000;
const REBALANCE_TIMEOUT_MS = 60_000;

export async function runRebalance(broker: RunningBroker, opts: RebalanceOptions, tag: string): Promise<RebalanceSamples> {
  const samples: RebalanceSamples = { join: [], leave: [], leaveAfterNotice: [] };
  for (let rep = 0; rep < opts.repetitions; rep++) {
    const groupId = `bench-rebalance-${tag}-${opts.members}-${rep}`;
    const s = await oneRepetition(broker, groupId, opts);
    samples.join.push(s.join);
    samples.leave.push(s.leave);
    samples.leaveAfterNotice.push(s.leaveAfterNotice);
  }
  return samples;
}

/** Resolves when every given member is Stable in one generation above `after`. */
class StableWatch {
  private waiter: {
    readonly members: readonly GroupMember[];
    readonly after: number;
    readonly resolve: (g: number) => void;
    readonly reject: (e: Error) => void;
  } | null = null;
  failure: Error | null = null;
  /** Member count the leader saw, per generation. */
  readonly leaderSaw = new Map<number, number>();

  synced(e: SyncedEvent): void {
    if (e.leaderSawMembers !== null) this.leaderSaw.set(e.generation, e.leaderSawMembers);
    this.check();
  }

  failed(err: Error): void {
    this.failure ??= err;
    this.waiter?.reject(err);
  }

  wait(members: readonly GroupMember[], after: number, timeoutMs: number): Promise<number> {
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`group not Stable within ${timeoutMs} ms`)), timeoutMs);
      this.waiter = {
        members,
        after,
        resolve: (g) => {
          clearTimeout(timer);
          resolve(g);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.check();
    });
  }

  private check(): void {
    const w = this.waiter;
    if (w === null) return;
    const g = w.members[0]!.syncedGeneration;
    if (g <= w.after) return;
    for (const m of w.members) if (!m.isStable || m.syncedGeneration !== g) return;
    this.waiter = null;
    w.resolve(g);
  }
}

async function oneRepetition(
  broker: RunningBroker,
  groupId: string,
  opts: RebalanceOptions,
): Promise<{ join: PhaseSample; leave: PhaseSample; leaveAfterNotice: number }> {
  const settings: MemberSettings = {
    groupId,
    topic: 'bench-groups-topic',
    partitions: opts.partitions,
    sessionTimeoutMs: SESSION_TIMEOUT_MS,
    rebalanceTimeoutMs: REBALANCE_TIMEOUT_MS,
    heartbeatIntervalMs: opts.heartbeatIntervalMs,
  };
  const conns = await Promise.all(
    Array.from({ length: opts.members }, (_, i) => WireConnection.open(broker.host, broker.port, `bench-member-${i}`)),
  );
  const admin = await WireConnection.open(broker.host, broker.port, 'bench-admin');
  try {
    await awaitCoordinator(admin, groupId);
    const watch = new StableWatch();
    const members = conns.map(
      (c) =>
        new GroupMember(
          c,
          settings,
          (e) => watch.synced(e),
          (err) => watch.failed(err),
        ),
    );
    const joinRequests = (): number => members.reduce((n, m) => n + m.joins, 0);

    const t0 = performance.now();
    for (const m of members) m.join();
    const g1 = await watch.wait(members, 0, opts.phaseTimeoutMs);
    const join: PhaseSample = { ms: performance.now() - t0, generations: g1, joinRequests: joinRequests() };
    if (watch.leaderSaw.get(g1) !== members.length)
      throw new Error(`generation ${g1}: leader saw ${watch.leaderSaw.get(g1)} members, not ${members.length}`);
    await verify(admin, groupId, members, opts.partitions);

    // A follower leaves: the leader leaving would also move leadership, a different case.
    const leaver = members.filter((m) => m.ledGeneration !== g1).at(-1)!;
    const rest = members.filter((m) => m !== leaver);
    for (const m of rest) m.rebalanceNoticedAt = null;
    const joinsBefore = joinRequests();
    const t1 = performance.now();
    await leaver.leave();
    const g2 = await watch.wait(rest, g1, opts.phaseTimeoutMs);
    const t2 = performance.now();
    const leave: PhaseSample = { ms: t2 - t1, generations: g2 - g1, joinRequests: joinRequests() - joinsBefore };
    const noticed = Math.min(...rest.map((m) => m.rebalanceNoticedAt ?? Number.POSITIVE_INFINITY));
    if (!Number.isFinite(noticed) || noticed < t1) throw new Error(`${groupId}: no member was told of the rebalance by a heartbeat`);
    if (watch.leaderSaw.get(g2) !== rest.length)
      throw new Error(`generation ${g2}: leader saw ${watch.leaderSaw.get(g2)} members, not ${rest.length}`);
    await verify(admin, groupId, rest, opts.partitions);

    for (const m of rest) m.stop();
    const res = await admin.request(LeaveGroupRequest, LeaveGroupResponse, PINNED_VERSIONS.LeaveGroup, {
      groupId,
      members: rest.map((m) => ({ memberId: m.memberId, groupInstanceId: null, reason: 'benchmark done' })),
    });
    if (res.errorCode !== ErrorCode.NONE) throw new Error(`LeaveGroup of all: ${errorName(res.errorCode)}`);
    return { join, leave, leaveAfterNotice: t2 - noticed };
  } finally {
    for (const c of conns) c.close();
    admin.close();
  }
}

/** DescribeGroups must show the group Stable with exactly these members and the assignments they were given. */
async function verify(admin: WireConnection, groupId: string, members: readonly GroupMember[], partitions: number): Promise<void> {
  const res = await admin.request(DescribeGroupsRequest, DescribeGroupsResponse, PINNED_VERSIONS.DescribeGroups, {
    groups: [groupId],
    includeAuthorizedOperations: false,
  });
  const g = res.groups[0];
  if (g === undefined || g.errorCode !== ErrorCode.NONE) throw new Error(`DescribeGroups ${groupId}: ${errorName(g?.errorCode ?? -1)}`);
  if (g.groupState !== 'Stable') throw new Error(`${groupId} is ${g.groupState}, not Stable`);
  if (g.members.length !== members.length) throw new Error(`${groupId} has ${g.members.length} members, the driver ${members.length}`);
  const byId = new Map(members.map((m) => [m.memberId, m]));
  const seen = new Set<number>();
  for (const d of g.members) {
    const m = byId.get(d.memberId);
    if (m === undefined) throw new Error(`${groupId}: broker lists unknown member ${d.memberId}`);
    const broker = JSON.stringify(decodeMemberAssignment(d.memberAssignment));
    if (broker !== JSON.stringify(m.assignment))
      throw new Error(`${groupId}: ${d.memberId} holds ${JSON.stringify(m.assignment)}, broker says ${broker}`);
    for (const t of m.assignment) for (const p of t.partitions) seen.add(p);
  }
  if (seen.size !== partitions) throw new Error(`${groupId}: ${seen.size} of ${partitions} partitions assigned`);
}
