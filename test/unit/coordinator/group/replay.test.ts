import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeRecord, type CoordinatorRecord } from '../../../../src/coordinator/group/records.js';
import type { GroupCoordinator } from '../../../../src/coordinator/group/group-coordinator.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { GROUP, commitRequest, joinCtx, joinRequest, newCoordinator, stableGroup } from './harness.js';

/** Every answer a restarted coordinator must give exactly as before. */
function snapshot(c: GroupCoordinator<string>) {
  return {
    fetchAll: c.fetchOffsets(
      {
        groupId: '',
        topics: null,
        groups: [GROUP, 'simple', 'gone'].map((groupId) => ({ groupId, memberId: null, memberEpoch: -1, topics: null })),
        requireStable: true,
      },
      9,
    ),
    fetchSome: c.fetchOffsets(
      { groupId: GROUP, topics: [{ name: 't1', partitionIndexes: [0, 1, 9] }], groups: [], requireStable: false },
      5,
    ),
    describe: c.describeGroups({ groups: [GROUP, 'simple', 'gone'], includeAuthorizedOperations: false }, 6),
    list: c.listGroups({ statesFilter: [], typesFilter: [] }),
  };
}

test('replaying the emitted records into a new coordinator gives identical OffsetFetch/DescribeGroups/ListGroups answers', () => {
  const c = newCoordinator();
  const log: CoordinatorRecord[] = [];
  const keep = <R extends { records: CoordinatorRecord[] }>(r: R): R => (log.push(...r.records), r);
  // A group that rebalanced and committed, a simple consumer, an OffsetDelete and a deleted group.
  const first = keep(c.joinGroup(joinRequest(), joinCtx(0, 'x0', 'c0')));
  const a = String(first.response?.memberId);
  keep(c.joinGroup(joinRequest({ memberId: a }), joinCtx(0, 'ja', 'c0')));
  keep(c.tick(3000));
  keep(
    c.syncGroup(
      {
        groupId: GROUP,
        generationId: 1,
        memberId: a,
        groupInstanceId: null,
        protocolType: 'consumer',
        protocolName: 'range',
        assignments: [{ memberId: a, assignment: Buffer.from('assigned') }],
      },
      { now: 3001, replyTo: 's' },
    ),
  );
  keep(
    c.commitOffsets(
      commitRequest(1, a, [
        { topic: 't1', partition: 0, offset: 10n, metadata: 'm0', leaderEpoch: 2 },
        { topic: 't1', partition: 1, offset: 11n },
      ]),
      8,
      3002,
    ),
  );
  keep(c.commitOffsets(commitRequest(1, a, [{ topic: 't1', partition: 0, offset: 12n, metadata: 'm1', leaderEpoch: 3 }]), 8, 3003));
  keep(
    c.commitOffsets(
      commitRequest(
        -1,
        '',
        [
          { topic: 'x', partition: 0, offset: 1n },
          { topic: 'x', partition: 1, offset: 2n },
        ],
        'simple',
      ),
      8,
      3004,
    ),
  );
  keep(c.deleteOffsets({ groupId: 'simple', topics: [{ name: 'x', partitions: [{ partitionIndex: 1 }] }] }));
  keep(c.commitOffsets(commitRequest(-1, '', [{ topic: 'y', partition: 0, offset: 1n }], 'gone'), 8, 3005));
  keep(c.deleteGroups({ groupsNames: ['gone'] }));

  const before = snapshot(c);
  const restarted = newCoordinator();
  for (const r of log) restarted.replay(r.key, r.value);
  restarted.loaded(10_000);
  assert.deepEqual(snapshot(restarted), before);
  assert.equal(before.describe.groups?.[0]?.members?.[0]?.memberAssignment?.toString(), 'assigned');

  // The reloaded member is live: its session starts at load time.
  assert.equal(
    restarted.heartbeat({ groupId: GROUP, generationId: 1, memberId: a, groupInstanceId: null }, 10_001).response.errorCode,
    ErrorCode.NONE,
  );
});

test("record keys and values carry Kafka's versions", () => {
  const c = newCoordinator();
  const {
    members: [a],
    generation,
  } = stableGroup(c, 1);
  const commit = c.commitOffsets(commitRequest(generation, a!, [{ topic: 't', partition: 0, offset: 1n }]), 8, 0).records[0]!;
  assert.equal(commit.key.readInt16BE(0), 1, 'OffsetCommitKey record type');
  assert.equal(commit.value!.readInt16BE(0), 3, 'OffsetCommitValue v3');
  const meta = c.joinGroup(joinRequest({ groupId: 'new' }), joinCtx(0, 'j')).records[0]!;
  assert.equal(meta.key.readInt16BE(0), 2, 'GroupMetadataKey record type');
  assert.equal(meta.value!.readInt16BE(0), 3, 'GroupMetadataValue v3');
  // Legacy key type 0 shares the layout.
  const legacy = Buffer.from(commit.key);
  legacy.writeInt16BE(0, 0);
  assert.equal(decodeRecord(legacy, null).type, 'offset-commit');
  const other = Buffer.from([0, 3, 0, 0]);
  assert.deepEqual(decodeRecord(other, null), { type: 'other', recordType: 3 });
});
