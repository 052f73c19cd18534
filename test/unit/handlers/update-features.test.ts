/**
 * Features (KIP-584): UpdateFeatures' validation as Kafka 4.4's controller answers it (checked
 * against it: test/compat/api-versions-vs-kafka), the levels stored in the single broker's
 * metadata file and shown by ApiVersions with their epoch, and the behaviour they switch:
 * `group.version` 0 turns the consumer group protocol off, `share.version` 0 share groups.
 */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyFeatureUpdates, UpgradeType, type FeatureUpdate } from '../../../src/metadata/features.js';
import { METADATA_FILE } from '../../../src/metadata/metadata-store.js';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import * as M from '@sluice/protocol/messages/index.js';
import { AclOperation as Op, PatternType, PermissionType, ResourceType } from '../../../src/security/acl/index.js';
import { apiVersionsHandler } from '../../../src/handlers/18-api-versions.js';
import { updateFeaturesHandler } from '../../../src/handlers/57-update-features.js';
import { consumerGroupHeartbeatHandler } from '../../../src/handlers/68-consumer-group-heartbeat.js';
import { consumerGroupDescribeHandler } from '../../../src/handlers/69-consumer-group-describe.js';
import { shareGroupHeartbeatHandler } from '../../../src/handlers/76-share-group-heartbeat.js';
import { shareGroupDescribeHandler } from '../../../src/handlers/77-share-group-describe.js';
import { shareFetchHandler } from '../../../src/handlers/78-share-fetch.js';
import { shareAcknowledgeHandler } from '../../../src/handlers/79-share-acknowledge.js';
import { describeShareGroupOffsetsHandler } from '../../../src/handlers/90-describe-share-group-offsets.js';
import { alterShareGroupOffsetsHandler } from '../../../src/handlers/91-alter-share-group-offsets.js';
import { deleteShareGroupOffsetsHandler } from '../../../src/handlers/92-delete-share-group-offsets.js';
import { call, harness, TEST_SESSION, type Harness } from './admin-harness.js';

const DEFAULTS = new Map([
  ['group.version', 1],
  ['share.version', 2],
  ['transaction.version', 2],
]);
const up = (feature: string, level: number, upgradeType: number = UpgradeType.UPGRADE): FeatureUpdate => ({ feature, level, upgradeType });

function refusal(updates: FeatureUpdate[], peers?: Map<number, Record<string, { minVersion: number; maxVersion: number }>>): string {
  try {
    applyFeatureUpdates(DEFAULTS, updates, peers);
  } catch (err) {
    assert.ok(err instanceof KafkaError);
    assert.equal(err.code, ErrorCode.INVALID_UPDATE_VERSION);
    return err.message.replace(/^.*had an error: /, '');
  }
  return 'accepted';
}

describe('feature update validation', () => {
  test('upgrades within the supported range; a downgrade or disable needs a downgrade type (safe or unsafe alike)', () => {
    assert.deepEqual(
      applyFeatureUpdates(new Map(), [up('transaction.version', 2), up('group.version', 1)]),
      new Map([
        ['transaction.version', 2],
        ['group.version', 1],
      ]),
    );
    assert.deepEqual(
      applyFeatureUpdates(DEFAULTS, [up('transaction.version', 1, UpgradeType.SAFE_DOWNGRADE)]).get('transaction.version'),
      1,
    );
    assert.deepEqual(
      applyFeatureUpdates(DEFAULTS, [up('transaction.version', 1, UpgradeType.UNSAFE_DOWNGRADE)]).get('transaction.version'),
      1,
    );
    const disabled = applyFeatureUpdates(DEFAULTS, [up('share.version', 0, UpgradeType.SAFE_DOWNGRADE)]);
    assert.equal(disabled.has('share.version'), false, 'level 0 leaves the finalized features, as in Kafka');
    assert.deepEqual(applyFeatureUpdates(DEFAULTS, [up('group.version', 1)]), DEFAULTS, 'the current level again is accepted');
  });

  test("Kafka's refusals, the whole request refused by the first", () => {
    assert.match(refusal([up('transaction.version', 1)]), /Can't downgrade the version of this feature/);
    assert.match(refusal([up('group.version', 0)]), /Can't downgrade/);
    assert.match(refusal([up('transaction.version', 3)]), /only supports versions 0-2/);
    assert.match(refusal([up('foo.version', 1)]), /does not support this feature/);
    assert.match(refusal([up('foo.version', 0, UpgradeType.SAFE_DOWNGRADE)]), /does not support this feature/);
    assert.match(refusal([up('transaction.version', -1, UpgradeType.SAFE_DOWNGRADE)]), /cannot be less than 0/);
    assert.match(refusal([up('transaction.version', 1, 0)]), /upgrade type/);
    assert.match(refusal([up('transaction.version', 1, 4)]), /upgrade type/);
    assert.match(
      refusal([up('share.version', 0, UpgradeType.SAFE_DOWNGRADE), up('group.version', 5)]),
      /group.version.*only supports versions 0-1/,
    );
    assert.equal(
      refusal([up('group.version', 0, UpgradeType.SAFE_DOWNGRADE), up('group.version', 0)]),
      "Invalid update version 0 for feature group.version. Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade.",
      'a repeated feature counts once, with its last entry',
    );
  });

  test('every other registered broker must support the level: one that does not know the feature supports only 0', () => {
    assert.match(
      refusal([up('share.version', 1, UpgradeType.SAFE_DOWNGRADE)], new Map([[2, { 'share.version': { minVersion: 0, maxVersion: 0 } }]])),
      /Broker 2 does not support this feature/,
    );
    assert.match(refusal([up('transaction.version', 2)], new Map([[3, {}]])), /Broker 3 does not support this feature/);
    assert.match(
      refusal(
        [up('group.version', 1)],
        new Map([
          [2, { 'group.version': { minVersion: 0, maxVersion: 1 } }],
          [3, { 'group.version': { minVersion: 0, maxVersion: 0 } }],
        ]),
      ),
      /Broker 3/,
    );
    assert.equal(refusal([up('group.version', 0, UpgradeType.SAFE_DOWNGRADE)], new Map([[3, {}]])), 'accepted');
  });
});

const open: Harness[] = [];
afterEach(() => {
  for (const h of open.splice(0)) h.close();
});
function fresh(options: Parameters<typeof harness>[0] = {}): Harness {
  const h = harness(options);
  open.push(h);
  return h;
}

const apiVersions = (h: Harness) =>
  call(
    apiVersionsHandler,
    M.ApiVersionsRequest,
    M.ApiVersionsResponse,
    4,
    { clientSoftwareName: 'test', clientSoftwareVersion: '1' },
    h.cluster,
  );
const finalized = async (h: Harness) => {
  const r = await apiVersions(h);
  return { epoch: r.finalizedFeaturesEpoch, levels: Object.fromEntries(r.finalizedFeatures.map((f) => [f.name, f.maxVersionLevel])) };
};
const update = (
  h: Harness,
  version: number,
  updates: Array<{ feature: string; maxVersionLevel: number; upgradeType?: number }>,
  validateOnly = false,
) =>
  call(
    updateFeaturesHandler,
    M.UpdateFeaturesRequest,
    M.UpdateFeaturesResponse,
    version,
    { timeoutMs: 10_000, featureUpdates: updates, validateOnly },
    h.cluster,
  );

describe('UpdateFeatures on a single broker', () => {
  test('a change is stored in the metadata file, shown by ApiVersions with the next epoch, and survives a restart', async () => {
    const h = fresh();
    assert.deepEqual(await finalized(h), { epoch: 0n, levels: { 'group.version': 1, 'share.version': 2, 'transaction.version': 2 } });
    const r = await update(h, 2, [
      { feature: 'transaction.version', maxVersionLevel: 1, upgradeType: UpgradeType.SAFE_DOWNGRADE },
      { feature: 'share.version', maxVersionLevel: 0, upgradeType: UpgradeType.UNSAFE_DOWNGRADE },
    ]);
    assert.deepEqual([r.errorCode, r.results], [ErrorCode.NONE, []]);
    assert.deepEqual(await finalized(h), { epoch: 1n, levels: { 'group.version': 1, 'transaction.version': 1 } });
    const file = JSON.parse(readFileSync(join(h.dir, METADATA_FILE), 'utf8')) as { features: unknown };
    assert.deepEqual(file.features, { epoch: 1, levels: { 'group.version': 1, 'transaction.version': 1 } });
    const again = h.reopen();
    open.push(again);
    assert.deepEqual(await finalized(again), { epoch: 1n, levels: { 'group.version': 1, 'transaction.version': 1 } });
  });

  test('v0 and v1 list each feature on success; a refusal is the top-level error alone; validateOnly changes nothing', async () => {
    const h = fresh();
    const v1 = await update(h, 1, [{ feature: 'transaction.version', maxVersionLevel: 1, upgradeType: UpgradeType.SAFE_DOWNGRADE }], true);
    assert.deepEqual(
      [v1.errorCode, v1.results.map((x) => [x.feature, x.errorCode])],
      [ErrorCode.NONE, [['transaction.version', ErrorCode.NONE]]],
    );
    assert.deepEqual((await finalized(h)).epoch, 0n);
    const refused = await update(h, 1, [{ feature: 'transaction.version', maxVersionLevel: 3 }]);
    assert.deepEqual([refused.errorCode, refused.results], [ErrorCode.INVALID_UPDATE_VERSION, []]);
    assert.match(refused.errorMessage ?? '', /only supports versions 0-2/);
    // Kafka 4.4 reads no AllowDowngrade: a v0 downgrade is refused even with it set.
    const v0 = await call(
      updateFeaturesHandler,
      M.UpdateFeaturesRequest,
      M.UpdateFeaturesResponse,
      0,
      { timeoutMs: 10_000, featureUpdates: [{ feature: 'group.version', maxVersionLevel: 0, allowDowngrade: true }] },
      h.cluster,
    );
    assert.equal(v0.errorCode, ErrorCode.INVALID_UPDATE_VERSION);
    const same = await call(
      updateFeaturesHandler,
      M.UpdateFeaturesRequest,
      M.UpdateFeaturesResponse,
      0,
      { timeoutMs: 10_000, featureUpdates: [{ feature: 'group.version', maxVersionLevel: 1, allowDowngrade: false }] },
      h.cluster,
    );
    assert.deepEqual(
      same.results.map((x) => [x.feature, x.errorCode]),
      [['group.version', ErrorCode.NONE]],
    );
  });

  test('needs ALTER on the cluster', async () => {
    const h = fresh({ authorizer: { superUsers: [], allowEveryoneIfNoAclFound: false } });
    const body = [{ feature: 'group.version', maxVersionLevel: 0, upgradeType: UpgradeType.SAFE_DOWNGRADE }];
    assert.equal((await update(h, 2, body)).errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    assert.equal((await finalized(h)).levels['group.version'], 1);
    await h.cluster.acls.create([
      {
        pattern: { resourceType: ResourceType.CLUSTER, name: 'kafka-cluster', patternType: PatternType.LITERAL },
        entry: { principal: TEST_SESSION.principal, host: '*', operation: Op.ALTER, permissionType: PermissionType.ALLOW },
      },
    ]);
    assert.equal((await update(h, 2, body)).errorCode, ErrorCode.NONE);
  });
});

describe('what the levels switch', () => {
  const member = 'mmmmmmmmmmmmmmmmmmmmmm';
  const topicId = 'AAAAAAAAAAAAAAAAAAAAAQ';

  test('group.version 0: ConsumerGroupHeartbeat and ConsumerGroupDescribe answer UNSUPPORTED_VERSION, as Kafka', async () => {
    const h = fresh();
    assert.equal(
      (await update(h, 2, [{ feature: 'group.version', maxVersionLevel: 0, upgradeType: UpgradeType.SAFE_DOWNGRADE }])).errorCode,
      ErrorCode.NONE,
    );
    const hb = await call(
      consumerGroupHeartbeatHandler,
      M.ConsumerGroupHeartbeatRequest,
      M.ConsumerGroupHeartbeatResponse,
      0,
      { groupId: 'g', memberId: member, memberEpoch: 0, rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['t'], topicPartitions: [] },
      h.cluster,
    );
    assert.equal(hb.errorCode, ErrorCode.UNSUPPORTED_VERSION);
    const described = await call(
      consumerGroupDescribeHandler,
      M.ConsumerGroupDescribeRequest,
      M.ConsumerGroupDescribeResponse,
      0,
      { groupIds: ['g'], includeAuthorizedOperations: false },
      h.cluster,
    );
    assert.deepEqual(
      described.groups.map((g) => [g.groupId, g.errorCode]),
      [['g', ErrorCode.UNSUPPORTED_VERSION]],
    );
  });

  test('share.version 0: every share-group API answers UNSUPPORTED_VERSION in its own shape, as Kafka; 1 serves them again', async () => {
    const h = fresh();
    assert.equal(
      (await update(h, 2, [{ feature: 'share.version', maxVersionLevel: 0, upgradeType: UpgradeType.SAFE_DOWNGRADE }])).errorCode,
      ErrorCode.NONE,
    );
    const heartbeat = () =>
      call(
        shareGroupHeartbeatHandler,
        M.ShareGroupHeartbeatRequest,
        M.ShareGroupHeartbeatResponse,
        1,
        { groupId: 'g', memberId: member, memberEpoch: 0, subscribedTopicNames: ['t'] },
        h.cluster,
      );
    const answers = [
      (await heartbeat()).errorCode,
      (await call(shareGroupDescribeHandler, M.ShareGroupDescribeRequest, M.ShareGroupDescribeResponse, 1, { groupIds: ['g'] }, h.cluster))
        .groups[0]!.errorCode,
      (
        await call(
          shareFetchHandler,
          M.ShareFetchRequest,
          M.ShareFetchResponse,
          1,
          { groupId: 'g', memberId: member, topics: [{ topicId, partitions: [{ partitionIndex: 0 }] }] },
          h.cluster,
        )
      ).errorCode,
      (
        await call(
          shareAcknowledgeHandler,
          M.ShareAcknowledgeRequest,
          M.ShareAcknowledgeResponse,
          1,
          { groupId: 'g', memberId: member, shareSessionEpoch: 1, topics: [] },
          h.cluster,
        )
      ).errorCode,
      (
        await call(
          describeShareGroupOffsetsHandler,
          M.DescribeShareGroupOffsetsRequest,
          M.DescribeShareGroupOffsetsResponse,
          0,
          { groups: [{ groupId: 'g', topics: null }] },
          h.cluster,
        )
      ).groups[0]!.errorCode,
      (
        await call(
          alterShareGroupOffsetsHandler,
          M.AlterShareGroupOffsetsRequest,
          M.AlterShareGroupOffsetsResponse,
          0,
          { groupId: 'g', topics: [{ topicName: 't', partitions: [{ partitionIndex: 0, startOffset: 0n }] }] },
          h.cluster,
        )
      ).errorCode,
      (
        await call(
          deleteShareGroupOffsetsHandler,
          M.DeleteShareGroupOffsetsRequest,
          M.DeleteShareGroupOffsetsResponse,
          0,
          { groupId: 'g', topics: [{ topicName: 't' }] },
          h.cluster,
        )
      ).errorCode,
    ];
    assert.deepEqual(answers, Array(7).fill(ErrorCode.UNSUPPORTED_VERSION));
    const describeNoTopics = () =>
      call(
        describeShareGroupOffsetsHandler,
        M.DescribeShareGroupOffsetsRequest,
        M.DescribeShareGroupOffsetsResponse,
        0,
        { groups: [{ groupId: 'g', topics: [] }] },
        h.cluster,
      );
    assert.equal((await describeNoTopics()).groups[0]!.errorCode, ErrorCode.UNSUPPORTED_VERSION);
    assert.equal((await update(h, 2, [{ feature: 'share.version', maxVersionLevel: 1 }])).errorCode, ErrorCode.NONE);
    assert.equal((await describeNoTopics()).groups[0]!.errorCode, ErrorCode.NONE);
  });
});
