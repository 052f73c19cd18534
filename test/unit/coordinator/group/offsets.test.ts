import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { decodeRecord } from '../../../../src/coordinator/group/records.js';
import { ZERO_UUID } from '@sluice/protocol/common/uuid.js';
import { GROUP, commitRequest, joinCtx, joinRequest, newCoordinator, stableGroup, subscription } from './harness.js';

const errors = (r: { topics?: Array<{ partitions?: Array<{ errorCode?: number }> }> }) =>
  (r.topics ?? []).flatMap((t) => (t.partitions ?? []).map((p) => p.errorCode));

test('commit then fetch round-trips offset, leader epoch and metadata (v7 and v8 shapes, all partitions)', () => {
  const c = newCoordinator();
  const {
    members: [a],
    generation,
  } = stableGroup(c, 1);
  const commit = c.commitOffsets(
    commitRequest(generation, a!, [
      { topic: 't1', partition: 0, offset: 42n, metadata: 'hello', leaderEpoch: 7 },
      { topic: 't1', partition: 1, offset: 5n, metadata: null },
      { topic: 't2', partition: 3, offset: 9n },
    ]),
    8,
    100,
  );
  assert.deepEqual(errors(commit.response), [0, 0, 0]);
  assert.equal(commit.records.length, 3);

  const v7 = c.fetchOffsets({ groupId: GROUP, topics: [{ name: 't1', partitionIndexes: [0, 1, 2] }], groups: [], requireStable: true }, 7);
  assert.deepEqual(v7, {
    errorCode: 0,
    topics: [
      {
        name: 't1',
        partitions: [
          { partitionIndex: 0, committedOffset: 42n, committedLeaderEpoch: 7, metadata: 'hello' },
          { partitionIndex: 1, committedOffset: 5n, committedLeaderEpoch: -1, metadata: '' },
          { partitionIndex: 2, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '' },
        ],
      },
    ],
  });
  const v8 = c.fetchOffsets(
    {
      groupId: '',
      topics: null,
      groups: [
        { groupId: GROUP, memberId: null, memberEpoch: -1, topics: null },
        { groupId: 'unknown', memberId: null, memberEpoch: -1, topics: null },
      ],
      requireStable: false,
    },
    8,
  );
  const groups = v8.groups ?? [];
  assert.deepEqual(
    groups.map((g) => [g.groupId, g.errorCode, (g.topics ?? []).map((t) => [t.name, (t.partitions ?? []).map((p) => p.committedOffset)])]),
    [
      [
        GROUP,
        0,
        [
          ['t1', [42n, 5n]],
          ['t2', [9n]],
        ],
      ],
      ['unknown', 0, []],
    ],
  );
});

test('simple consumers (generation -1) commit to an Empty or unknown group', () => {
  const c = newCoordinator();
  const r = c.commitOffsets(commitRequest(-1, '', [{ topic: 't', partition: 0, offset: 1n }], 'simple'), 8, 0);
  assert.deepEqual(errors(r.response), [ErrorCode.NONE]);
  assert.equal(c.listGroups({ statesFilter: [], typesFilter: [] }).groups?.[0]?.groupState, 'Empty');
  assert.deepEqual(errors(c.commitOffsets(commitRequest(-1, '', [{ topic: 't', partition: 0, offset: 2n }], 'simple'), 8, 1).response), [
    ErrorCode.NONE,
  ]);
});

test('commit fencing: stale generation, unknown member, memberless commit to a live group, unknown group, rebalance', () => {
  const c = newCoordinator();
  const {
    members: [a],
    generation,
  } = stableGroup(c, 1);
  const commit = (gen: number, member: string, version = 8, group = GROUP) =>
    errors(c.commitOffsets(commitRequest(gen, member, [{ topic: 't', partition: 0, offset: 1n }], group), version, 10).response)[0];
  assert.equal(commit(generation - 1, a!), ErrorCode.ILLEGAL_GENERATION);
  assert.equal(commit(generation, 'ghost'), ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal(commit(-1, ''), ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal(commit(3, 'm', 8, 'nope'), ErrorCode.ILLEGAL_GENERATION);
  assert.equal(commit(3, 'm', 9, 'nope'), ErrorCode.GROUP_ID_NOT_FOUND);
  assert.equal(commit(generation, a!), ErrorCode.NONE);
  // The leader rejoins: the group prepares a rebalance, then completes the join — commits wait for the assignment.
  c.joinGroup(joinRequest({ memberId: a! }), joinCtx(20, 'j'));
  assert.equal(commit(generation + 1, a!), ErrorCode.REBALANCE_IN_PROGRESS);
});

test('metadata longer than offset.metadata.max.bytes is refused per partition', () => {
  const c = newCoordinator({ offsetMetadataMaxBytes: 4 });
  const r = c.commitOffsets(
    commitRequest(-1, '', [
      { topic: 't', partition: 0, offset: 1n, metadata: 'abcd' },
      { topic: 't', partition: 1, offset: 1n, metadata: 'abcde' },
    ]),
    8,
    0,
  );
  assert.deepEqual(errors(r.response), [ErrorCode.NONE, ErrorCode.OFFSET_METADATA_TOO_LARGE]);
  assert.equal(r.records.length, 1);
});

test('offsets expire after retention: tombstones for the offsets, then for the group', () => {
  const c = newCoordinator({ offsetsRetentionMs: 1000, offsetsRetentionCheckIntervalMs: 100 });
  c.loaded(0);
  c.commitOffsets(commitRequest(-1, '', [{ topic: 't', partition: 0, offset: 1n }], 'simple'), 8, 0);
  c.commitOffsets(commitRequest(-1, '', [{ topic: 't', partition: 1, offset: 1n }], 'simple'), 8, 500);
  const first = c.tick(1000);
  const decoded = first.records.map((r) => decodeRecord(r.key, r.value));
  assert.deepEqual(decoded, [{ type: 'offset-commit', key: { group: 'simple', topic: 't', partition: 0 }, value: null }]);
  const second = c.tick(1500).records.map((r) => decodeRecord(r.key, r.value));
  assert.deepEqual(second, [
    { type: 'offset-commit', key: { group: 'simple', topic: 't', partition: 1 }, value: null },
    { type: 'group-metadata', group: 'simple', value: null },
  ]);
  assert.deepEqual(c.listGroups({ statesFilter: [], typesFilter: [] }).groups, []);
});

test('a consumer group that fell Empty keeps its offsets for the retention period from that moment', () => {
  const c = newCoordinator({ offsetsRetentionMs: 10_000, offsetsRetentionCheckIntervalMs: 1000 });
  c.loaded(0);
  const {
    members: [a],
    generation,
    now,
  } = stableGroup(c, 1);
  c.commitOffsets(commitRequest(generation, a!, [{ topic: 't1', partition: 0, offset: 3n }]), 8, now);
  // Subscribed topics of a Stable group never expire.
  assert.deepEqual(c.tick(now + 9_000).records, []);
  c.leaveGroup({ groupId: GROUP, memberId: '', members: [{ memberId: a!, groupInstanceId: null, reason: null }] }, 5, now + 9_000);
  assert.equal(c.tick(now + 18_000).records.length, 0);
  const expired = c.tick(now + 20_000).records.map((r) => decodeRecord(r.key, r.value).type);
  assert.deepEqual(expired, ['offset-commit', 'group-metadata']);
});

test('DeleteGroups: NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND, and tombstones for an Empty group', () => {
  const c = newCoordinator();
  stableGroup(c, 1);
  c.commitOffsets(
    commitRequest(
      -1,
      '',
      [
        { topic: 't', partition: 0, offset: 1n },
        { topic: 't', partition: 1, offset: 1n },
      ],
      'simple',
    ),
    8,
    0,
  );
  const r = c.deleteGroups({ groupsNames: [GROUP, 'missing', 'simple', ''] });
  assert.deepEqual(
    r.response.results?.map((x) => x.errorCode),
    [ErrorCode.NON_EMPTY_GROUP, ErrorCode.GROUP_ID_NOT_FOUND, ErrorCode.NONE, ErrorCode.INVALID_GROUP_ID],
  );
  assert.deepEqual(
    r.records.map((x) => [decodeRecord(x.key, x.value).type, x.value]),
    [
      ['offset-commit', null],
      ['offset-commit', null],
      ['group-metadata', null],
    ],
  );
  const after = c.fetchOffsets({ groupId: 'simple', topics: [{ name: 't', partitionIndexes: [0] }], groups: [], requireStable: false }, 7);
  assert.equal(after.topics?.[0]?.partitions?.[0]?.committedOffset, -1n);
});

test('OffsetDelete: GROUP_SUBSCRIBED_TO_TOPIC for subscribed topics, NON_EMPTY_GROUP for a live non-consumer group', () => {
  const c = newCoordinator();
  const {
    members: [a],
    generation,
  } = stableGroup(c, 1);
  c.commitOffsets(
    commitRequest(generation, a!, [
      { topic: 't1', partition: 0, offset: 1n },
      { topic: 'other', partition: 0, offset: 1n },
    ]),
    8,
    10,
  );
  const r = c.deleteOffsets({
    groupId: GROUP,
    topics: [
      { name: 't1', partitions: [{ partitionIndex: 0 }] },
      { name: 'other', partitions: [{ partitionIndex: 0 }, { partitionIndex: 5 }] },
    ],
  });
  assert.deepEqual(errors(r.response), [ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC, ErrorCode.NONE, ErrorCode.NONE]);
  assert.equal(r.records.length, 1, 'a tombstone only where an offset existed');
  assert.equal(c.deleteOffsets({ groupId: 'missing', topics: [] }).response.errorCode, ErrorCode.GROUP_ID_NOT_FOUND);

  const connect = newCoordinator();
  const id = String(
    connect.joinGroup(
      joinRequest({ groupId: 'cg', protocolType: 'connect', protocols: [{ name: 'v1', metadata: subscription([]) }] }),
      joinCtx(0, 'x'),
    ).response?.memberId,
  );
  connect.joinGroup(
    joinRequest({ groupId: 'cg', memberId: id, protocolType: 'connect', protocols: [{ name: 'v1', metadata: subscription([]) }] }),
    joinCtx(0, 'j'),
  );
  assert.equal(connect.deleteOffsets({ groupId: 'cg', topics: [] }).response.errorCode, ErrorCode.NON_EMPTY_GROUP);
});

test('OffsetCommit v2-v4 retention time: an explicit expiry, written as OffsetCommitValue v1', () => {
  const c = newCoordinator();
  c.loaded(0);
  const r = c.commitOffsets({ ...commitRequest(-1, '', [{ topic: 't', partition: 0, offset: 1n }], 's'), retentionTimeMs: 50n }, 2, 1000);
  assert.equal(r.records[0]!.value!.readInt16BE(0), 1);
  const v = decodeRecord(r.records[0]!.key, r.records[0]!.value);
  assert.ok(v.type === 'offset-commit' && v.value !== null);
  assert.equal(v.value.expireTimestamp, 1050n);
  assert.equal(v.value.topicId, ZERO_UUID);
});

test('committedOffsets lists every group kind, drops deleted offsets, and is rebuilt by replay', () => {
  const c = newCoordinator();
  const {
    members: [a],
    generation,
  } = stableGroup(c, 1);
  const log = [
    ...c.commitOffsets(
      commitRequest(generation, a!, [
        { topic: 't1', partition: 0, offset: 42n },
        { topic: 'other', partition: 2, offset: 7n },
      ]),
      8,
      10,
    ).records,
    ...c.commitOffsets(commitRequest(-1, '', [{ topic: 't1', partition: 0, offset: 3n }], 'simple'), 8, 11).records,
    ...c.deleteOffsets({ groupId: GROUP, topics: [{ name: 'other', partitions: [{ partitionIndex: 2 }] }] }).records,
  ];
  const expected = [
    { group: GROUP, topic: 't1', partition: 0, offset: 42n },
    { group: 'simple', topic: 't1', partition: 0, offset: 3n },
  ];
  assert.deepEqual(c.committedOffsets(), expected);
  const replayed = newCoordinator();
  for (const r of log) replayed.replay(r.key, r.value);
  assert.deepEqual(replayed.committedOffsets(), expected);
});
