/**
 * The share group state machine in the group coordinator (KIP-932, Kafka 4.4's behaviour):
 * ShareGroupHeartbeat join/heartbeat/leave, epochs, assignment of initialized share-partitions,
 * initialization requests and their retry, sessions, group types, records and replay, and the
 * share group steps of the admin APIs.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GroupCoordinator } from '../../../../../src/coordinator/group/group-coordinator.js';
import type { GroupCoordinatorConfig } from '../../../../../src/coordinator/group/config.js';
import type { GroupOverrides } from '../../../../../src/coordinator/group/config.js';
import type { CoordinatorRecord } from '../../../../../src/coordinator/group/records.js';
import { assignmentOfPairs } from '../../../../../src/coordinator/group/consumer/assignment.js';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { FakeTopics, hbRequest } from '../consumer/harness.js';
import { commitRequest, joinRequest, JOIN_VERSION } from '../harness.js';
import { SHARE_GROUP, ShareClient, shareHb } from './harness.js';

const CTX = { clientId: 'cli', clientHost: '/127.0.0.1' };

function setup(config: Partial<GroupCoordinatorConfig> = {}, overrides: GroupOverrides = {}) {
  const c = new GroupCoordinator<string>({ config: { ...config, groupOverrides: () => overrides } });
  const topics = new FakeTopics();
  const log: CoordinatorRecord[] = [];
  const client = (memberId: string, subscribed = ['t']) => new ShareClient(c, topics, memberId, log, subscribed);
  return { c, topics, log, client };
}

function heartbeatError(c: GroupCoordinator<string>, topics: FakeTopics, overrides: Parameters<typeof shareHb>[0]) {
  const r = c.shareGroupHeartbeat(shareHb(overrides), { ...CTX, now: 0, topics }).response.response;
  return [r.errorCode, r.errorMessage];
}

function replayed(log: CoordinatorRecord[]): GroupCoordinator<string> {
  const c = new GroupCoordinator<string>();
  for (const r of log) c.replay(r.key, r.value);
  return c;
}

describe('ShareGroupHeartbeat', () => {
  test('join: epoch 1 with nothing assigned until the share-partitions are initialized, then epoch 2 with them', () => {
    const { topics, client } = setup();
    const tId = topics.add('t', 2);
    const a = client('a');
    const joined = a.join(0);
    assert.equal(joined.errorCode, 0);
    assert.equal(joined.memberEpoch, 1);
    assert.deepEqual(joined.assignment, { topicPartitions: [] });
    assert.equal(joined.heartbeatIntervalMs, 5000);
    assert.deepEqual(
      a.pending.map((i) => i.partitions),
      [
        [
          { topicId: tId, partition: 0, startOffset: -1n },
          { topicId: tId, partition: 1, startOffset: -1n },
        ],
      ],
    );

    // Still initializing: nothing new is asked for, nothing assigned.
    assert.equal(a.heartbeat(1000).assignment, null);
    assert.equal(a.pending.length, 1);

    a.initializeAll();
    const after = a.heartbeat(2000);
    assert.equal(after.memberEpoch, 2);
    assert.deepEqual(after.assignment, { topicPartitions: [{ topicId: tId, partitions: [0, 1] }] });
    assert.equal(a.heartbeat(3000).assignment, null, 'an unchanged assignment is not sent again');
  });

  test('more members than partitions: the partition is shared by all of them (KIP-932)', () => {
    const { topics, client } = setup();
    const tId = topics.add('t', 1);
    const a = client('a');
    const b = client('b');
    a.join(0);
    b.join(0);
    a.initializeAll();
    b.initializeAll();
    a.heartbeat(1);
    b.heartbeat(2);
    a.heartbeat(3);
    assert.deepEqual(a.assigned, [[tId, 0]]);
    assert.deepEqual(b.assigned, [[tId, 0]]);
    assert.equal(a.memberEpoch, b.memberEpoch);
  });

  test("Kafka's INVALID_REQUEST texts", () => {
    const { c, topics } = setup();
    assert.deepEqual(heartbeatError(c, topics, { memberId: '', subscribedTopicNames: ['t'] }), [
      ErrorCode.INVALID_REQUEST,
      "MemberId can't be empty.",
    ]);
    assert.deepEqual(heartbeatError(c, topics, { groupId: '', subscribedTopicNames: ['t'] }), [
      ErrorCode.INVALID_REQUEST,
      "GroupId can't be empty.",
    ]);
    assert.deepEqual(heartbeatError(c, topics, { rackId: '', subscribedTopicNames: ['t'] }), [
      ErrorCode.INVALID_REQUEST,
      "RackId can't be empty.",
    ]);
    assert.deepEqual(heartbeatError(c, topics, { subscribedTopicNames: [] }), [
      ErrorCode.INVALID_REQUEST,
      'SubscribedTopicNames must be set in first request.',
    ]);
    assert.deepEqual(heartbeatError(c, topics, { memberEpoch: -2 }), [ErrorCode.INVALID_REQUEST, 'MemberEpoch is invalid.']);
  });

  test('unknown group, unknown member, fenced epochs; the previous epoch is accepted', () => {
    const { c, topics, client } = setup();
    topics.add('t', 1);
    assert.deepEqual(heartbeatError(c, topics, { memberEpoch: 3 }), [
      ErrorCode.GROUP_ID_NOT_FOUND,
      `Share group ${SHARE_GROUP} not found.`,
    ]);
    const a = client('a');
    a.join(0);
    a.initializeAll();
    a.heartbeat(1);
    assert.equal(a.memberEpoch, 2);
    assert.deepEqual(heartbeatError(c, topics, { memberId: 'b', memberEpoch: 2 }), [
      ErrorCode.UNKNOWN_MEMBER_ID,
      `Member b is not a member of group ${SHARE_GROUP}.`,
    ]);
    const [code, message] = heartbeatError(c, topics, { memberId: 'a', memberEpoch: 3 });
    assert.equal(code, ErrorCode.FENCED_MEMBER_EPOCH);
    assert.match(String(message), /greater member epoch \(3\)/);
    assert.equal(heartbeatError(c, topics, { memberId: 'a', memberEpoch: 1 })[0], ErrorCode.NONE, 'the previous epoch: the bump was lost');
    assert.equal(
      heartbeatError(c, topics, { memberId: 'a', memberEpoch: 0, subscribedTopicNames: ['t'] })[0],
      ErrorCode.FENCED_MEMBER_EPOCH,
    );
  });

  test('group.share.max.size', () => {
    const { c, topics, client } = setup({ shareGroupMaxSize: 1 });
    topics.add('t', 1);
    client('a').join(0);
    assert.deepEqual(heartbeatError(c, topics, { memberId: 'b', subscribedTopicNames: ['t'] }), [
      ErrorCode.GROUP_MAX_SIZE_REACHED,
      'The share group has reached its maximum capacity of 1 members.',
    ]);
  });

  test('leave (-1) removes the member and bumps the group epoch; its partitions go to the others', () => {
    const { c, topics, client } = setup();
    const tId = topics.add('t', 2);
    const a = client('a');
    const b = client('b');
    a.join(0);
    a.initializeAll();
    b.join(1);
    a.heartbeat(2);
    assert.equal(a.assigned.length + b.assigned.length, 2);
    const left = b.leave(3);
    assert.deepEqual([left.errorCode, left.memberEpoch], [0, -1]);
    a.heartbeat(4);
    assert.deepEqual(a.assigned, [
      [tId, 0],
      [tId, 1],
    ]);
    const described = c.shareGroupDescribe({ groupIds: [SHARE_GROUP], includeAuthorizedOperations: false }, topics).groups![0]!;
    assert.deepEqual(
      described.members!.map((m) => m.memberId),
      ['a'],
    );
  });

  test('a subscription change moves the member to the new topics', () => {
    const { topics, client } = setup();
    const tId = topics.add('t', 1);
    const uId = topics.add('u', 1);
    const a = client('a', ['t', 'u']);
    a.join(0);
    a.initializeAll();
    a.heartbeat(1);
    assert.deepEqual(a.assigned, [
      [tId, 0],
      [uId, 0],
    ]);
    a.heartbeat(2, { subscribedTopicNames: ['u'] });
    assert.deepEqual(a.assigned, [[uId, 0]]);
  });

  test('partitions added to a topic are initialized, then assigned', () => {
    const { topics, client } = setup();
    const tId = topics.add('t', 1);
    const a = client('a');
    a.join(0);
    a.initializeAll();
    a.heartbeat(1);
    topics.add('t', 3);
    a.heartbeat(2);
    assert.deepEqual(
      a.pending.map((i) => i.partitions.map((p) => p.partition)),
      [[1, 2]],
    );
    a.initializeAll();
    a.heartbeat(3);
    assert.deepEqual(a.assigned, [
      [tId, 0],
      [tId, 1],
      [tId, 2],
    ]);
  });

  test('a topic deleted and recreated under its name: its new partitions are initialized, and the epoch settles', () => {
    const { c, topics, client } = setup();
    topics.add('t', 1);
    const a = client('a');
    a.join(0);
    a.initializeAll();
    a.heartbeat(1);
    const recreated = { name: 't', topicId: 'RECREATEDAAAAAAAAAAAAA', partitionCount: 1, internal: false };
    const image = {
      topic: (n: string) => (n === 't' ? recreated : undefined),
      topicById: (id: string) => (id === recreated.topicId ? recreated : undefined),
      topics: () => [recreated],
    };
    const beat = (epoch: number) =>
      c.shareGroupHeartbeat(shareHb({ memberId: 'a', memberEpoch: epoch }), { ...CTX, now: 2, topics: image }).response;
    const first = beat(a.memberEpoch);
    assert.deepEqual(first.initialize?.partitions, [{ topicId: recreated.topicId, partition: 0, startOffset: -1n }]);
    const settled = first.response.memberEpoch!;
    assert.equal(beat(settled).response.memberEpoch, settled, 'no epoch bump on every heartbeat');
  });

  test('a failed initialization is retried by the next heartbeat; an unanswered one after group.share.initialize.retry.interval.ms', () => {
    const { c, topics, log, client } = setup({ shareGroupInitializeRetryIntervalMs: 10_000 });
    const tId = topics.add('t', 1);
    const a = client('a');
    a.join(0);
    const first = a.pending.splice(0);
    assert.equal(first.length, 1);
    log.push(...c.uninitializeShareGroupState(SHARE_GROUP, assignmentOfPairs([[tId, 0]])).records);
    a.heartbeat(1);
    assert.equal(a.pending.length, 1, 'failed partitions are asked for again');
    a.pending.splice(0);
    a.heartbeat(5_000);
    assert.equal(a.pending.length, 0, 'still being initialized');
    a.heartbeat(12_000);
    assert.equal(a.pending.length, 1, 'lost: asked for again');
  });

  test('a silent member is fenced after group.share.session.timeout.ms', () => {
    const { c, topics, client } = setup();
    topics.add('t', 1);
    client('a').join(0);
    c.tick(44_999);
    assert.equal(c.listGroups({ statesFilter: [], typesFilter: [] }).groups![0]!.groupState, 'Stable');
    c.tick(45_000);
    assert.equal(c.listGroups({ statesFilter: [], typesFilter: [] }).groups![0]!.groupState, 'Empty');
  });

  test("a group's share.session.timeout.ms and share.heartbeat.interval.ms override the broker's", () => {
    const { c, topics, client } = setup({}, { shareSessionTimeoutMs: 60_000, shareHeartbeatIntervalMs: 7_000 });
    topics.add('t', 1);
    assert.equal(client('a').join(0).heartbeatIntervalMs, 7_000);
    c.tick(45_000);
    assert.equal(c.listGroups({ statesFilter: [], typesFilter: [] }).groups![0]!.groupState, 'Stable');
    c.tick(60_000);
    assert.equal(c.listGroups({ statesFilter: [], typesFilter: [] }).groups![0]!.groupState, 'Empty');
  });
});

describe('share groups among the other group types', () => {
  test('a group id is a classic, consumer or share group, never two', () => {
    const { c, topics, client } = setup();
    topics.add('t', 1);
    c.consumerGroupHeartbeat(
      hbRequest({ groupId: 'cg', memberId: 'x', rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['t'], topicPartitions: [] }),
      { apiVersion: 1, ...CTX, now: 0, topics },
    );
    assert.deepEqual(heartbeatError(c, topics, { groupId: 'cg', subscribedTopicNames: ['t'] }), [
      ErrorCode.GROUP_ID_NOT_FOUND,
      'Group cg is not a share group.',
    ]);
    client('a').join(0);
    const consumer = c.consumerGroupHeartbeat(
      hbRequest({ groupId: SHARE_GROUP, memberId: 'x', rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['t'], topicPartitions: [] }),
      { apiVersion: 1, ...CTX, now: 0, topics },
    );
    assert.deepEqual(
      [consumer.response.errorCode, consumer.response.errorMessage],
      [ErrorCode.GROUP_ID_NOT_FOUND, `Group ${SHARE_GROUP} is not a consumer group.`],
    );
    const join = c.joinGroup(joinRequest({ groupId: SHARE_GROUP }), {
      apiVersion: JOIN_VERSION,
      clientId: 'c',
      clientHost: '/h',
      now: 0,
      replyTo: 'r',
    });
    assert.equal(join.response?.errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
    const describedAsShare = c.shareGroupDescribe({ groupIds: ['cg', 'none'], includeAuthorizedOperations: false }, topics).groups!;
    assert.deepEqual(
      describedAsShare.map((g) => [g.errorCode, g.errorMessage]),
      [
        [ErrorCode.GROUP_ID_NOT_FOUND, 'Group cg is not a share group.'],
        [ErrorCode.GROUP_ID_NOT_FOUND, 'Group none not found.'],
      ],
    );
  });

  test('committed offsets are refused for a share group, which stays the only group of its id', () => {
    const { c, topics, client } = setup();
    topics.add('t', 1);
    client('a').join(0);
    const commit = c.commitOffsets(commitRequest(-1, '', [{ topic: 't', partition: 0, offset: 5n }], SHARE_GROUP), 9, 0);
    assert.deepEqual(commit.records, []);
    assert.deepEqual(
      commit.response.topics!.map((t) => t.partitions!.map((p) => p.errorCode)),
      [[ErrorCode.GROUP_ID_NOT_FOUND]],
    );
    const fetched = c.fetchOffsets(
      { groupId: '', topics: [], groups: [{ groupId: SHARE_GROUP, memberId: null, memberEpoch: -1, topics: null }], requireStable: false },
      9,
    );
    assert.equal(fetched.groups![0]!.errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
    assert.equal(c.deleteOffsets({ groupId: SHARE_GROUP, topics: [] }).response.errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
    assert.deepEqual(
      c.listGroups({ statesFilter: [], typesFilter: [] }).groups!.map((g) => g.groupType),
      ['share'],
    );
  });

  test('ListGroups shows share groups with their type and state; DescribeGroups says they are not classic', () => {
    const { c, topics, client } = setup();
    topics.add('t', 1);
    client('a').join(0);
    assert.deepEqual(c.listGroups({ statesFilter: [], typesFilter: ['share'] }).groups, [
      { groupId: SHARE_GROUP, protocolType: 'share', groupState: 'Stable', groupType: 'share' },
    ]);
    assert.deepEqual(c.listGroups({ statesFilter: ['empty'], typesFilter: [] }).groups, []);
    assert.deepEqual(c.listGroups({ statesFilter: [], typesFilter: ['consumer'] }).groups, []);
    const described = c.describeGroups({ groups: [SHARE_GROUP], includeAuthorizedOperations: false }, 6).groups![0]!;
    assert.deepEqual(
      [described.errorCode, described.errorMessage, described.groupState],
      [ErrorCode.GROUP_ID_NOT_FOUND, `Group ${SHARE_GROUP} is not a classic group.`, 'Dead'],
    );
  });

  test('ShareGroupDescribe: state, epochs, assignor and members with their assignments', () => {
    const { c, topics, client } = setup();
    const tId = topics.add('t', 1);
    const a = client('a');
    a.join(0);
    a.initializeAll();
    a.heartbeat(1, { rackId: 'r1' });
    assert.deepEqual(c.shareGroupDescribe({ groupIds: [SHARE_GROUP], includeAuthorizedOperations: false }, topics).groups, [
      {
        groupId: SHARE_GROUP,
        errorCode: 0,
        groupState: 'Stable',
        groupEpoch: 2,
        assignmentEpoch: 2,
        assignorName: 'simple',
        members: [
          {
            memberId: 'a',
            rackId: 'r1',
            memberEpoch: 2,
            clientId: 'cli',
            clientHost: '/127.0.0.1',
            subscribedTopicNames: ['t'],
            assignment: { topicPartitions: [{ topicId: tId, topicName: 't', partitions: [0] }] },
          },
        ],
      },
    ]);
  });
});

describe('share group records', () => {
  test('replaying the log rebuilds the same groups, members, assignments and share-partition state', () => {
    const { c, topics, log, client } = setup();
    topics.add('t', 2);
    const a = client('a');
    const b = client('b');
    a.join(0);
    a.initializeAll();
    b.join(1);
    a.heartbeat(2);
    b.heartbeat(3);
    const copy = replayed(log);
    const req = { groupIds: [SHARE_GROUP], includeAuthorizedOperations: false };
    assert.deepEqual(copy.shareGroupDescribe(req, topics), c.shareGroupDescribe(req, topics));
    assert.deepEqual(copy.shareGroupInitializedPartitions(SHARE_GROUP), c.shareGroupInitializedPartitions(SHARE_GROUP));
    assert.deepEqual(copy.listGroups({ statesFilter: [], typesFilter: [] }), c.listGroups({ statesFilter: [], typesFilter: [] }));
    // The member keeps its epoch across the reload: its next heartbeat is accepted.
    const next = copy.shareGroupHeartbeat(shareHb({ memberId: 'a', memberEpoch: a.memberEpoch }), { ...CTX, now: 4, topics }).response
      .response;
    assert.equal(next.errorCode, 0);
  });

  test('share group records use Kafka record types 10 to 15', () => {
    const { topics, log, client } = setup();
    topics.add('t', 1);
    const a = client('a');
    a.join(0);
    a.initializeAll();
    const types = new Set(log.map((r) => r.key.readInt16BE(0)));
    assert.deepEqual(
      [...types].sort((x, y) => x - y),
      [10, 11, 12, 13, 14, 15],
    );
  });
});

describe('share group admin steps', () => {
  test('DeleteGroups: a group with members is refused; an empty one hands out its share-partitions, then is tombstoned', () => {
    const { c, topics, log, client } = setup();
    const tId = topics.add('t', 2);
    const a = client('a');
    a.join(0);
    a.initializeAll();
    assert.throws(
      () => c.prepareShareGroupDeletion(SHARE_GROUP, topics),
      (e: unknown) => e instanceof KafkaError && e.code === ErrorCode.NON_EMPTY_GROUP,
    );
    assert.equal(c.deleteGroups({ groupsNames: [SHARE_GROUP] }).response.results![0]!.errorCode, ErrorCode.NON_EMPTY_GROUP);
    a.leave(1);
    const prepared = c.prepareShareGroupDeletion(SHARE_GROUP, topics);
    log.push(...prepared.records);
    assert.deepEqual(prepared.response, [{ topicId: tId, topicName: 't', partitions: [0, 1] }]);
    const deleted = c.deleteGroups({ groupsNames: [SHARE_GROUP] });
    log.push(...deleted.records);
    assert.equal(deleted.response.results![0]!.errorCode, 0);
    assert.deepEqual(c.listGroups({ statesFilter: [], typesFilter: [] }).groups, []);
    assert.deepEqual(replayed(log).listGroups({ statesFilter: [], typesFilter: [] }).groups, []);
    assert.equal(c.prepareShareGroupDeletion('classic-or-none', topics).response, null);
  });

  test('AlterShareGroupOffsets: creates an absent group, refuses one with members, marks the partitions initializing at the new offsets', () => {
    const { c, topics, client } = setup();
    const tId = topics.add('t', 2);
    const plan = c.alterShareGroupOffsets(
      {
        groupId: 'new',
        topics: [
          {
            topicName: 't',
            partitions: [
              { partitionIndex: 1, startOffset: 7n },
              { partitionIndex: 5, startOffset: 1n },
            ],
          },
          { topicName: 'nope', partitions: [{ partitionIndex: 0, startOffset: 0n }] },
        ],
      },
      topics,
      0,
    );
    assert.deepEqual(plan.response.initialize.partitions, [{ topicId: tId, partition: 1, startOffset: 7n }]);
    assert.deepEqual(
      plan.response.responses.map((t) => [t.topicName, t.partitions!.map((p) => [p.partitionIndex, p.errorCode])]),
      [
        [
          't',
          [
            [1, 0],
            [5, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
          ],
        ],
        ['nope', [[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]],
      ],
    );
    assert.deepEqual(
      c.listGroups({ statesFilter: [], typesFilter: ['share'] }).groups!.map((g) => [g.groupId, g.groupState]),
      [['new', 'Empty']],
    );
    client('a').join(0);
    assert.throws(
      () => c.alterShareGroupOffsets({ groupId: SHARE_GROUP, topics: [] }, topics, 1),
      (e: unknown) => e instanceof KafkaError && e.code === ErrorCode.NON_EMPTY_GROUP,
    );
  });

  test('DeleteShareGroupOffsets: initialized topics are deleted; unknown topics and topics without state are answered at once', () => {
    const { c, topics, client } = setup();
    const tId = topics.add('t', 1);
    topics.add('u', 1);
    const a = client('a');
    a.join(0);
    a.initializeAll();
    assert.throws(
      () => c.deleteShareGroupOffsets({ groupId: SHARE_GROUP, topics: [{ topicName: 't' }] }, topics),
      (e: unknown) => e instanceof KafkaError && e.code === ErrorCode.NON_EMPTY_GROUP,
    );
    a.leave(1);
    const plan = c.deleteShareGroupOffsets(
      { groupId: SHARE_GROUP, topics: [{ topicName: 't' }, { topicName: 'u' }, { topicName: 'gone' }] },
      topics,
    ).response;
    assert.deepEqual(plan.deletions, [{ topicId: tId, topicName: 't', partitions: [0] }]);
    assert.deepEqual(
      plan.refused.map((t) => [t.topicName, t.errorCode, t.errorMessage]),
      [
        ['u', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'There is no offset information to delete.'],
        ['gone', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'This server does not host this topic-partition.'],
      ],
    );
    assert.equal(c.shareGroupInitializedPartitions(SHARE_GROUP).size, 0);
    assert.throws(
      () => c.deleteShareGroupOffsets({ groupId: 'none', topics: [] }, topics),
      (e: unknown) => e instanceof KafkaError && e.code === ErrorCode.GROUP_ID_NOT_FOUND,
    );
  });
});
