// Share group membership over a real socket against a broker process: ShareGroupHeartbeat join,
// heartbeat and leave with raw requests, the group in ListGroups and ShareGroupDescribe, and
// `sluice groups` listing, describing and deleting it. The part that needs share-partition state
// (assignments, start offsets) runs only once the broker has a share coordinator (it advertises
// InitializeShareGroupState, key 83); until then the broker's persister is unavailable and
// members get no partitions.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ErrorCode } from '@sluice/protocol/errors.js';
import * as M from '@sluice/protocol/messages/index.js';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { ok, runCli } from '../../helpers/run-cli.js';
import { wireCall } from '../../helpers/wire-call.js';
import { waitFor, when } from '../../helpers/wait-for.js';

const INITIALIZE_SHARE_GROUP_STATE = 83;

describe('share group membership (raw ShareGroupHeartbeat)', () => {
  let broker: BrokerProcess;
  let withShareCoordinator = false;
  const suffix = randomBytes(4).toString('hex');
  const topic = `share-t-${suffix}`;
  const group = `share-g-${suffix}`;
  const heartbeat = (body: Partial<M.ShareGroupHeartbeatRequestDataInput>) =>
    wireCall(broker.bootstrap, M.ShareGroupHeartbeatRequest, M.ShareGroupHeartbeatResponse, 1, {
      groupId: group,
      memberId: 'member-1',
      memberEpoch: 0,
      rackId: null,
      subscribedTopicNames: null,
      ...body,
    });
  // A group of its own, so that its one member is given every partition (member-1 stays in the first group).
  const alone = `${group}-alone`;
  const groups = (...args: string[]) => runCli(['groups', '--bootstrap-server', broker.bootstrap, ...args]);

  before(async () => {
    broker = await startBrokerProcess({ 'auto.create.topics.enable': 'false' });
    const created = await wireCall(broker.bootstrap, M.CreateTopicsRequest, M.CreateTopicsResponse, 7, {
      timeoutMs: 10_000,
      topics: [{ name: topic, numPartitions: 2, replicationFactor: 1, configs: [] }],
    });
    assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);
    const versions = await wireCall(broker.bootstrap, M.ApiVersionsRequest, M.ApiVersionsResponse, 3, {
      clientSoftwareName: 'test',
      clientSoftwareVersion: '1',
    });
    withShareCoordinator = versions.apiKeys.some((a) => a.apiKey === INITIALIZE_SHARE_GROUP_STATE);
  });
  after(async () => {
    await broker.stop();
  });

  test('join, heartbeat, and the group as ListGroups, ShareGroupDescribe and `sluice groups` show it', async () => {
    const joined = await heartbeat({ subscribedTopicNames: [topic] });
    assert.deepEqual(
      [joined.errorCode, joined.memberId, joined.memberEpoch, joined.heartbeatIntervalMs],
      [ErrorCode.NONE, 'member-1', 1, 5000],
    );
    const again = await heartbeat({ memberEpoch: joined.memberEpoch });
    assert.equal(again.errorCode, ErrorCode.NONE);
    const fenced = await heartbeat({ memberEpoch: joined.memberEpoch + 5 });
    assert.equal(fenced.errorCode, ErrorCode.FENCED_MEMBER_EPOCH);

    const listed = await wireCall(broker.bootstrap, M.ListGroupsRequest, M.ListGroupsResponse, 5, {
      statesFilter: [],
      typesFilter: ['share'],
    });
    assert.deepEqual(
      listed.groups.map((g) => [g.groupId, g.groupType, g.groupState]),
      [[group, 'share', 'Stable']],
    );
    const described = await wireCall(broker.bootstrap, M.ShareGroupDescribeRequest, M.ShareGroupDescribeResponse, 1, {
      groupIds: [group],
      includeAuthorizedOperations: false,
    });
    assert.deepEqual(
      described.groups[0]!.members.map((m) => [m.memberId, m.subscribedTopicNames]),
      [['member-1', [topic]]],
    );

    const list = ok(await groups('--list', '--type', '--state'), 'list');
    assert.match(list, new RegExp(`^${group} +Share +Stable$`, 'm'));
    const members = ok(await groups('--describe', '--group', group, '--members'), 'describe members');
    assert.match(members, new RegExp(`^${group} +member-1 +/127\\.0\\.0\\.1 +`, 'm'));
  });

  test('with a share coordinator: the member gets the partitions, their start offsets are -1 until first fetch', async (t) => {
    if (!withShareCoordinator) {
      t.skip('the broker has no share coordinator yet');
      return;
    }
    const memberId = 'member-2';
    let epoch = (await heartbeat({ groupId: alone, memberId, memberEpoch: 0, subscribedTopicNames: [topic] })).memberEpoch;
    let assigned: number[] = [];
    // The member heartbeats every 200 ms until both partitions are assigned to it.
    await waitFor(
      'both partitions assigned',
      30_000,
      async () => {
        const r = await heartbeat({ groupId: alone, memberId, memberEpoch: epoch });
        epoch = r.memberEpoch;
        assigned = r.assignment?.topicPartitions.flatMap((t) => t.partitions) ?? assigned;
        return when(assigned.length >= 2);
      },
      200,
    );
    assert.deepEqual(assigned.sort(), [0, 1]);
    const offsets = await wireCall(broker.bootstrap, M.DescribeShareGroupOffsetsRequest, M.DescribeShareGroupOffsetsResponse, 1, {
      groups: [{ groupId: alone, topics: null }],
    });
    assert.deepEqual(
      offsets.groups[0]!.topics.flatMap((t) => t.partitions.map((p) => [p.partitionIndex, p.startOffset])),
      [
        [0, -1n],
        [1, -1n],
      ],
    );
    assert.equal((await heartbeat({ groupId: alone, memberId, memberEpoch: -1 })).errorCode, ErrorCode.NONE);
  });

  test('leave, then `sluice groups --delete` removes the empty share group', async () => {
    const left = await heartbeat({ memberEpoch: -1 });
    assert.deepEqual([left.errorCode, left.memberEpoch], [ErrorCode.NONE, -1]);
    assert.match(
      ok(await groups('--describe', '--group', group, '--state'), 'describe state'),
      new RegExp(`^${group} +\\S+ +\\(\\d+\\) +Empty +`, 'm'),
    );
    assert.equal(
      ok(await groups('--delete', '--group', group), 'delete'),
      `Deletion of requested share groups ('${group}') was successful.\n`,
    );
    const listed = await wireCall(broker.bootstrap, M.ListGroupsRequest, M.ListGroupsResponse, 5, {
      statesFilter: [],
      typesFilter: ['share'],
    });
    assert.deepEqual(
      listed.groups.filter((g) => g.groupId === group),
      [],
    );
  });
});
