import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { CoordinatorRecord } from '../../../../../src/coordinator/group/records.js';
import { Client, FakeTopics, GROUP, doubleOwned, hbRequest, newCoordinator, settle } from './harness.js';

function setup(partitions = 4) {
  const topics = new FakeTopics();
  const tid = topics.add('t', partitions);
  const c = newCoordinator();
  const log: CoordinatorRecord[] = [];
  const client = (id: string, subscription?: ConstructorParameters<typeof Client>[4]) => new Client(c, topics, id, log, subscription);
  const safe = (cs: readonly Client[]) => assert.deepEqual(doubleOwned(cs), [], 'a partition has two owners');
  return { topics, tid, c, log, client, safe };
}

function describe(s: ReturnType<typeof setup>) {
  const g = s.c.consumerGroupDescribe({ groupIds: [GROUP], includeAuthorizedOperations: false }, s.topics).groups![0]!;
  return g;
}

test('one member joins: epoch 1, every partition, the configured heartbeat interval, records written', () => {
  const s = setup();
  const a = s.client('a');
  const r = a.join(0);
  assert.equal(r.errorCode, ErrorCode.NONE);
  assert.equal(r.memberId, 'a');
  assert.equal(r.memberEpoch, 1);
  assert.equal(r.heartbeatIntervalMs, 5000);
  assert.deepEqual(r.assignment, { topicPartitions: [{ topicId: s.tid, partitions: [0, 1, 2, 3] }] });
  assert.ok(s.log.length >= 5, 'member, group epoch, target, target epoch and current assignment records');
  const g = describe(s);
  assert.equal(g.groupState, 'Stable');
  assert.equal(g.groupEpoch, 1);
  assert.equal(g.assignmentEpoch, 1);
  assert.equal(g.assignorName, 'uniform');
  assert.deepEqual(g.members![0]!.assignment, { topicPartitions: [{ topicId: s.tid, topicName: 't', partitions: [0, 1, 2, 3] }] });
  // A heartbeat with nothing new answers no assignment.
  assert.equal(a.heartbeat(1000).assignment, null);
});

test('three members: disjoint, balanced, full coverage; no partition ever has two owners', () => {
  const s = setup(8);
  const cs = ['a', 'b', 'c'].map((id) => s.client(id));
  for (const cl of cs) {
    cl.join(0);
    s.safe(cs);
  }
  settle(cs, 100, s.safe);
  const counts = cs.map((cl) => cl.partitions().length).sort();
  assert.deepEqual(counts, [2, 3, 3]);
  assert.deepEqual(cs.flatMap((cl) => cl.partitions()).sort(), [0, 1, 2, 3, 4, 5, 6, 7].map((p) => `${s.tid}:${p}`).sort());
  assert.equal(describe(s).groupState, 'Stable');
  assert.ok(cs.every((cl) => cl.memberEpoch === 3));
});

test('a joining member gets partitions only after their previous owner revoked them', () => {
  const s = setup();
  const a = s.client('a');
  const b = s.client('b');
  a.join(0);
  const rb = b.join(10);
  // b is at the new epoch but what it is to get is still a's.
  assert.equal(rb.memberEpoch, 2);
  assert.deepEqual(rb.assignment, { topicPartitions: [] });
  assert.equal(describe(s).groupState, 'Reconciling');
  // a is told to revoke two partitions, staying at epoch 1 until it has.
  const ra = a.heartbeat(20);
  assert.equal(ra.memberEpoch, 1);
  assert.equal(a.partitions().length, 2);
  // b still gets nothing while a has not confirmed.
  assert.equal(b.heartbeat(25).assignment, null);
  s.safe([a, b]);
  // a confirms (its heartbeat lists only what it kept): it moves to epoch 2, then b gets the rest.
  assert.equal(a.heartbeat(30).memberEpoch, 2);
  const rb2 = b.heartbeat(40);
  assert.equal(b.partitions().length, 2);
  assert.equal(rb2.memberEpoch, 2);
  s.safe([a, b]);
  assert.equal(describe(s).groupState, 'Stable');
});

test('a member that leaves (-1) is removed; the other ends with every partition', () => {
  const s = setup();
  const a = s.client('a');
  const b = s.client('b');
  a.join(0);
  b.join(0);
  settle([a, b], 10, s.safe);
  const r = b.leave(20);
  assert.deepEqual(
    { errorCode: r.errorCode, memberId: r.memberId, memberEpoch: r.memberEpoch },
    { errorCode: 0, memberId: 'b', memberEpoch: -1 },
  );
  settle([a], 30, s.safe);
  assert.equal(a.partitions().length, 4);
  const g = describe(s);
  assert.equal(g.members!.length, 1);
  assert.equal(g.groupEpoch, 3);
  // The member is gone: its next heartbeat is UNKNOWN_MEMBER_ID.
  assert.equal(b.heartbeat(40, { memberEpoch: 2 }).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
});

test('session expiry fences a silent member; the survivor takes its partitions', () => {
  const s = setup();
  const a = s.client('a');
  const b = s.client('b');
  a.join(0);
  b.join(0);
  settle([a, b], 0, s.safe);
  // a keeps heartbeating, b goes silent.
  for (let t = 5000; t < 45_000; t += 5000) a.heartbeat(t);
  assert.equal(s.c.nextDeadline(), 45_000);
  const tick = s.c.tick(45_000);
  assert.ok(tick.records.length > 0);
  assert.equal(describe(s).members!.length, 1);
  settle([a], 45_001, s.safe);
  assert.equal(a.partitions().length, 4);
});

test('a member that does not revoke within its rebalance timeout is fenced', () => {
  const s = setup();
  const a = s.client('a');
  const b = s.client('b');
  a.join(0);
  b.join(0);
  a.heartbeat(1, { topicPartitions: [{ topicId: s.tid, partitions: [0, 1, 2, 3] }] });
  // a keeps claiming everything, so it stays in revocation until the 30 s rebalance timeout.
  for (let t = 5000; t < 30_000; t += 5000) {
    a.heartbeat(t, { topicPartitions: [{ topicId: s.tid, partitions: [0, 1, 2, 3] }] });
    b.heartbeat(t);
  }
  s.c.tick(30_001);
  assert.deepEqual(
    describe(s).members!.map((m) => m.memberId),
    ['b'],
  );
  assert.equal(a.heartbeat(30_002).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
});

test('static members: -2 keeps the assignment for a new incarnation; errors for taken or fenced instance ids', () => {
  const s = setup();
  const a1 = s.client('a1', { subscribedTopicNames: ['t'], instanceId: 'i' });
  a1.join(0);
  // Another member cannot take the instance id while a1 holds it.
  const a2 = s.client('a2', { subscribedTopicNames: ['t'], instanceId: 'i' });
  assert.equal(a2.join(5).errorCode, ErrorCode.UNRELEASED_INSTANCE_ID);
  // A heartbeat for the instance id under another member id is fenced.
  assert.equal(
    s.c.consumerGroupHeartbeat(hbRequest({ memberId: 'zz', memberEpoch: 1, instanceId: 'i' }), {
      apiVersion: 1,
      clientId: 'x',
      clientHost: '/h',
      now: 6,
      topics: s.topics,
    }).response.errorCode,
    ErrorCode.FENCED_INSTANCE_ID,
  );
  assert.equal(a1.leave(10, -2).memberEpoch, -2);
  assert.equal(describe(s).members![0]!.memberEpoch, -2);
  const epochBefore = describe(s).groupEpoch;
  const r = a2.join(20);
  assert.equal(r.errorCode, ErrorCode.NONE);
  assert.deepEqual(r.assignment, { topicPartitions: [{ topicId: s.tid, partitions: [0, 1, 2, 3] }] });
  const g = describe(s);
  assert.deepEqual(
    g.members!.map((m) => [m.memberId, m.instanceId]),
    [['a2', 'i']],
  );
  assert.equal(g.groupEpoch, epochBefore, 'a static member coming back does not rebalance');
  // An unknown instance id leaving is UNKNOWN_MEMBER_ID.
  const leave = s.c.consumerGroupHeartbeat(hbRequest({ memberId: 'q', memberEpoch: -2, instanceId: 'nope' }), {
    apiVersion: 1,
    clientId: 'x',
    clientHost: '/h',
    now: 30,
    topics: s.topics,
  });
  assert.equal(leave.response.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
});

test('request errors answer Kafka codes and change nothing', () => {
  const s = setup();
  const ctx = { apiVersion: 1, clientId: 'x', clientHost: '/h', now: 0, topics: s.topics };
  const code = (o: Parameters<typeof hbRequest>[0], c = s.c) => {
    const r = c.consumerGroupHeartbeat(hbRequest(o), ctx);
    assert.deepEqual(r.records, []);
    return r.response.errorCode;
  };
  const join = { memberId: 'm', memberEpoch: 0, rebalanceTimeoutMs: 1000, topicPartitions: [], subscribedTopicNames: ['t'] };
  assert.equal(code({ ...join, memberId: '' }), ErrorCode.INVALID_REQUEST);
  assert.equal(code({ ...join, groupId: '' }), ErrorCode.INVALID_REQUEST);
  assert.equal(code({ ...join, rebalanceTimeoutMs: -1 }), ErrorCode.INVALID_REQUEST);
  assert.equal(code({ ...join, topicPartitions: null }), ErrorCode.INVALID_REQUEST);
  assert.equal(code({ ...join, subscribedTopicNames: [] }), ErrorCode.INVALID_REQUEST);
  assert.equal(code({ ...join, instanceId: '' }), ErrorCode.INVALID_REQUEST);
  assert.equal(code({ ...join, memberEpoch: -3 }), ErrorCode.INVALID_REQUEST);
  assert.equal(code({ ...join, memberEpoch: -2 }), ErrorCode.INVALID_REQUEST);
  assert.equal(code({ ...join, serverAssignor: 'sticky' }), ErrorCode.UNSUPPORTED_ASSIGNOR);
  assert.equal(code({ ...join, subscribedTopicNames: null, subscribedTopicRegex: '(' }), ErrorCode.INVALID_REGULAR_EXPRESSION);
  assert.equal(code({ memberId: 'm', memberEpoch: 3 }), ErrorCode.GROUP_ID_NOT_FOUND);
  const a = s.client('a');
  a.join(0);
  assert.equal(code({ memberId: 'a', memberEpoch: 5 }), ErrorCode.FENCED_MEMBER_EPOCH);
  assert.equal(code({ memberId: 'zz', memberEpoch: 1 }), ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal(code({ memberId: 'zz', memberEpoch: -1 }), ErrorCode.UNKNOWN_MEMBER_ID);
  const small = newCoordinator({ consumerGroupMaxSize: 1 });
  new Client(small, s.topics, 'a', []).join(0);
  assert.equal(code({ ...join, memberId: 'b' }, small), ErrorCode.GROUP_MAX_SIZE_REACHED);
  // v0 lets the coordinator name the member.
  const v0 = s.c.consumerGroupHeartbeat(hbRequest({ ...join, groupId: 'v0', memberId: '' }), { ...ctx, apiVersion: 0 });
  assert.equal(v0.response.memberId, 'gen-1');
});

test('the previous member epoch is accepted with a subset of the assignment, refused with more', () => {
  const s = setup();
  const a = s.client('a');
  const b = s.client('b');
  a.join(0);
  b.join(0);
  settle([a, b], 1, s.safe);
  const kept = a.owned.get(s.tid)!;
  assert.equal(a.heartbeat(2, { memberEpoch: 1, topicPartitions: [{ topicId: s.tid, partitions: kept }] }).errorCode, ErrorCode.NONE);
  assert.equal(
    a.heartbeat(3, { memberEpoch: 1, topicPartitions: [{ topicId: s.tid, partitions: [0, 1, 2, 3] }] }).errorCode,
    ErrorCode.FENCED_MEMBER_EPOCH,
  );
});

test('new partitions (CreatePartitions) and new topics matching a regex are assigned on the next heartbeat', () => {
  const s = setup(2);
  const a = s.client('a', { subscribedTopicRegex: 't.*' });
  a.join(0);
  assert.equal(a.partitions().length, 2);
  s.topics.add('t', 4);
  a.heartbeat(1);
  assert.equal(a.partitions().length, 4);
  const t2 = s.topics.add('t2', 1);
  s.topics.add('other', 3);
  a.heartbeat(2);
  assert.deepEqual(a.owned.get(t2), [0]);
  assert.equal(a.partitions().length, 5);
  assert.equal(describe(s).members![0]!.subscribedTopicRegex, 't.*');
});

test('serverAssignor range gives contiguous ranges', () => {
  const s = setup(5);
  const a = s.client('a', { subscribedTopicNames: ['t'], serverAssignor: 'range' });
  const b = s.client('b', { subscribedTopicNames: ['t'], serverAssignor: 'range' });
  a.join(0);
  b.join(0);
  settle([a, b], 1, s.safe);
  assert.deepEqual(a.owned.get(s.tid), [0, 1, 2]);
  assert.deepEqual(b.owned.get(s.tid), [3, 4]);
  assert.equal(describe(s).assignorName, 'range');
});

test('ListGroups, DescribeGroups and ConsumerGroupDescribe for a consumer group', () => {
  const s = setup();
  s.client('a').join(0);
  assert.deepEqual(s.c.listGroups({ statesFilter: [], typesFilter: ['consumer'] }).groups, [
    { groupId: GROUP, protocolType: 'consumer', groupState: 'Stable', groupType: 'consumer' },
  ]);
  assert.deepEqual(s.c.listGroups({ statesFilter: [], typesFilter: ['classic'] }).groups, []);
  assert.deepEqual(s.c.describeGroups({ groups: [GROUP], includeAuthorizedOperations: false }, 6).groups![0], {
    groupId: GROUP,
    groupState: 'Dead',
    errorCode: ErrorCode.GROUP_ID_NOT_FOUND,
    errorMessage: `Group ${GROUP} is not a classic group.`,
  });
  assert.deepEqual(s.c.describeGroups({ groups: [GROUP], includeAuthorizedOperations: false }, 5).groups![0], {
    groupId: GROUP,
    groupState: 'Dead',
  });
  assert.equal(
    s.c.consumerGroupDescribe({ groupIds: ['nope'], includeAuthorizedOperations: false }, s.topics).groups![0]!.errorMessage,
    'Group nope not found.',
  );
});

test('offset commits of consumer members are fenced by member epoch', () => {
  const s = setup();
  const a = s.client('a');
  a.join(0);
  const commit = (memberId: string, epoch: number, version = 9) =>
    s.c.commitOffsets(
      {
        groupId: GROUP,
        generationIdOrMemberEpoch: epoch,
        memberId,
        groupInstanceId: null,
        retentionTimeMs: -1n,
        topics: [
          {
            name: 't',
            topicId: '',
            partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: null }],
          },
        ],
      },
      version,
      1,
    ).response.topics![0]!.partitions![0]!.errorCode;
  assert.equal(commit('a', 1), ErrorCode.NONE);
  assert.equal(commit('a', 0), ErrorCode.STALE_MEMBER_EPOCH);
  assert.equal(commit('zz', 1), ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal(commit('a', 1, 8), ErrorCode.UNSUPPORTED_VERSION);
  const fetch = (memberEpoch: number) =>
    s.c.fetchOffsets(
      { groupId: '', topics: null, groups: [{ groupId: GROUP, memberId: 'a', memberEpoch, topics: null }], requireStable: false },
      9,
    ).groups![0]!;
  assert.equal(fetch(1).topics![0]!.partitions![0]!.committedOffset, 5n);
  assert.equal(fetch(7).errorCode, ErrorCode.STALE_MEMBER_EPOCH);
  // Classic APIs on a consumer group id.
  assert.equal(
    s.c.heartbeat({ groupId: GROUP, generationId: 1, memberId: 'a', groupInstanceId: null }, 2).response.errorCode,
    ErrorCode.UNKNOWN_MEMBER_ID,
  );
});
