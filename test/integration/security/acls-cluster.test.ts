// ACLs in a 3-broker ZooKeeper cluster: an ACL created through one broker is enforced by the
// others (ZooKeeper /kafka-acl* plus the change notifications every broker follows), and the
// layout is Kafka 3.9's: ACLs written by its kafka-acls.sh (AclCommand, ZooKeeper mode) are
// enforced, and ACLs Sluice wrote are listed by it.
//
// Inter-broker requests are authorized too (CLUSTER_ACTION). Over PLAINTEXT the brokers, like
// every client, are User:ANONYMOUS, so a real deployment lists the brokers' principal in
// `super.users`; this test cannot (its clients would then be super users as well), and instead
// gives User:ANONYMOUS CLUSTER_ACTION by ACL before anything else is governed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as M from '@sluice/protocol/messages/index.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { AclOperation, PatternType, PermissionType, ResourceType } from '../../../src/security/acl/index.js';
import { startCluster, type TestCluster } from '../../helpers/cluster.js';
import { waitFor, when } from '../../helpers/wait-for.js';
import { wireCall } from '../../helpers/wire-call.js';
import { javaSkip, zooKeeperSkip } from '../../helpers/requirements.js';
import { kafkaClasspath, kafkaLibsDir, kafkaLibsPresent, ZOOKEEPER_ERA_VERSION } from '../../../tools/kafka/kafka-release.js';

const execFileAsync = promisify(execFile);
const PRINCIPAL = 'User:ANONYMOUS';

const createAcls = (bootstrap: string, creations: M.CreateAclsRequestAclCreationInput[]) =>
  wireCall(bootstrap, M.CreateAclsRequest, M.CreateAclsResponse, 3, { creations }).then((r) => r.results.map((x) => x.errorCode));

const mine = (
  resourceType: number,
  resourceName: string,
  operation: number,
  principal = PRINCIPAL,
): M.CreateAclsRequestAclCreationInput => ({
  resourceType,
  resourceName,
  resourcePatternType: PatternType.LITERAL,
  principal,
  host: '*',
  operation,
  permissionType: PermissionType.ALLOW,
});

/** The error Metadata answers `via` broker for the named topic. */
const topicError = (bootstrap: string, topic: string) =>
  wireCall(bootstrap, M.MetadataRequest, M.MetadataResponse, 12, { topics: [{ name: topic }], allowAutoTopicCreation: false }).then(
    (r) => r.topics[0]!.errorCode,
  );

/** Kafka 3.9's kafka-acls.sh in ZooKeeper mode (`kafka.admin.AclCommand --authorizer-properties zookeeper.connect=...`). */
async function kafkaAcls(zookeeperConnect: string, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(
    'java',
    [
      '-Xmx192m',
      '-XX:TieredStopAtLevel=1',
      '-cp',
      kafkaClasspath(kafkaLibsDir(ZOOKEEPER_ERA_VERSION)),
      'kafka.admin.AclCommand',
      '--authorizer-properties',
      `zookeeper.connect=${zookeeperConnect}`,
      ...args,
    ],
    { timeout: 60_000 },
  );
  return stdout;
}

const skip = zooKeeperSkip();

describe('ACLs in a ZooKeeper cluster', { skip }, () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startCluster(3, {
      'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer',
      'allow.everyone.if.no.acl.found': 'true',
      'super.users': 'User:admin',
    });
    // First the brokers' own right to talk to each other, then what the test's admin calls need.
    const cluster1 = cluster.brokers[0]!.bootstrap;
    const granted = await createAcls(
      cluster1,
      [AclOperation.CLUSTER_ACTION, AclOperation.ALTER, AclOperation.DESCRIBE, AclOperation.CREATE].map((op) =>
        mine(ResourceType.CLUSTER, 'kafka-cluster', op),
      ),
    );
    assert.deepEqual(granted, [0, 0, 0, 0]);
    const created = await wireCall(cluster1, M.CreateTopicsRequest, M.CreateTopicsResponse, 7, {
      topics: ['by-sluice', 'by-kafka-tool'].map((name) => ({ name, numPartitions: 3, replicationFactor: 3 })),
      timeoutMs: 30_000,
    });
    assert.deepEqual(
      created.topics.map((t) => t.errorCode),
      [0, 0],
    );
    for (const via of [1, 2, 3]) {
      await cluster.waitFor(
        `the topics on broker ${via}`,
        (m) => m.topics.filter((t) => t.name?.startsWith('by-') === true).length === 2,
        undefined,
        via,
      );
    }
  });
  after(async () => {
    await cluster?.stop();
  });

  test('an ACL created through broker 1 is enforced by brokers 2 and 3 within moments', async () => {
    const [b1, b2, b3] = cluster.brokers.map((b) => b.bootstrap) as [string, string, string];
    assert.equal(await topicError(b3, 'by-sluice'), ErrorCode.NONE);
    assert.deepEqual(await createAcls(b1, [mine(ResourceType.TOPIC, 'by-sluice', AclOperation.ALL, 'User:alice')]), [0]);
    for (const b of [b2, b3])
      await waitFor(`broker ${b} to enforce the ACL`, 10_000, async () =>
        when((await topicError(b, 'by-sluice')) === ErrorCode.TOPIC_AUTHORIZATION_FAILED),
      );
    const described = await wireCall(b2, M.DescribeAclsRequest, M.DescribeAclsResponse, 3, {
      resourceTypeFilter: ResourceType.TOPIC,
      resourceNameFilter: 'by-sluice',
      patternTypeFilter: PatternType.ANY,
      principalFilter: null,
      hostFilter: null,
      operation: AclOperation.ANY,
      permissionType: PermissionType.ANY,
    });
    assert.deepEqual(
      described.resources.flatMap((r) => r.acls.map((a) => a.principal)),
      ['User:alice'],
    );
    // The cluster still replicates: inter-broker requests carry CLUSTER_ACTION.
    await cluster.waitFor('every partition led, full ISRs', (m) =>
      m.topics.filter((t) => t.name === 'by-kafka-tool').every((t) => t.partitions.every((p) => p.leaderId > 0 && p.isrNodes.length === 3)),
    );
  });

  test(
    "Kafka 3.9's kafka-acls.sh (ZooKeeper mode): its ACLs are enforced, Sluice's are listed",
    { skip: javaSkip() ?? (kafkaLibsPresent(ZOOKEEPER_ERA_VERSION) ? undefined : 'Kafka 3.9 jars absent') },
    async () => {
      const zk = `${cluster.zookeeper.connect}/sluice`;
      await kafkaAcls(
        zk,
        '--add',
        '--allow-principal',
        'User:bob',
        '--operation',
        'Read',
        '--topic',
        'by-kafka',
        '--resource-pattern-type',
        'prefixed',
      );
      for (const b of cluster.brokers.map((x) => x.bootstrap)) {
        await waitFor(`broker ${b} to enforce kafka-acls.sh's ACL`, 10_000, async () =>
          when((await topicError(b, 'by-kafka-tool')) === ErrorCode.TOPIC_AUTHORIZATION_FAILED),
        );
      }
      const listed = await kafkaAcls(zk, '--list', '--topic', 'by-sluice');
      assert.match(listed, /ResourcePattern\(resourceType=TOPIC, name=by-sluice, patternType=LITERAL\)/);
      assert.match(listed, /principal=User:alice, host=\*, operation=ALL, permissionType=ALLOW/);
      await kafkaAcls(zk, '--remove', '--force', '--topic', 'by-kafka', '--resource-pattern-type', 'prefixed');
      await waitFor('the removal to reach broker 2', 10_000, async () =>
        when((await topicError(cluster.brokers[1]!.bootstrap, 'by-kafka-tool')) === ErrorCode.NONE),
      );
    },
  );
});
