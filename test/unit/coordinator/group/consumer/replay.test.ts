import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CoordinatorRecord } from '../../../../../src/coordinator/group/records.js';
import type { GroupCoordinator } from '../../../../../src/coordinator/group/group-coordinator.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { Client, FakeTopics, GROUP, newCoordinator, settle, doubleOwned } from './harness.js';

function replayed(log: readonly CoordinatorRecord[]): GroupCoordinator<string> {
  const c = newCoordinator();
  for (const r of log) c.replay(r.key, r.value);
  c.loaded(1_000);
  return c;
}

test('a reloaded coordinator has the same members, epochs and assignments, and the members carry on', () => {
  const topics = new FakeTopics();
  topics.add('t', 4);
  const c = newCoordinator();
  const log: CoordinatorRecord[] = [];
  const a = new Client(c, topics, 'a', log);
  const b = new Client(c, topics, 'b', log, { subscribedTopicNames: ['t'], instanceId: 'sb' });
  const gone = new Client(c, topics, 'gone', log);
  a.join(0);
  b.join(0);
  gone.join(0);
  const check = (cs: readonly Client[]) => assert.deepEqual(doubleOwned(cs), []);
  settle([a, b, gone], 1, check);
  gone.leave(2);
  // Mid-rebalance: the survivors have not yet taken gone's partitions.
  a.heartbeat(3);
  a.heartbeat(4, { topicPartitions: [] });
  const describe = (x: GroupCoordinator<string>) =>
    x.consumerGroupDescribe({ groupIds: [GROUP], includeAuthorizedOperations: false }, topics);
  const list = (x: GroupCoordinator<string>) => x.listGroups({ statesFilter: [], typesFilter: [] });
  const fetch = (x: GroupCoordinator<string>) =>
    x.fetchOffsets(
      { groupId: '', topics: null, groups: [{ groupId: GROUP, memberId: null, memberEpoch: -1, topics: null }], requireStable: false },
      9,
    );
  const commitRecords = c.commitOffsets(
    {
      groupId: GROUP,
      generationIdOrMemberEpoch: a.memberEpoch,
      memberId: 'a',
      groupInstanceId: null,
      retentionTimeMs: -1n,
      topics: [
        {
          name: 't',
          topicId: '',
          partitions: [{ partitionIndex: 1, committedOffset: 42n, committedLeaderEpoch: -1, committedMetadata: 'm' }],
        },
      ],
    },
    9,
    5,
  ).records;
  const r = replayed([...log, ...commitRecords]);
  assert.deepEqual(describe(r), describe(c));
  assert.deepEqual(list(r), list(c));
  assert.deepEqual(fetch(r), fetch(c));
  assert.equal(list(r).groups![0]!.groupState, 'Reconciling');
  // The members go on against the reloaded coordinator with their epochs.
  const a2 = Object.assign(new Client(r, topics, 'a', []), { memberEpoch: a.memberEpoch, owned: a.owned });
  const b2 = Object.assign(new Client(r, topics, 'b', [], { subscribedTopicNames: ['t'], instanceId: 'sb' }), {
    memberEpoch: b.memberEpoch,
    owned: b.owned,
  });
  settle([a2, b2], 1_001, check);
  assert.equal(a2.partitions().length + b2.partitions().length, 4);
  assert.equal(describe(r).groups![0]!.groupState, 'Stable');
  // Sessions restarted at load: nothing heard from either for the session timeout fences both.
  r.tick(1_001 + 45_000);
  assert.equal(describe(r).groups![0]!.members!.length, 0);
  assert.equal(a2.heartbeat(50_000).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
});

test('DeleteGroups of an empty consumer group tombstones it so a replay forgets it', () => {
  const topics = new FakeTopics();
  topics.add('t', 1);
  const c = newCoordinator();
  const log: CoordinatorRecord[] = [];
  const a = new Client(c, topics, 'a', log);
  a.join(0);
  assert.equal(c.deleteGroups({ groupsNames: [GROUP] }).response.results![0]!.errorCode, ErrorCode.NON_EMPTY_GROUP);
  a.leave(1);
  const del = c.deleteGroups({ groupsNames: [GROUP] });
  assert.equal(del.response.results![0]!.errorCode, ErrorCode.NONE);
  log.push(...del.records);
  assert.deepEqual(c.listGroups({ statesFilter: [], typesFilter: [] }).groups, []);
  assert.deepEqual(replayed(log).listGroups({ statesFilter: [], typesFilter: [] }).groups, []);
});
