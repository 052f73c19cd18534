/**
 * The share-state RPCs (83–87) and FindCoordinator key type 2 through the handlers, over the
 * harness's controller and an in-memory `__share_group_state` whose creation registers the topic
 * with the controller (so FindCoordinator finds its leader): every version Kafka 4.4 serves,
 * CLUSTER_ACTION refusals, empty requests, malformed share-partition keys.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { findCoordinatorHandler } from '../../../src/handlers/10-find-coordinator.js';
import { createTopicsHandler } from '../../../src/handlers/19-create-topics.js';
import { initializeShareGroupStateHandler } from '../../../src/handlers/83-initialize-share-group-state.js';
import { readShareGroupStateHandler } from '../../../src/handlers/84-read-share-group-state.js';
import { writeShareGroupStateHandler } from '../../../src/handlers/85-write-share-group-state.js';
import { deleteShareGroupStateHandler } from '../../../src/handlers/86-delete-share-group-state.js';
import { readShareGroupStateSummaryHandler } from '../../../src/handlers/87-read-share-group-state-summary.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { SHARE_GROUP_STATE_TOPIC } from '@sluice/protocol/internal-topics.js';
import * as M from '@sluice/protocol/messages/index.js';
import { AclOperation, PatternType, PermissionType, ResourceType } from '../../../src/security/acl/index.js';
import { MemoryLog } from '../coordinator/transaction/harness.js';
import { call, harness, TEST_SESSION, versions, type Harness } from './admin-harness.js';

const open: Harness[] = [];
afterEach(() => {
  for (const h of open.splice(0)) {
    h.cluster.shareCoordinator.close();
    h.close();
  }
});

/** A harness whose `__share_group_state` lives in memory and is registered with the controller when first used. */
function shareHarness(secured = false): Harness {
  let h: Harness | undefined;
  const log = new (class extends MemoryLog {
    override async ensureTopic(): Promise<void> {
      if (this.created) return;
      await super.ensureTopic();
      const created = await h!.cluster.admin.createTopic(
        { name: SHARE_GROUP_STATE_TOPIC, numPartitions: 1, replicationFactor: -1, assignments: [], configs: [] },
        false,
      );
      assert.equal(created.errorCode, ErrorCode.NONE);
    }
  })();
  h = harness({ shareStateLog: log, ...(secured ? { authorizer: { superUsers: [], allowEveryoneIfNoAclFound: false } } : {}) });
  open.push(h);
  return h;
}

async function topicId(h: Harness, name = 't', numPartitions = 2): Promise<string> {
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

async function grantClusterAction(h: Harness): Promise<void> {
  const [r] = await h.cluster.acls.create([
    {
      pattern: { resourceType: ResourceType.CLUSTER, name: 'kafka-cluster', patternType: PatternType.LITERAL },
      entry: { principal: TEST_SESSION.principal, host: '*', operation: AclOperation.CLUSTER_ACTION, permissionType: PermissionType.ALLOW },
    },
  ]);
  assert.equal(r!.errorCode, ErrorCode.NONE);
}

const initialize = (
  h: Harness,
  version: number,
  groupId: string,
  topics: Array<{ topicId: string; partitions: Array<{ partition: number; stateEpoch: number; startOffset: bigint }> }>,
) =>
  call(
    initializeShareGroupStateHandler,
    M.InitializeShareGroupStateRequest,
    M.InitializeShareGroupStateResponse,
    version,
    { groupId, topics },
    h.cluster,
  );
const read = (
  h: Harness,
  version: number,
  groupId: string,
  topics: Array<{ topicId: string; partitions: Array<{ partition: number; leaderEpoch: number }> }>,
) => call(readShareGroupStateHandler, M.ReadShareGroupStateRequest, M.ReadShareGroupStateResponse, version, { groupId, topics }, h.cluster);
const write = (h: Harness, version: number, groupId: string, topics: M.WriteShareGroupStateRequestWriteStateDataInput[]) =>
  call(writeShareGroupStateHandler, M.WriteShareGroupStateRequest, M.WriteShareGroupStateResponse, version, { groupId, topics }, h.cluster);
const remove = (
  h: Harness,
  version: number,
  groupId: string,
  topics: Array<{ topicId: string; partitions: Array<{ partition: number }> }>,
) =>
  call(
    deleteShareGroupStateHandler,
    M.DeleteShareGroupStateRequest,
    M.DeleteShareGroupStateResponse,
    version,
    { groupId, topics },
    h.cluster,
  );
const summary = (
  h: Harness,
  version: number,
  groupId: string,
  topics: Array<{ topicId: string; partitions: Array<{ partition: number; leaderEpoch: number }> }>,
) =>
  call(
    readShareGroupStateSummaryHandler,
    M.ReadShareGroupStateSummaryRequest,
    M.ReadShareGroupStateSummaryResponse,
    version,
    { groupId, topics },
    h.cluster,
  );
const findShare = (h: Harness, version: number, keys: string[]) =>
  call(
    findCoordinatorHandler,
    M.FindCoordinatorRequest,
    M.FindCoordinatorResponse,
    version,
    { keyType: 2, coordinatorKeys: keys },
    h.cluster,
  );

const codes = (results: ReadonlyArray<{ topicId: string; partitions: ReadonlyArray<{ partition: number; errorCode: number }> }>) =>
  results.flatMap((t) => t.partitions.map((p) => [t.topicId, p.partition, p.errorCode]));

describe('share-state RPCs 83–87', () => {
  test('every version: initialize, write, read, summary and delete a share-partition; each partition answered on its own', async () => {
    for (const [i, wv] of versions(M.WriteShareGroupStateRequest).entries()) {
      const h = shareHarness();
      const id = await topicId(h);
      const group = `g${i}`;
      for (const v of versions(M.InitializeShareGroupStateRequest)) {
        const init = await initialize(h, v, group, [
          {
            topicId: id,
            partitions: [
              { partition: 0, stateEpoch: 1, startOffset: 10n },
              { partition: 5, stateEpoch: 1, startOffset: 0n },
            ],
          },
        ]);
        assert.deepEqual(codes(init.results), [
          [id, 0, ErrorCode.NONE],
          [id, 5, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
        ]);
      }
      const w = await write(h, wv, group, [
        {
          topicId: id,
          partitions: [
            {
              partition: 0,
              stateEpoch: 1,
              leaderEpoch: 3,
              startOffset: 10n,
              deliveryCompleteCount: 2,
              stateBatches: [{ firstOffset: 10n, lastOffset: 11n, deliveryState: 2, deliveryCount: 1 }],
            },
          ],
        },
      ]);
      assert.deepEqual(codes(w.results), [[id, 0, ErrorCode.NONE]], `WriteShareGroupState v${wv}`);
      for (const v of versions(M.ReadShareGroupStateRequest)) {
        const r = await read(h, v, group, [
          {
            topicId: id,
            partitions: [
              { partition: 0, leaderEpoch: 3 },
              { partition: 1, leaderEpoch: 3 },
            ],
          },
        ]);
        const [p0, p1] = r.results[0]!.partitions;
        assert.deepEqual(
          [p0!.errorCode, p0!.stateEpoch, p0!.startOffset, p0!.stateBatches],
          [ErrorCode.NONE, 1, 10n, [{ firstOffset: 10n, lastOffset: 11n, deliveryState: 2, deliveryCount: 1 }]],
        );
        assert.equal(p1!.errorCode, ErrorCode.INVALID_REQUEST, 'partition 1 was never initialized');
      }
      for (const v of versions(M.ReadShareGroupStateSummaryRequest)) {
        const s = (await summary(h, v, group, [{ topicId: id, partitions: [{ partition: 0, leaderEpoch: 3 }] }])).results[0]!
          .partitions[0]!;
        assert.deepEqual(
          [s.errorCode, s.stateEpoch, s.leaderEpoch, s.startOffset],
          [ErrorCode.NONE, 1, 3, 10n],
          `ReadShareGroupStateSummary v${v}`,
        );
        // v1 carries KIP-1226's delivery-complete count: 0 from Initialize at a start offset, raised
        // by a v1 write; a v0 write has none (-1), which does not lower it.
        if (v >= 1) assert.equal(s.deliveryCompleteCount, wv >= 1 ? 2 : 0);
      }
      for (const v of versions(M.DeleteShareGroupStateRequest)) {
        const d = await remove(h, v, group, [{ topicId: id, partitions: [{ partition: 0 }] }]);
        assert.deepEqual(codes(d.results), [[id, 0, ErrorCode.NONE]]);
      }
      assert.equal(
        (await read(h, 0, group, [{ topicId: id, partitions: [{ partition: 0, leaderEpoch: 3 }] }])).results[0]!.partitions[0]!.errorCode,
        ErrorCode.INVALID_REQUEST,
      );
    }
  });

  test('fencing reaches the client: an older leader epoch, an older state epoch', async () => {
    const h = shareHarness();
    const id = await topicId(h);
    await initialize(h, 0, 'g', [{ topicId: id, partitions: [{ partition: 0, stateEpoch: 2, startOffset: 0n }] }]);
    await read(h, 0, 'g', [{ topicId: id, partitions: [{ partition: 0, leaderEpoch: 5 }] }]);
    assert.equal(
      (await read(h, 0, 'g', [{ topicId: id, partitions: [{ partition: 0, leaderEpoch: 4 }] }])).results[0]!.partitions[0]!.errorCode,
      ErrorCode.FENCED_LEADER_EPOCH,
    );
    assert.equal(
      (await initialize(h, 0, 'g', [{ topicId: id, partitions: [{ partition: 0, stateEpoch: 1, startOffset: 0n }] }])).results[0]!
        .partitions[0]!.errorCode,
      ErrorCode.FENCED_STATE_EPOCH,
    );
  });

  test('an empty group id, no topics, or a topic without partitions is answered with no results', async () => {
    const h = shareHarness();
    const id = await topicId(h);
    assert.deepEqual(
      (await initialize(h, 0, '', [{ topicId: id, partitions: [{ partition: 0, stateEpoch: 0, startOffset: 0n }] }])).results,
      [],
    );
    assert.deepEqual((await read(h, 0, 'g', [])).results, []);
    assert.deepEqual((await write(h, 1, 'g', [{ topicId: id, partitions: [] }])).results, []);
    assert.deepEqual((await remove(h, 0, '', [])).results, []);
    assert.deepEqual((await summary(h, 1, 'g', [])).results, []);
  });

  test('without CLUSTER_ACTION on the cluster every partition is CLUSTER_AUTHORIZATION_FAILED; with it the request is served', async () => {
    const h = shareHarness(true);
    const id = 'AAAAAAAAAAAAAAAAAAAAEg';
    const refused = [
      [id, 0, ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
      [id, 1, ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
    ];
    assert.deepEqual(
      codes(
        (
          await initialize(h, 0, 'g', [
            {
              topicId: id,
              partitions: [
                { partition: 0, stateEpoch: 0, startOffset: 0n },
                { partition: 1, stateEpoch: 0, startOffset: 0n },
              ],
            },
          ])
        ).results,
      ),
      refused,
    );
    assert.deepEqual(
      codes(
        (
          await read(h, 0, 'g', [
            {
              topicId: id,
              partitions: [
                { partition: 0, leaderEpoch: 0 },
                { partition: 1, leaderEpoch: 0 },
              ],
            },
          ])
        ).results,
      ),
      refused,
    );
    assert.deepEqual(codes((await write(h, 1, 'g', [{ topicId: id, partitions: [{ partition: 0 }, { partition: 1 }] }])).results), refused);
    assert.deepEqual(
      codes((await remove(h, 0, 'g', [{ topicId: id, partitions: [{ partition: 0 }, { partition: 1 }] }])).results),
      refused,
    );
    assert.deepEqual(
      codes(
        (
          await summary(h, 1, 'g', [
            {
              topicId: id,
              partitions: [
                { partition: 0, leaderEpoch: 0 },
                { partition: 1, leaderEpoch: 0 },
              ],
            },
          ])
        ).results,
      ),
      refused,
    );
    assert.equal(h.cluster.metadata.topic(SHARE_GROUP_STATE_TOPIC), undefined, 'a refused request creates nothing');
    await grantClusterAction(h);
    assert.deepEqual(codes((await remove(h, 0, 'g', [{ topicId: id, partitions: [{ partition: 0 }] }])).results), [
      [id, 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
    ]);
  });
});

describe('FindCoordinator key type 2 (share-partition)', () => {
  test('v6 finds the leader of the key’s __share_group_state partition, creating the topic on first use', async () => {
    const h = shareHarness();
    const id = await topicId(h);
    const res = await findShare(h, 6, [`g:${id}:0`]);
    assert.deepEqual(
      res.coordinators.map((c) => [c.key, c.errorCode, c.nodeId, c.host, c.port]),
      [[`g:${id}:0`, ErrorCode.NONE, 0, '127.0.0.1', 9092]],
    );
    assert.equal(h.cluster.metadata.topic(SHARE_GROUP_STATE_TOPIC)?.partitionCount, 1);
  });

  test('before v6 key type 2 is unknown: INVALID_REQUEST', async () => {
    const h = shareHarness();
    for (const v of [4, 5])
      assert.equal((await findShare(h, v, ['g:AAAAAAAAAAAAAAAAAAAAEg:0'])).coordinators[0]!.errorCode, ErrorCode.INVALID_REQUEST);
  });

  test('a key that is not groupId:topicId:partition is INVALID_REQUEST, each key on its own', async () => {
    const h = shareHarness();
    const good = 'g:AAAAAAAAAAAAAAAAAAAAEg:3';
    const bad = [
      '',
      'g',
      'g:AAAAAAAAAAAAAAAAAAAAEg',
      ':AAAAAAAAAAAAAAAAAAAAEg:0',
      'g:not-a-uuid:0',
      'g:AAAAAAAAAAAAAAAAAAAAEg:-1',
      'g:AAAAAAAAAAAAAAAAAAAAEg:x',
      'g:AAAAAAAAAAAAAAAAAAAAEg:2147483648',
      'a:b:AAAAAAAAAAAAAAAAAAAAEg:0',
    ];
    const res = await findShare(h, 6, [good, ...bad]);
    assert.deepEqual(
      res.coordinators.map((c) => [c.key, c.errorCode]),
      [[good, ErrorCode.NONE], ...bad.map((k) => [k, ErrorCode.INVALID_REQUEST])],
    );
  });

  test('without CLUSTER_ACTION a share key is CLUSTER_AUTHORIZATION_FAILED (DESCRIBE on a group does not do); with it the key is found', async () => {
    const h = shareHarness(true);
    const key = 'g:AAAAAAAAAAAAAAAAAAAAEg:0';
    await h.cluster.acls.create([
      {
        pattern: { resourceType: ResourceType.GROUP, name: 'g', patternType: PatternType.LITERAL },
        entry: { principal: TEST_SESSION.principal, host: '*', operation: AclOperation.DESCRIBE, permissionType: PermissionType.ALLOW },
      },
    ]);
    assert.equal((await findShare(h, 6, [key])).coordinators[0]!.errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    assert.equal(
      (await findShare(h, 6, ['malformed'])).coordinators[0]!.errorCode,
      ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
      'authorization comes before the key is parsed',
    );
    await grantClusterAction(h);
    assert.equal((await findShare(h, 6, [key])).coordinators[0]!.errorCode, ErrorCode.NONE);
  });
});
