/**
 * The handlers' shared authorization (`authorization.ts`) through real handlers: the principal
 * is the harness session's (User:ANONYMOUS at 127.0.0.1), the ACLs the controller's.
 */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as M from '@sluice/protocol/messages/index.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { metadataHandler } from '../../../src/handlers/03-metadata.js';
import { createTopicsHandler } from '../../../src/handlers/19-create-topics.js';
import { describeAclsHandler } from '../../../src/handlers/29-describe-acls.js';
import { createAclsHandler } from '../../../src/handlers/30-create-acls.js';
import { deleteAclsHandler } from '../../../src/handlers/31-delete-acls.js';
import { describeConfigsHandler } from '../../../src/handlers/32-describe-configs.js';
import { alterReplicaLogDirsHandler } from '../../../src/handlers/34-alter-replica-log-dirs.js';
import { describeClusterHandler } from '../../../src/handlers/60-describe-cluster.js';
import { AclOperation as Op, PatternType, PermissionType, ResourceType, type AclBinding } from '../../../src/security/acl/index.js';
import { call, harness, TEST_SESSION, type Harness } from './admin-harness.js';
import { CloseConnection } from '../../../src/handlers/handler.js';

const open: Harness[] = [];
afterEach(() => {
  for (const h of open.splice(0)) h.close();
});

const ME = TEST_SESSION.principal;
function secured(superUsers: string[] = []): Harness {
  const h = harness({ authorizer: { superUsers, allowEveryoneIfNoAclFound: false } });
  open.push(h);
  return h;
}
function allow(
  resourceType: ResourceType,
  name: string,
  operation: Op,
  patternType: PatternType = PatternType.LITERAL,
  permissionType: PermissionType = PermissionType.ALLOW,
): AclBinding {
  return { pattern: { resourceType, name, patternType }, entry: { principal: ME, host: '*', operation, permissionType } };
}
async function grant(h: Harness, ...bindings: AclBinding[]): Promise<void> {
  for (const r of await h.cluster.acls.create(bindings)) assert.equal(r.errorCode, ErrorCode.NONE);
}
const createTopic = (h: Harness, name: string) =>
  call(
    createTopicsHandler,
    M.CreateTopicsRequest,
    M.CreateTopicsResponse,
    7,
    { topics: [{ name, numPartitions: 1, replicationFactor: -1 }] },
    h.cluster,
  ).then((r) => r.topics[0]!);
const metadata = (h: Harness, topics: string[] | null, allowAutoTopicCreation = false) =>
  call(
    metadataHandler,
    M.MetadataRequest,
    M.MetadataResponse,
    12,
    { topics: topics === null ? null : topics.map((name) => ({ name })), allowAutoTopicCreation, includeTopicAuthorizedOperations: true },
    h.cluster,
  );

describe('handler authorization', () => {
  test('CreateTopics needs CREATE on the cluster or the topic (a PREFIXED ACL counts)', async () => {
    const h = secured();
    assert.equal((await createTopic(h, 'orders')).errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    await grant(h, allow(ResourceType.TOPIC, 'ord', Op.CREATE, PatternType.PREFIXED));
    assert.equal((await createTopic(h, 'orders')).errorCode, ErrorCode.NONE);
    assert.equal((await createTopic(h, 'sales')).errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    await grant(h, allow(ResourceType.CLUSTER, 'kafka-cluster', Op.CREATE));
    assert.equal((await createTopic(h, 'sales')).errorCode, ErrorCode.NONE);
  });

  test('AlterReplicaLogDirs needs ALTER on the cluster: without it every partition is CLUSTER_AUTHORIZATION_FAILED and nothing moves', async () => {
    const h = secured();
    const alter = () =>
      call(
        alterReplicaLogDirsHandler,
        M.AlterReplicaLogDirsRequest,
        M.AlterReplicaLogDirsResponse,
        2,
        { dirs: [{ path: '/data', topics: [{ name: 'orders', partitions: [0, 1] }] }] },
        h.cluster,
      ).then((r) => r.results.flatMap((t) => t.partitions.map((p) => [t.topicName, p.partitionIndex, p.errorCode])));
    assert.deepEqual(await alter(), [
      ['orders', 0, ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
      ['orders', 1, ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
    ]);
    assert.equal(h.partitions.logDirMoves.length, 0);
    await grant(h, allow(ResourceType.CLUSTER, 'kafka-cluster', Op.DESCRIBE));
    assert.equal((await alter())[0]![2], ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'DESCRIBE is not enough');
    await grant(h, allow(ResourceType.CLUSTER, 'kafka-cluster', Op.ALTER));
    // Authorized, the request goes on to the partitions, which this cluster does not have.
    assert.deepEqual(await alter(), [
      ['orders', 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
      ['orders', 1, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
    ]);
  });

  test('Metadata leaves out topics the principal may not DESCRIBE, refuses them when named, and auto-creates only with CREATE', async () => {
    const h = secured();
    await grant(h, allow(ResourceType.CLUSTER, 'kafka-cluster', Op.CREATE), allow(ResourceType.TOPIC, 'visible', Op.READ));
    await createTopic(h, 'visible');
    await createTopic(h, 'hidden');
    const all = await metadata(h, null);
    assert.deepEqual(
      all.topics.map((t) => t.name),
      ['visible'],
    );
    assert.equal(all.topics[0]!.topicAuthorizedOperations, (1 << Op.READ) | (1 << Op.DESCRIBE));
    const named = await metadata(h, ['visible', 'hidden']);
    assert.deepEqual(
      named.topics.map((t) => [t.name, t.errorCode]),
      [
        ['visible', ErrorCode.NONE],
        ['hidden', ErrorCode.TOPIC_AUTHORIZATION_FAILED],
      ],
    );
    assert.equal(named.topics[1]!.partitions.length, 0);
    await grant(h, allow(ResourceType.TOPIC, 'auto-', Op.DESCRIBE, PatternType.PREFIXED));
    const h2 = secured();
    await grant(h2, allow(ResourceType.TOPIC, 'auto-', Op.DESCRIBE, PatternType.PREFIXED));
    assert.equal(
      (await metadata(h2, ['auto-1'], true)).topics[0]!.errorCode,
      ErrorCode.TOPIC_AUTHORIZATION_FAILED,
      'no CREATE: not auto-created',
    );
    assert.equal(h2.cluster.metadata.topic('auto-1'), undefined);
    await grant(h2, allow(ResourceType.TOPIC, 'auto-', Op.CREATE, PatternType.PREFIXED));
    assert.equal((await metadata(h2, ['auto-1'], true)).topics[0]!.errorCode, ErrorCode.NONE);
  });

  test('DENY overrides ALLOW; super users pass everything', async () => {
    const h = secured();
    await grant(
      h,
      allow(ResourceType.CLUSTER, 'kafka-cluster', Op.CREATE),
      allow(ResourceType.TOPIC, '*', Op.READ),
      allow(ResourceType.TOPIC, 'a', Op.DESCRIBE, PatternType.PREFIXED, PermissionType.DENY),
    );
    await createTopic(h, 'a-1');
    await createTopic(h, 'b-1');
    assert.deepEqual(
      (await metadata(h, null)).topics.map((t) => t.name),
      ['b-1'],
    );
    const sup = secured([ME]);
    assert.equal((await createTopic(sup, 'anything')).errorCode, ErrorCode.NONE);
    assert.equal((await metadata(sup, null)).topics.length, 1);
  });

  test('DescribeConfigs: DESCRIBE_CONFIGS on the topic (ALTER_CONFIGS implies it) or the cluster for a broker', async () => {
    const h = secured([]);
    await grant(h, allow(ResourceType.CLUSTER, 'kafka-cluster', Op.CREATE));
    await createTopic(h, 'orders');
    const describe = () =>
      call(
        describeConfigsHandler,
        M.DescribeConfigsRequest,
        M.DescribeConfigsResponse,
        4,
        {
          resources: [
            { resourceType: 2, resourceName: 'orders', configurationKeys: null },
            { resourceType: 4, resourceName: '0', configurationKeys: null },
          ],
        },
        h.cluster,
      ).then((r) => r.results.map((x) => x.errorCode));
    assert.deepEqual(await describe(), [ErrorCode.TOPIC_AUTHORIZATION_FAILED, ErrorCode.CLUSTER_AUTHORIZATION_FAILED]);
    await grant(
      h,
      allow(ResourceType.TOPIC, 'orders', Op.ALTER_CONFIGS),
      allow(ResourceType.CLUSTER, 'kafka-cluster', Op.DESCRIBE_CONFIGS),
    );
    assert.deepEqual(await describe(), [ErrorCode.NONE, ErrorCode.NONE]);
  });

  test('DescribeCluster answers the cluster bit set, none without DESCRIBE; everything without an authorizer', async () => {
    const describe = (h: Harness) =>
      call(
        describeClusterHandler,
        M.DescribeClusterRequest,
        M.DescribeClusterResponse,
        1,
        { includeClusterAuthorizedOperations: true },
        h.cluster,
      ).then((r) => r.clusterAuthorizedOperations);
    const h = secured();
    await grant(h, allow(ResourceType.CLUSTER, 'kafka-cluster', Op.CREATE));
    assert.equal(await describe(h), 0);
    await grant(h, allow(ResourceType.CLUSTER, 'kafka-cluster', Op.ALTER));
    assert.equal(await describe(h), (1 << Op.CREATE) | (1 << Op.ALTER) | (1 << Op.DESCRIBE));
    const plain = harness();
    open.push(plain);
    assert.equal(await describe(plain), 8096);
  });
});

describe('the ACL APIs', () => {
  const creation: M.CreateAclsRequestAclCreationInput & { resourceName: string } = {
    resourceType: ResourceType.TOPIC,
    resourceName: 'orders',
    resourcePatternType: PatternType.LITERAL,
    principal: 'User:alice',
    host: '*',
    operation: Op.READ,
    permissionType: PermissionType.ALLOW,
  };
  const create = (h: Harness, creations: M.CreateAclsRequestAclCreationInput[]) =>
    call(createAclsHandler, M.CreateAclsRequest, M.CreateAclsResponse, 3, { creations }, h.cluster).then((r) => r.results);
  const anyFilter: M.DescribeAclsRequestDataInput = {
    resourceTypeFilter: ResourceType.ANY,
    resourceNameFilter: null,
    patternTypeFilter: PatternType.ANY,
    principalFilter: null,
    hostFilter: null,
    operation: Op.ANY,
    permissionType: PermissionType.ANY,
  };
  const describeAcls = (h: Harness, filter = anyFilter) =>
    call(describeAclsHandler, M.DescribeAclsRequest, M.DescribeAclsResponse, 3, filter, h.cluster);

  test('without an authorizer: SECURITY_DISABLED', async () => {
    const h = harness();
    open.push(h);
    assert.equal((await create(h, [creation]))[0]!.errorCode, ErrorCode.SECURITY_DISABLED);
    assert.equal((await describeAcls(h)).errorCode, ErrorCode.SECURITY_DISABLED);
  });

  test('CLUSTER_AUTHORIZATION_FAILED without ALTER (create, delete) or DESCRIBE (describe) on the cluster', async () => {
    const h = secured();
    assert.equal((await create(h, [creation]))[0]!.errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    assert.equal((await describeAcls(h)).errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    await grant(h, allow(ResourceType.CLUSTER, 'kafka-cluster', Op.DESCRIBE));
    assert.equal((await describeAcls(h)).errorCode, ErrorCode.NONE);
    assert.equal((await create(h, [creation]))[0]!.errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
  });

  test("create, describe with filters, delete: round trip with Kafka 4.4's validation and answers", async () => {
    const h = secured([ME]);
    const results = await create(h, [
      creation,
      {
        ...creation,
        resourceName: 'sales-',
        resourcePatternType: PatternType.PREFIXED,
        permissionType: PermissionType.DENY,
        operation: Op.WRITE,
      },
      { ...creation, resourceType: ResourceType.CLUSTER, resourceName: 'other' },
      { ...creation, resourcePatternType: PatternType.MATCH },
      { ...creation, principal: 'alice' },
    ]);
    assert.deepEqual(
      results.map((r) => [r.errorCode, r.errorMessage]),
      [
        [ErrorCode.NONE, ''],
        [ErrorCode.NONE, ''],
        [ErrorCode.INVALID_REQUEST, 'The only valid name for the CLUSTER resource is kafka-cluster'],
        [ErrorCode.UNKNOWN_SERVER_ERROR, null],
        [
          ErrorCode.INVALID_REQUEST,
          'Could not parse principal from `alice` (no colon is present separating the principal type from the principal name)',
        ],
      ],
    );
    const all = await describeAcls(h);
    assert.deepEqual([all.errorCode, all.errorMessage], [ErrorCode.NONE, '']);
    assert.deepEqual(
      all.resources.map((r) => [r.resourceName, r.patternType, r.acls.length]),
      [
        ['orders', PatternType.LITERAL, 1],
        ['sales-', PatternType.PREFIXED, 1],
      ],
    );
    const match = await describeAcls(h, {
      ...anyFilter,
      resourceTypeFilter: ResourceType.TOPIC,
      resourceNameFilter: 'sales-eu',
      patternTypeFilter: PatternType.MATCH,
    });
    assert.deepEqual(
      match.resources.map((r) => r.resourceName),
      ['sales-'],
    );
    const deleteAcls = (filters: M.DescribeAclsRequestDataInput[]) =>
      call(deleteAclsHandler, M.DeleteAclsRequest, M.DeleteAclsResponse, 3, { filters }, h.cluster);
    const deleted = await deleteAcls([
      { ...anyFilter, permissionType: PermissionType.DENY },
      { ...anyFilter, resourceTypeFilter: ResourceType.GROUP },
    ]);
    assert.deepEqual(
      deleted.filterResults.map((r) => [r.errorCode, r.matchingAcls.map((a) => a.resourceName)]),
      [
        [ErrorCode.NONE, ['sales-']],
        [ErrorCode.NONE, []],
      ],
    );
    assert.deepEqual(
      (await describeAcls(h)).resources.map((r) => r.resourceName),
      ['orders'],
    );
  });

  test('UNKNOWN codes in a filter or a creation close the connection, as Kafka 4.4 cannot parse the request', async () => {
    const h = secured([ME]);
    await assert.rejects(describeAcls(h, { ...anyFilter, operation: Op.UNKNOWN }), CloseConnection);
    await assert.rejects(create(h, [{ ...creation, permissionType: 9 }]), CloseConnection);
    await assert.rejects(
      call(
        deleteAclsHandler,
        M.DeleteAclsRequest,
        M.DeleteAclsResponse,
        3,
        { filters: [{ ...anyFilter, patternTypeFilter: PatternType.UNKNOWN }] },
        h.cluster,
      ),
      CloseConnection,
    );
  });
});
