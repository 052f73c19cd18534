import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { decodeRecord } from '../../../../src/coordinator/group/records.js';
import {
  GROUP,
  REBALANCE_MS,
  SESSION_MS,
  joinCtx,
  joinRequest,
  newCoordinator,
  stableGroup,
  subscription,
  syncRequest,
} from './harness.js';

test('one member: MEMBER_ID_REQUIRED, rejoin parks through the initial delay, sync, heartbeat', () => {
  const c = newCoordinator();
  const first = c.joinGroup(joinRequest(), joinCtx(0, 'j1'));
  assert.equal(first.response?.errorCode, ErrorCode.MEMBER_ID_REQUIRED);
  assert.equal(first.response?.memberId, 'client-1');
  // The new group is written (empty) before the answer goes out.
  assert.equal(first.records.length, 1);
  const created = decodeRecord(first.records[0]!.key, first.records[0]!.value);
  assert.equal(created.type === 'group-metadata' && created.value?.generation, 0);

  const rejoin = c.joinGroup(joinRequest({ memberId: 'client-1' }), joinCtx(10, 'j2'));
  assert.equal(rejoin.response, null, 'parked for group.initial.rebalance.delay.ms');
  assert.equal(c.nextDeadline(), 10 + 3000);
  assert.deepEqual(c.tick(3009).released, []);

  const done = c.tick(3010);
  assert.equal(done.released.length, 1);
  const joined = done.released[0]!;
  assert.equal(joined.to, 'j2');
  assert.equal(joined.api, 'JoinGroup');
  if (joined.api !== 'JoinGroup') return;
  assert.equal(joined.response.errorCode, ErrorCode.NONE);
  assert.equal(joined.response.generationId, 1);
  assert.equal(joined.response.leader, 'client-1');
  assert.equal(joined.response.protocolName, 'range');
  assert.deepEqual(
    joined.response.members?.map((m) => m.memberId),
    ['client-1'],
  );

  const sync = c.syncGroup(syncRequest('client-1', 1, [['client-1', Buffer.from('A')]]), { now: 3020, replyTo: 's1' });
  assert.deepEqual(sync.response?.assignment, Buffer.from('A'));
  assert.equal(sync.records.length, 1);
  const stored = decodeRecord(sync.records[0]!.key, sync.records[0]!.value);
  assert.ok(stored.type === 'group-metadata' && stored.value !== null);
  assert.equal(stored.value.generation, 1);
  assert.equal(stored.value.leader, 'client-1');
  assert.deepEqual(
    stored.value.members.map((m) => [m.memberId, m.assignment.toString()]),
    [['client-1', 'A']],
  );

  assert.equal(
    c.heartbeat({ groupId: GROUP, generationId: 1, memberId: 'client-1', groupInstanceId: null }, 4000).response.errorCode,
    ErrorCode.NONE,
  );
  assert.equal(c.describeGroups({ groups: [GROUP], includeAuthorizedOperations: false }, 5).groups?.[0]?.groupState, 'Stable');
});

test('JoinGroup before v4 gets a member id at once', () => {
  const c = newCoordinator();
  const r = c.joinGroup(joinRequest(), { ...joinCtx(0, 'j'), apiVersion: 3 });
  assert.equal(r.response, null);
  const done = c.tick(3000);
  assert.equal(done.released[0]?.api === 'JoinGroup' && done.released[0].response.memberId, 'client-1');
});

test('three members: followers wait for the leader, then all get their assignment', () => {
  const c = newCoordinator();
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const id = String(c.joinGroup(joinRequest(), joinCtx(i, `x${i}`, `c${i}`)).response?.memberId);
    ids.push(id);
    assert.equal(c.joinGroup(joinRequest({ memberId: id }), joinCtx(i, `j${i}`, `c${i}`)).response, null);
  }
  const done = c.tick(10_000);
  const byTo = new Map(done.released.map((r) => [r.to, r]));
  assert.equal(byTo.size, 3);
  for (const [to, r] of byTo) {
    assert.ok(r.api === 'JoinGroup');
    assert.equal(r.response.generationId, 1);
    assert.equal(r.response.leader, ids[0]);
    assert.equal(r.response.members?.length ?? 0, to === 'j0' ? 3 : 0, 'only the leader sees the members');
  }
  assert.equal(c.syncGroup(syncRequest(ids[1]!, 1), { now: 10_001, replyTo: 's1' }).response, null);
  assert.equal(c.syncGroup(syncRequest(ids[2]!, 1), { now: 10_001, replyTo: 's2' }).response, null);
  const leaderSync = c.syncGroup(
    syncRequest(
      ids[0]!,
      1,
      ids.map((id, i) => [id, Buffer.from(`p${i}`)]),
    ),
    { now: 10_002, replyTo: 's0' },
  );
  assert.deepEqual(leaderSync.response?.assignment, Buffer.from('p0'));
  assert.deepEqual(leaderSync.released.map((r) => [r.to, r.api === 'SyncGroup' ? r.response.assignment?.toString() : '']).sort(), [
    ['s1', 'p1'],
    ['s2', 'p2'],
  ]);
  assert.equal(leaderSync.records.length, 1, 'released only after the group metadata record is appended');
});

test('a leaving member triggers a rebalance; the others get a new generation', () => {
  const c = newCoordinator();
  const {
    members: [a, b, x],
    generation,
  } = stableGroup(c, 3);
  const leave = c.leaveGroup(
    {
      groupId: GROUP,
      memberId: '',
      members: [
        { memberId: x!, groupInstanceId: null, reason: null },
        { memberId: 'nobody', groupInstanceId: null, reason: null },
      ],
    },
    5,
    100,
  );
  assert.deepEqual(
    leave.response.members?.map((m) => m.errorCode),
    [ErrorCode.NONE, ErrorCode.UNKNOWN_MEMBER_ID],
  );
  assert.equal(
    c.heartbeat({ groupId: GROUP, generationId: generation, memberId: a!, groupInstanceId: null }, 101).response.errorCode,
    ErrorCode.REBALANCE_IN_PROGRESS,
  );
  assert.equal(
    c.syncGroup(syncRequest(a!, generation), { now: 101, replyTo: 'late' }).response?.errorCode,
    ErrorCode.REBALANCE_IN_PROGRESS,
  );
  assert.equal(c.joinGroup(joinRequest({ memberId: a! }), joinCtx(102, 'ja')).response, null);
  const last = c.joinGroup(joinRequest({ memberId: b! }), joinCtx(103, 'jb'));
  // Everybody rejoined: no delay after the first rebalance.
  assert.equal(last.response?.generationId, generation + 1);
  assert.equal(last.released[0]?.to, 'ja');
  assert.ok(last.released[0]?.api === 'JoinGroup');
  assert.deepEqual(
    last.released[0].response.members?.map((m) => m.memberId),
    [a, b],
  );
});

test('LeaveGroup v0-v2 names one member and answers at the top level', () => {
  const c = newCoordinator();
  const {
    members: [a],
  } = stableGroup(c, 1);
  assert.equal(c.leaveGroup({ groupId: GROUP, memberId: 'stranger', members: [] }, 1, 10).response.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal(c.leaveGroup({ groupId: GROUP, memberId: a!, members: [] }, 1, 10).response.errorCode, ErrorCode.NONE);
  assert.equal(c.leaveGroup({ groupId: 'nope', memberId: a!, members: [] }, 1, 10).response.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
});

test('session expiry removes a silent member and rebalances the rest', () => {
  const c = newCoordinator();
  const {
    members: [a, b],
    generation,
    now,
  } = stableGroup(c, 2);
  let t = now;
  for (; t < now + SESSION_MS + 1000; t += 3000) {
    c.tick(t);
    assert.equal(
      c.heartbeat({ groupId: GROUP, generationId: generation, memberId: a!, groupInstanceId: null }, t).response.errorCode,
      ErrorCode.NONE,
    );
  }
  c.tick(now + SESSION_MS);
  assert.equal(
    c.heartbeat({ groupId: GROUP, generationId: generation, memberId: a!, groupInstanceId: null }, t).response.errorCode,
    ErrorCode.REBALANCE_IN_PROGRESS,
  );
  assert.equal(
    c.heartbeat({ groupId: GROUP, generationId: generation, memberId: b!, groupInstanceId: null }, t).response.errorCode,
    ErrorCode.UNKNOWN_MEMBER_ID,
  );
  const rejoin = c.joinGroup(joinRequest({ memberId: a! }), joinCtx(t, 'ja'));
  assert.equal(rejoin.response?.generationId, generation + 1);
  assert.deepEqual(
    rejoin.response?.members?.map((m) => m.memberId),
    [a],
  );
});

test('members that do not rejoin within the rebalance timeout are removed', () => {
  const c = newCoordinator();
  const {
    members: [a, b],
    now,
  } = stableGroup(c, 2);
  // Leader rejoins (forcing a rebalance); b keeps heartbeating but never rejoins (max.poll.interval.ms exceeded).
  assert.equal(c.joinGroup(joinRequest({ memberId: a! }), joinCtx(now + 1, 'ja')).response, null);
  for (let t = now + 2; t < now + REBALANCE_MS; t += 3000) {
    c.heartbeat({ groupId: GROUP, generationId: 1, memberId: b!, groupInstanceId: null }, t);
    assert.deepEqual(c.tick(t).released, []);
  }
  const done = c.tick(now + 1 + REBALANCE_MS);
  assert.equal(done.released.length, 1);
  assert.ok(done.released[0]?.api === 'JoinGroup');
  assert.equal(done.released[0].response.generationId, 2);
  assert.deepEqual(
    done.released[0].response.members?.map((m) => m.memberId),
    [a],
  );
});

test('static member: rejoin with a new member id replaces the old one without a rebalance; the old id is fenced', () => {
  const c = newCoordinator();
  const first = c.joinGroup(joinRequest({ groupInstanceId: 'inst-1' }), joinCtx(0, 'j1'));
  assert.equal(first.response, null, 'static members skip MEMBER_ID_REQUIRED');
  const joined = c.tick(3000).released[0];
  assert.ok(joined?.api === 'JoinGroup');
  const oldId = String(joined.response.memberId);
  assert.equal(oldId, 'inst-1-1');
  c.syncGroup({ ...syncRequest(oldId, 1, [[oldId, Buffer.from('A')]]), groupInstanceId: 'inst-1' }, { now: 3001, replyTo: 's1' });

  const again = c.joinGroup(joinRequest({ groupInstanceId: 'inst-1' }), joinCtx(5000, 'j2'));
  assert.equal(again.response?.errorCode, ErrorCode.NONE);
  assert.equal(again.response?.generationId, 1, 'no new generation');
  assert.equal(again.response?.memberId, 'inst-1-2');
  assert.equal(again.response?.skipAssignment, true, 'v9: the leader keeps its assignment');
  assert.equal(again.records.length, 1, 'the new member id is persisted');
  const hb = (memberId: string) =>
    c.heartbeat({ groupId: GROUP, generationId: 1, memberId, groupInstanceId: 'inst-1' }, 5001).response.errorCode;
  assert.equal(hb(oldId), ErrorCode.FENCED_INSTANCE_ID);
  assert.equal(hb('inst-1-2'), ErrorCode.NONE);
  const sync = c.syncGroup({ ...syncRequest('inst-1-2', 1), groupInstanceId: 'inst-1' }, { now: 5002, replyTo: 's2' });
  assert.deepEqual(sync.response?.assignment, Buffer.from('A'), 'the assignment carries over');
  assert.equal(c.describeGroups({ groups: [GROUP], includeAuthorizedOperations: false }, 5).groups?.[0]?.groupState, 'Stable');
});

test('generation and membership errors', () => {
  const c = newCoordinator();
  const {
    members: [a],
    generation,
  } = stableGroup(c, 1);
  const hb = (memberId: string, generationId: number, groupId = GROUP) =>
    c.heartbeat({ groupId, generationId, memberId, groupInstanceId: null }, 1).response.errorCode;
  assert.equal(hb(a!, generation + 1), ErrorCode.ILLEGAL_GENERATION);
  assert.equal(hb('ghost', generation), ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal(hb(a!, generation, 'other-group'), ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal(hb(a!, generation, ''), ErrorCode.INVALID_GROUP_ID);
  assert.equal(c.syncGroup(syncRequest(a!, generation - 1), { now: 1, replyTo: 's' }).response?.errorCode, ErrorCode.ILLEGAL_GENERATION);
  assert.equal(
    c.syncGroup({ ...syncRequest(a!, generation), protocolName: 'roundrobin' }, { now: 1, replyTo: 's' }).response?.errorCode,
    ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
  );
  assert.equal(c.joinGroup(joinRequest({ memberId: 'ghost' }), joinCtx(1, 'j')).response?.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal(
    c.joinGroup(joinRequest({ protocolType: 'connect' }), joinCtx(1, 'j')).response?.errorCode,
    ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
  );
  assert.equal(c.joinGroup(joinRequest({ sessionTimeoutMs: 10 }), joinCtx(1, 'j')).response?.errorCode, ErrorCode.INVALID_SESSION_TIMEOUT);
  assert.equal(
    c.joinGroup(joinRequest({ memberId: 'x', groupId: 'new-group' }), joinCtx(1, 'j')).response?.errorCode,
    ErrorCode.UNKNOWN_MEMBER_ID,
  );
});

test('group.max.size turns away members beyond it', () => {
  const c = newCoordinator({ maxGroupSize: 1 });
  stableGroup(c, 1);
  const r = c.joinGroup(joinRequest(), joinCtx(10, 'j'));
  assert.equal(r.response?.errorCode, ErrorCode.GROUP_MAX_SIZE_REACHED);
  assert.equal(r.response?.memberId, '');
});

test('protocol selection: supported by all, preferred by most', () => {
  const c = newCoordinator();
  const md = subscription(['t']);
  const prefs = [
    ['range', 'roundrobin'],
    ['roundrobin', 'range'],
    ['roundrobin', 'sticky', 'range'],
  ];
  prefs.forEach((names, i) =>
    c.joinGroup(joinRequest({ protocols: names.map((name) => ({ name, metadata: md })) }), { ...joinCtx(0, `j${i}`), apiVersion: 3 }),
  );
  // Members kept arriving during the initial delay, so it was extended once (3000 -> 6000).
  assert.deepEqual(c.tick(3000).released, []);
  const r = c.tick(6000).released;
  assert.equal(r.length, 3);
  for (const x of r) assert.ok(x.api === 'JoinGroup' && x.response.protocolName === 'roundrobin');
  // A member supporting none of the group's protocols cannot join.
  assert.equal(
    c.joinGroup(joinRequest({ protocols: [{ name: 'sticky', metadata: md }] }), joinCtx(3001, 'j')).response?.errorCode,
    ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
  );
});

test('pending sync members are dropped after the rebalance timeout', () => {
  const c = newCoordinator();
  const ids = ['a', 'b'].map((client) => String(c.joinGroup(joinRequest(), joinCtx(0, `x-${client}`, client)).response?.memberId));
  for (const id of ids) c.joinGroup(joinRequest({ memberId: id }), joinCtx(0, `j-${id}`));
  assert.equal(c.tick(6000).released.length, 2);
  // Only the leader syncs; b keeps heartbeating but never syncs.
  c.syncGroup(
    syncRequest(ids[0]!, 1, [
      [ids[0]!, Buffer.from('A')],
      [ids[1]!, Buffer.from('B')],
    ]),
    { now: 6001, replyTo: 's' },
  );
  for (let t = 9000; t < 6000 + REBALANCE_MS; t += 3000) {
    c.tick(t);
    for (const id of ids)
      assert.equal(
        c.heartbeat({ groupId: GROUP, generationId: 1, memberId: id, groupInstanceId: null }, t).response.errorCode,
        ErrorCode.NONE,
      );
  }
  c.tick(6000 + REBALANCE_MS);
  const d = c.describeGroups({ groups: [GROUP], includeAuthorizedOperations: false }, 5).groups?.[0];
  assert.equal(d?.groupState, 'PreparingRebalance');
  assert.deepEqual(
    d?.members?.map((m) => m.memberId),
    [ids[0]],
  );
});

test('unload answers every parked request NOT_COORDINATOR', () => {
  const c = newCoordinator();
  const id = String(c.joinGroup(joinRequest(), joinCtx(0, 'x')).response?.memberId);
  c.joinGroup(joinRequest({ memberId: id }), joinCtx(0, 'parked'));
  const released = c.unload();
  assert.equal(released.length, 1);
  assert.equal(released[0]?.to, 'parked');
  assert.ok(released[0]?.api === 'JoinGroup' && released[0].response.errorCode === ErrorCode.NOT_COORDINATOR);
});
