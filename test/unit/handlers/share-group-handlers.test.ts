/**
 * The share group handlers (ShareGroupHeartbeat 76, ShareGroupDescribe 77, Describe/Alter/
 * DeleteShareGroupOffsets 90-92) and share groups in ListGroups, DescribeGroups and DeleteGroups,
 * over a real LocalController and group coordinator service (in-memory `__consumer_offsets`) with
 * the in-memory SharePersister: versions, answers and Kafka's authorization.
 */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import * as M from '@sluice/protocol/messages/index.js';
import { ZERO_UUID } from '@sluice/protocol/common/uuid.js';
import type { CoordinatorLog } from '../../../src/coordinator/runtime/coordinator-log.js';
import { createTopicsHandler } from '../../../src/handlers/19-create-topics.js';
import { describeGroupsHandler } from '../../../src/handlers/15-describe-groups.js';
import { listGroupsHandler } from '../../../src/handlers/16-list-groups.js';
import { apiVersionsHandler } from '../../../src/handlers/18-api-versions.js';
import { deleteGroupsHandler } from '../../../src/handlers/42-delete-groups.js';
import { shareGroupHeartbeatHandler } from '../../../src/handlers/76-share-group-heartbeat.js';
import { shareGroupDescribeHandler } from '../../../src/handlers/77-share-group-describe.js';
import { describeShareGroupOffsetsHandler } from '../../../src/handlers/90-describe-share-group-offsets.js';
import { alterShareGroupOffsetsHandler } from '../../../src/handlers/91-alter-share-group-offsets.js';
import { deleteShareGroupOffsetsHandler } from '../../../src/handlers/92-delete-share-group-offsets.js';
import { AclOperation as Op, PatternType, PermissionType, ResourceType, type AclBinding } from '../../../src/security/acl/index.js';
import { call, harness, TEST_SESSION, type Harness } from './admin-harness.js';
import { TestSharePersister } from '../../helpers/share-persister.js';
import { MemoryPartitions } from './memory-partitions-fixture.js';

class MemoryGroupLog implements CoordinatorLog {
  exists(): boolean {
    return true;
  }
  async ensureTopic(): Promise<void> {}
  async append(): Promise<number> {
    return ErrorCode.NONE;
  }
  async appendMarker(): Promise<number> {
    return ErrorCode.NONE;
  }
  async replay(): Promise<number> {
    return ErrorCode.NONE;
  }
}

const open: Harness[] = [];
function fresh(persister = new TestSharePersister(), secured = false): { h: Harness; persister: TestSharePersister } {
  const h = harness({
    groupLog: new MemoryGroupLog(),
    sharePersister: persister,
    partitions: new MemoryPartitions(),
    ...(secured ? { authorizer: { superUsers: [], allowEveryoneIfNoAclFound: false } } : {}),
  });
  open.push(h);
  return { h, persister };
}
afterEach(() => {
  for (const h of open.splice(0)) {
    h.cluster.groups.close();
    h.close();
  }
});

async function createTopic(h: Harness, name: string, numPartitions: number): Promise<string> {
  const res = await call(
    createTopicsHandler,
    M.CreateTopicsRequest,
    M.CreateTopicsResponse,
    7,
    { topics: [{ name, numPartitions, replicationFactor: -1 }] },
    h.cluster,
  );
  assert.equal(res.topics[0]!.errorCode, ErrorCode.NONE);
  return res.topics[0]!.topicId;
}
const heartbeat = (h: Harness, body: Partial<M.ShareGroupHeartbeatRequestDataInput>) =>
  call(
    shareGroupHeartbeatHandler,
    M.ShareGroupHeartbeatRequest,
    M.ShareGroupHeartbeatResponse,
    1,
    { groupId: 'sg', memberId: 'm1', memberEpoch: 0, rackId: null, subscribedTopicNames: null, ...body },
    h.cluster,
  );
/** Joins, lets the background initialization finish, and heartbeats again: the member then has its partitions. */
async function joinAndSettle(h: Harness, memberId = 'm1', topics = ['t']): Promise<M.ShareGroupHeartbeatResponseData> {
  const joined = await heartbeat(h, { memberId, subscribedTopicNames: topics });
  assert.equal(joined.errorCode, ErrorCode.NONE);
  await h.cluster.groups.share.idle();
  return heartbeat(h, { memberId, memberEpoch: joined.memberEpoch });
}
const describeOffsets = (h: Harness, version: number, topics: Array<{ topicName: string; partitions: number[] }> | null) =>
  call(
    describeShareGroupOffsetsHandler,
    M.DescribeShareGroupOffsetsRequest,
    M.DescribeShareGroupOffsetsResponse,
    version,
    { groups: [{ groupId: 'sg', topics }] },
    h.cluster,
  ).then((r) => r.groups[0]!);

describe('share group APIs', () => {
  test('served at the versions Kafka 4.4 serves; share.version 2 finalized in ApiVersions', async () => {
    assert.deepEqual(shareGroupHeartbeatHandler.versions, { lo: 1, hi: 1 });
    assert.deepEqual(shareGroupDescribeHandler.versions, { lo: 1, hi: 1 });
    assert.deepEqual(describeShareGroupOffsetsHandler.versions, { lo: 0, hi: 1 });
    assert.deepEqual(alterShareGroupOffsetsHandler.versions, { lo: 0, hi: 0 });
    assert.deepEqual(deleteShareGroupOffsetsHandler.versions, { lo: 0, hi: 0 });
    const { h } = fresh();
    const res = await call(
      apiVersionsHandler,
      M.ApiVersionsRequest,
      M.ApiVersionsResponse,
      3,
      { clientSoftwareName: 'test', clientSoftwareVersion: '1' },
      h.cluster,
    );
    assert.deepEqual(
      res.supportedFeatures.find((f) => f.name === 'share.version'),
      { name: 'share.version', minVersion: 0, maxVersion: 2 },
    );
    assert.deepEqual(
      res.finalizedFeatures.find((f) => f.name === 'share.version'),
      { name: 'share.version', minVersionLevel: 2, maxVersionLevel: 2 },
    );
  });

  test('ShareGroupHeartbeat: join, the share-partitions initialized through the persister at -1, then assigned', async () => {
    const { h, persister } = fresh();
    const tId = await createTopic(h, 't', 2);
    const settled = await joinAndSettle(h);
    assert.equal(settled.memberEpoch, 2);
    assert.deepEqual(settled.assignment?.topicPartitions, [{ topicId: tId, partitions: [0, 1] }]);
    assert.deepEqual(
      persister.calls.map((c) => [c.op, c.key, c.startOffset]),
      [
        ['initialize', `sg:${tId}:0`, -1n],
        ['initialize', `sg:${tId}:1`, -1n],
      ],
    );
    const invalid = await heartbeat(h, { memberId: '' });
    assert.deepEqual([invalid.errorCode, invalid.errorMessage], [ErrorCode.INVALID_REQUEST, "MemberId can't be empty."]);
  });

  test('ShareGroupHeartbeat: a share-partition the persister fails stays unassigned and is retried', async () => {
    const persister = new TestSharePersister();
    const { h } = fresh(persister);
    const tId = await createTopic(h, 't', 2);
    persister.failEveryCall({ groupId: 'sg', topicId: tId, partition: 1 }, ErrorCode.COORDINATOR_NOT_AVAILABLE);
    const first = await joinAndSettle(h);
    assert.deepEqual(first.assignment?.topicPartitions, [{ topicId: tId, partitions: [0] }]);
    // That heartbeat asked for the failed partition again; it failed again.
    await h.cluster.groups.share.idle();
    persister.recover();
    const retried = await heartbeat(h, { memberEpoch: first.memberEpoch });
    assert.equal(retried.errorCode, ErrorCode.NONE);
    await h.cluster.groups.share.idle();
    const after = await heartbeat(h, { memberEpoch: retried.memberEpoch });
    assert.deepEqual(after.assignment?.topicPartitions, [{ topicId: tId, partitions: [0, 1] }]);
  });

  test('ShareGroupDescribe, ListGroups with the share type, DescribeGroups of a share group', async () => {
    const { h } = fresh();
    const tId = await createTopic(h, 't', 1);
    await joinAndSettle(h);
    const described = await call(
      shareGroupDescribeHandler,
      M.ShareGroupDescribeRequest,
      M.ShareGroupDescribeResponse,
      1,
      { groupIds: ['sg', 'nope'], includeAuthorizedOperations: false },
      h.cluster,
    );
    assert.deepEqual(
      described.groups.map((g) => [
        g.groupId,
        g.errorCode,
        g.groupState,
        g.assignorName,
        g.members.map((m) => [m.memberId, m.assignment.topicPartitions]),
      ]),
      [
        ['sg', 0, 'Stable', 'simple', [['m1', [{ topicId: tId, topicName: 't', partitions: [0] }]]]],
        ['nope', ErrorCode.GROUP_ID_NOT_FOUND, '', '', []],
      ],
    );
    const listed = await call(
      listGroupsHandler,
      M.ListGroupsRequest,
      M.ListGroupsResponse,
      5,
      { statesFilter: [], typesFilter: ['share'] },
      h.cluster,
    );
    assert.deepEqual(
      listed.groups.map((g) => [g.groupId, g.protocolType, g.groupState, g.groupType]),
      [['sg', 'share', 'Stable', 'share']],
    );
    const classic = await call(
      describeGroupsHandler,
      M.DescribeGroupsRequest,
      M.DescribeGroupsResponse,
      6,
      { groups: ['sg'], includeAuthorizedOperations: false },
      h.cluster,
    );
    assert.deepEqual(
      [classic.groups[0]!.errorCode, classic.groups[0]!.errorMessage],
      [ErrorCode.GROUP_ID_NOT_FOUND, 'Group sg is not a classic group.'],
    );
  });

  test('DescribeShareGroupOffsets: start offsets from the persister, -1 for topics that do not exist; all topics when none named', async () => {
    const { h, persister } = fresh();
    const tId = await createTopic(h, 't', 2);
    await joinAndSettle(h);
    await persister.initialize({ groupId: 'sg', topicId: tId, partition: 1 }, 2, 42n);
    const named = await describeOffsets(h, 1, [
      { topicName: 't', partitions: [1] },
      { topicName: 'gone', partitions: [0] },
    ]);
    assert.deepEqual(
      named.topics.map((t) => [t.topicName, t.topicId, t.partitions.map((p) => [p.partitionIndex, p.startOffset, p.lag, p.errorCode])]),
      [
        ['t', tId, [[1, 42n, -42n, 0]]], // the partition is empty: high watermark 0 - start offset 42 - none complete, unclamped as in Kafka
        ['gone', ZERO_UUID, [[0, -1n, -1n, 0]]],
      ],
    );
    const all = await describeOffsets(h, 0, null);
    assert.deepEqual(
      all.topics.map((t) => [t.topicName, t.partitions.map((p) => [p.partitionIndex, p.startOffset])]),
      [
        [
          't',
          [
            [0, -1n],
            [1, 42n],
          ],
        ],
      ],
    );
  });

  test('AlterShareGroupOffsets: refused while the group has members; then the partitions restart at the new offsets', async () => {
    const { h, persister } = fresh();
    const tId = await createTopic(h, 't', 1);
    const settled = await joinAndSettle(h);
    const alter = (topics: M.AlterShareGroupOffsetsRequestAlterShareGroupOffsetsRequestTopicInput[]) =>
      call(
        alterShareGroupOffsetsHandler,
        M.AlterShareGroupOffsetsRequest,
        M.AlterShareGroupOffsetsResponse,
        0,
        { groupId: 'sg', topics },
        h.cluster,
      );
    const busy = await alter([{ topicName: 't', partitions: [{ partitionIndex: 0, startOffset: 5n }] }]);
    assert.deepEqual([busy.errorCode, busy.errorMessage], [ErrorCode.NON_EMPTY_GROUP, 'The group is not empty.']);
    await heartbeat(h, { memberEpoch: -1, memberId: 'm1' });
    assert.equal(settled.errorCode, 0);
    const done = await alter([
      { topicName: 't', partitions: [{ partitionIndex: 0, startOffset: 5n }] },
      { topicName: 'missing', partitions: [{ partitionIndex: 0, startOffset: 1n }] },
    ]);
    assert.equal(done.errorCode, ErrorCode.NONE);
    assert.deepEqual(
      done.responses.map((t) => [t.topicName, t.partitions.map((p) => [p.partitionIndex, p.errorCode])]),
      [
        ['t', [[0, 0]]],
        ['missing', [[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]],
      ],
    );
    assert.equal((await persister.stored({ groupId: 'sg', topicId: tId, partition: 0 }))?.startOffset, 5n);
  });

  test('DeleteShareGroupOffsets and DeleteGroups delete share-partition state through the persister', async () => {
    const { h, persister } = fresh();
    const tId = await createTopic(h, 't', 1);
    const uId = await createTopic(h, 'u', 1);
    await joinAndSettle(h, 'm1', ['t', 'u']);
    const deleteGroup = () =>
      call(deleteGroupsHandler, M.DeleteGroupsRequest, M.DeleteGroupsResponse, 2, { groupsNames: ['sg'] }, h.cluster).then(
        (r) => r.results[0]!.errorCode,
      );
    assert.equal(await deleteGroup(), ErrorCode.NON_EMPTY_GROUP);
    await heartbeat(h, { memberEpoch: -1 });
    const deleted = await call(
      deleteShareGroupOffsetsHandler,
      M.DeleteShareGroupOffsetsRequest,
      M.DeleteShareGroupOffsetsResponse,
      0,
      { groupId: 'sg', topics: [{ topicName: 't' }] },
      h.cluster,
    );
    assert.deepEqual(
      deleted.responses.map((t) => [t.topicName, t.topicId, t.errorCode]),
      [['t', tId, 0]],
    );
    assert.equal(await persister.stored({ groupId: 'sg', topicId: tId, partition: 0 }), undefined);
    assert.notEqual(await persister.stored({ groupId: 'sg', topicId: uId, partition: 0 }), undefined);

    persister.failEveryCall({ groupId: 'sg', topicId: uId, partition: 0 }, ErrorCode.COORDINATOR_NOT_AVAILABLE);
    assert.equal(await deleteGroup(), ErrorCode.COORDINATOR_NOT_AVAILABLE, 'the group stays while its state cannot be deleted');
    persister.recover();
    assert.equal(await deleteGroup(), ErrorCode.NONE);
    assert.equal(await persister.stored({ groupId: 'sg', topicId: uId, partition: 0 }), undefined);
    const listed = await call(
      listGroupsHandler,
      M.ListGroupsRequest,
      M.ListGroupsResponse,
      5,
      { statesFilter: [], typesFilter: [] },
      h.cluster,
    );
    assert.deepEqual(listed.groups, []);
  });
});

describe('share group authorization (Kafka KafkaApis)', () => {
  const ME = TEST_SESSION.principal;
  const allow = (resourceType: ResourceType, name: string, operation: Op): AclBinding => ({
    pattern: { resourceType, name, patternType: PatternType.LITERAL },
    entry: { principal: ME, host: '*', operation, permissionType: PermissionType.ALLOW },
  });
  async function grant(h: Harness, ...bindings: AclBinding[]): Promise<void> {
    for (const r of await h.cluster.acls.create(bindings)) assert.equal(r.errorCode, ErrorCode.NONE);
  }

  test('heartbeat needs READ on the group and DESCRIBE on the subscribed topics', async () => {
    const { h } = fresh(new TestSharePersister(), true);
    await grant(h, allow(ResourceType.CLUSTER, 'kafka-cluster', Op.CREATE));
    await createTopic(h, 't', 1);
    assert.equal((await heartbeat(h, { subscribedTopicNames: ['t'] })).errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
    await grant(h, allow(ResourceType.GROUP, 'sg', Op.READ));
    assert.equal((await heartbeat(h, { subscribedTopicNames: ['t'] })).errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    await grant(h, allow(ResourceType.TOPIC, 't', Op.DESCRIBE));
    assert.equal((await heartbeat(h, { subscribedTopicNames: ['t'] })).errorCode, ErrorCode.NONE);
  });

  test('describe needs DESCRIBE on the group; offsets admin needs READ (alter) or DELETE (delete) on the group and READ on topics', async () => {
    const { h } = fresh(new TestSharePersister(), true);
    await grant(h, allow(ResourceType.CLUSTER, 'kafka-cluster', Op.CREATE));
    await createTopic(h, 't', 1);
    const describe = await call(
      shareGroupDescribeHandler,
      M.ShareGroupDescribeRequest,
      M.ShareGroupDescribeResponse,
      1,
      { groupIds: ['sg'], includeAuthorizedOperations: true },
      h.cluster,
    );
    assert.equal(describe.groups[0]!.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
    assert.equal((await describeOffsets(h, 1, [{ topicName: 't', partitions: [0] }])).errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
    await grant(h, allow(ResourceType.GROUP, 'sg', Op.DESCRIBE));
    const refusedTopic = await describeOffsets(h, 1, [{ topicName: 't', partitions: [0] }]);
    assert.deepEqual(
      refusedTopic.topics[0]!.partitions.map((p) => p.errorCode),
      [ErrorCode.TOPIC_AUTHORIZATION_FAILED],
    );

    const alter = await call(
      alterShareGroupOffsetsHandler,
      M.AlterShareGroupOffsetsRequest,
      M.AlterShareGroupOffsetsResponse,
      0,
      { groupId: 'sg', topics: [{ topicName: 't', partitions: [{ partitionIndex: 0, startOffset: 0n }] }] },
      h.cluster,
    );
    assert.equal(alter.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
    await grant(h, allow(ResourceType.GROUP, 'sg', Op.READ));
    const alterTopic = await call(
      alterShareGroupOffsetsHandler,
      M.AlterShareGroupOffsetsRequest,
      M.AlterShareGroupOffsetsResponse,
      0,
      { groupId: 'sg', topics: [{ topicName: 't', partitions: [{ partitionIndex: 0, startOffset: 0n }] }] },
      h.cluster,
    );
    assert.deepEqual(
      alterTopic.responses.map((t) => t.partitions.map((p) => p.errorCode)),
      [[ErrorCode.TOPIC_AUTHORIZATION_FAILED]],
    );

    const del = () =>
      call(
        deleteShareGroupOffsetsHandler,
        M.DeleteShareGroupOffsetsRequest,
        M.DeleteShareGroupOffsetsResponse,
        0,
        { groupId: 'sg', topics: [{ topicName: 't' }] },
        h.cluster,
      );
    assert.equal((await del()).errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
  });
});
