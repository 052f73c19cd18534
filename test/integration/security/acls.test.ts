// The ACL matrix against a real broker process with real clients (KafkaJS for the matrix and its
// admin ACL API, the Java AdminClient and producer, the sluice CLI), for one principal: the
// Identity says who the clients are and how a KafkaJS client becomes that (TLS or SASL settings
// once those land); it runs here for PLAINTEXT's User:ANONYMOUS. The exact-code checks
// over a raw socket (wireCall), the Java program and the CLI connect as plain PLAINTEXT clients:
// a TLS or SASL run must give them its settings too.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import kafkajs, { Kafka, logLevel, type Admin, type KafkaConfig } from 'kafkajs';
import * as M from '@sluice/protocol/messages/index.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { wireCall } from '../../helpers/wire-call.js';
import { javaSkip } from '../../helpers/requirements.js';
import { startJavaProgram } from '../groups/group-helpers.js';
import { ok, runCli } from '../../helpers/run-cli.js';

const ACL_AUTHORIZER = 'kafka.security.authorizer.AclAuthorizer';
// KafkaJS is CommonJS: its enums come off the default export.
const { AclResourceTypes, AclOperationTypes, AclPermissionTypes, ResourcePatternTypes } = kafkajs;
type AclResourceTypes = kafkajs.AclResourceTypes;
type AclOperationTypes = kafkajs.AclOperationTypes;
type ResourcePatternTypes = kafkajs.ResourcePatternTypes;

/** Who the clients are to the broker, and what makes a KafkaJS client that. */
interface Identity {
  readonly principal: string;
  /** The client's address as the broker sees it. */
  readonly host: string;
  readonly client: Partial<KafkaConfig>;
}

function errorType(err: unknown): string | undefined {
  const e = err as { type?: string; errors?: { type?: string }[]; originalError?: { type?: string }; cause?: { type?: string } };
  return e.type ?? e.originalError?.type ?? e.cause?.type ?? e.errors?.[0]?.type;
}

async function failureOf(action: Promise<unknown>): Promise<string> {
  try {
    await action;
    return 'none';
  } catch (err) {
    return errorType(err) ?? String(err);
  }
}

function aclMatrix(who: Identity): void {
  describe(`ACLs for ${who.principal} on a single broker`, () => {
    let broker: BrokerProcess;
    let kafka: Kafka;
    let admin: Admin;
    const allow = (
      resourceType: AclResourceTypes,
      resourceName: string,
      operation: AclOperationTypes,
      extra: { principal?: string; host?: string; pattern?: ResourcePatternTypes; deny?: boolean } = {},
    ) => ({
      resourceType,
      resourceName,
      resourcePatternType: extra.pattern ?? ResourcePatternTypes.LITERAL,
      principal: extra.principal ?? who.principal,
      host: extra.host ?? '*',
      operation,
      permissionType: extra.deny === true ? AclPermissionTypes.DENY : AclPermissionTypes.ALLOW,
    });
    const { TOPIC, GROUP, CLUSTER } = AclResourceTypes;
    const { ALL, READ, ALTER, DESCRIBE, WRITE, CREATE } = AclOperationTypes;

    before(async () => {
      // Resources without ACLs stay open (allow.everyone.if.no.acl.found) so that the test can set up its ACLs over the wire.
      broker = await startBrokerProcess({
        'authorizer.class.name': ACL_AUTHORIZER,
        'allow.everyone.if.no.acl.found': 'true',
        'group.initial.rebalance.delay.ms': '0',
      });
      kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 }, ...who.client });
      admin = kafka.admin();
      await admin.connect();
      const topics = ['allowed', 'denied', 'pre-x', 'wild', 'mixed', 'thishost', 'otherhost', 'java-ok', 'java-denied'];
      await admin.createTopics({ topics: topics.map((topic) => ({ topic, numPartitions: 1 })) });
      await admin.createAcls({
        acl: [
          allow(CLUSTER, 'kafka-cluster', ALTER),
          allow(CLUSTER, 'kafka-cluster', DESCRIBE),
          allow(TOPIC, 'allowed', ALL),
          allow(TOPIC, 'denied', ALL, { principal: 'User:alice' }),
          allow(TOPIC, 'java-denied', ALL, { principal: 'User:alice' }),
          allow(TOPIC, 'pre-', ALL, { pattern: ResourcePatternTypes.PREFIXED }),
          allow(TOPIC, 'wild', ALL, { principal: 'User:*' }),
          allow(TOPIC, 'mixed', ALL),
          allow(TOPIC, 'mixed', WRITE, { deny: true }),
          allow(TOPIC, 'thishost', ALL, { host: who.host }),
          allow(TOPIC, 'otherhost', ALL, { host: '10.9.9.9' }),
          allow(TOPIC, 'no-create', CREATE, { deny: true }),
          allow(GROUP, 'g-ok', READ),
          allow(GROUP, 'g-denied', READ, { principal: 'User:alice' }),
        ],
      });
    });

    after(async () => {
      await admin?.disconnect();
      await broker?.stop();
    });

    test('KafkaJS describeAcls lists the bindings, by filter', async () => {
      const all = await admin.describeAcls({
        resourceType: AclResourceTypes.ANY,
        resourcePatternType: ResourcePatternTypes.ANY,
        operation: AclOperationTypes.ANY,
        permissionType: AclPermissionTypes.ANY,
      });
      assert.equal(
        all.resources.reduce((n, r) => n + r.acls.length, 0),
        14,
      );
      const mixed = await admin.describeAcls({
        resourceType: TOPIC,
        resourceName: 'mixed',
        resourcePatternType: ResourcePatternTypes.LITERAL,
        operation: AclOperationTypes.ANY,
        permissionType: AclPermissionTypes.DENY,
      });
      assert.deepEqual(
        mixed.resources.flatMap((r) => r.acls.map((a) => [r.resourceName, a.operation, a.permissionType])),
        [['mixed', WRITE, AclPermissionTypes.DENY]],
      );
    });

    test('produce: allowed, denied, prefixed, wildcard principal, deny over allow, host match and mismatch', async () => {
      const producer = kafka.producer({ retry: { retries: 0 } });
      await producer.connect();
      try {
        const outcomes: Record<string, string> = {};
        for (const topic of ['allowed', 'denied', 'pre-x', 'wild', 'mixed', 'thishost', 'otherhost'])
          outcomes[topic] = await failureOf(producer.send({ topic, messages: [{ value: topic }] }));
        assert.deepEqual(outcomes, {
          allowed: 'none',
          denied: 'TOPIC_AUTHORIZATION_FAILED',
          'pre-x': 'none',
          wild: 'none',
          mixed: 'TOPIC_AUTHORIZATION_FAILED',
          thishost: 'none',
          otherhost: 'TOPIC_AUTHORIZATION_FAILED',
        });
      } finally {
        await producer.disconnect();
      }
    });

    test('fetch: READ needed per topic (DENY WRITE leaves READ)', async () => {
      const fetch = (topic: string) =>
        wireCall(broker.bootstrap, M.FetchRequest, M.FetchResponse, 12, {
          replicaId: -1,
          maxWaitMs: 0,
          minBytes: 0,
          maxBytes: 1 << 20,
          topics: [{ topic, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
        }).then((r) => r.responses[0]!.partitions[0]!.errorCode);
      assert.equal(await fetch('allowed'), ErrorCode.NONE);
      assert.equal(await fetch('mixed'), ErrorCode.NONE);
      assert.equal(await fetch('denied'), ErrorCode.TOPIC_AUTHORIZATION_FAILED);
      assert.equal(await fetch('otherhost'), ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    });

    test('a consumer group with READ joins, consumes and commits; one without gets GROUP_AUTHORIZATION_FAILED', async () => {
      const consumer = kafka.consumer({ groupId: 'g-ok', retry: { retries: 0 } });
      await consumer.connect();
      await consumer.subscribe({ topic: 'allowed', fromBeginning: true });
      const got = new Promise<string>(
        (resolve) => void consumer.run({ eachMessage: async ({ message }) => resolve(message.value!.toString()) }),
      );
      assert.equal(await got, 'allowed');
      await consumer.disconnect();
      const committed = await admin.fetchOffsets({ groupId: 'g-ok', topics: ['allowed'] });
      assert.equal(committed[0]!.partitions[0]!.offset, '1');
      const join = await wireCall(broker.bootstrap, M.JoinGroupRequest, M.JoinGroupResponse, 5, {
        groupId: 'g-denied',
        sessionTimeoutMs: 10_000,
        rebalanceTimeoutMs: 10_000,
        memberId: '',
        protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
      });
      assert.equal(join.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
      const commit = await wireCall(broker.bootstrap, M.OffsetCommitRequest, M.OffsetCommitResponse, 8, {
        groupId: 'g-denied',
        generationIdOrMemberEpoch: -1,
        memberId: '',
        topics: [{ name: 'allowed', partitions: [{ partitionIndex: 0, committedOffset: 0n, committedMetadata: null }] }],
      });
      assert.equal(commit.topics[0]!.partitions[0]!.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
      const fetched = await wireCall(broker.bootstrap, M.OffsetFetchRequest, M.OffsetFetchResponse, 7, {
        groupId: 'g-denied',
        topics: null,
        requireStable: false,
      });
      assert.equal(fetched.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
    });

    test('topic create and delete, configs: each needs its operation on the topic', async () => {
      assert.equal(await failureOf(admin.createTopics({ topics: [{ topic: 'no-create' }] })), 'TOPIC_AUTHORIZATION_FAILED');
      assert.equal(await failureOf(admin.createTopics({ topics: [{ topic: 'pre-new' }] })), 'none');
      assert.equal(await failureOf(admin.deleteTopics({ topics: ['denied'] })), 'TOPIC_AUTHORIZATION_FAILED');
      assert.equal(await failureOf(admin.deleteTopics({ topics: ['pre-new'] })), 'none');
      const describe = (name: string) => failureOf(admin.describeConfigs({ resources: [{ type: 2, name }], includeSynonyms: false }));
      assert.equal(await describe('allowed'), 'none');
      assert.equal(await describe('denied'), 'TOPIC_AUTHORIZATION_FAILED');
      assert.equal(
        await failureOf(
          admin.alterConfigs({
            validateOnly: false,
            resources: [{ type: 2, name: 'denied', configEntries: [{ name: 'retention.ms', value: '1000' }] }],
          }),
        ),
        'TOPIC_AUTHORIZATION_FAILED',
      );
      assert.equal(
        await failureOf(
          admin.alterConfigs({
            validateOnly: false,
            resources: [{ type: 2, name: 'allowed', configEntries: [{ name: 'retention.ms', value: '100000' }] }],
          }),
        ),
        'none',
      );
    });

    test('Metadata leaves out the topics the principal may not DESCRIBE', async () => {
      const { topics } = await admin.fetchTopicMetadata();
      const names = topics.map((t) => t.name).sort();
      assert.ok(names.includes('allowed') && names.includes('pre-x') && names.includes('wild') && names.includes('thishost'), names.join());
      assert.ok(!names.includes('denied') && !names.includes('otherhost') && !names.includes('java-denied'), names.join());
    });

    test(
      'the Java AdminClient creates, lists and deletes ACLs; the Java producer gets TopicAuthorizationException',
      { skip: javaSkip() },
      async () => {
        const p = startJavaProgram('test/integration/security/AclClients.java', 'AclClients', [
          broker.bootstrap,
          who.principal,
          'java-ok',
          'java-denied',
        ]);
        await p.succeeded(120_000);
        const lines = p.json();
        const described = lines.filter((l) => l['type'] === 'described').map((l) => l['acls']);
        assert.deepEqual(described, [[`java-ok ${who.principal} WRITE ALLOW`], []]);
        const produced = Object.fromEntries(lines.filter((l) => l['type'] === 'produced').map((l) => [l['topic'], l['error']])) as Record<
          string,
          unknown
        >;
        assert.deepEqual(produced, { 'java-ok': 'none', 'java-denied': 'TopicAuthorizationException' });
        assert.deepEqual(lines.find((l) => l['type'] === 'deleted')?.['count'], 1);
      },
    );

    test('sluice acls: --add with --producer/--consumer, --list, --remove', async () => {
      const bootstrap = ['--bootstrap-server', broker.bootstrap];
      const added = ok(
        await runCli([
          'acls',
          ...bootstrap,
          '--add',
          '--allow-principal',
          'User:carol',
          '--producer',
          '--consumer',
          '--topic',
          'cli-t',
          '--group',
          'cli-g',
        ]),
        'acls --add',
      );
      assert.match(added, /Adding ACLs for resource `ResourcePattern\(resourceType=TOPIC, name=cli-t, patternType=LITERAL\)`/);
      const listed = ok(await runCli(['acls', ...bootstrap, '--list', '--principal', 'User:carol']), 'acls --list');
      const entries = listed
        .split('\n')
        .filter((l) => l.includes('principal=User:carol'))
        .map((l) => l.trim())
        .sort();
      assert.deepEqual(entries, [
        '(principal=User:carol, host=*, operation=CREATE, permissionType=ALLOW)',
        '(principal=User:carol, host=*, operation=DESCRIBE, permissionType=ALLOW)',
        '(principal=User:carol, host=*, operation=READ, permissionType=ALLOW)',
        '(principal=User:carol, host=*, operation=READ, permissionType=ALLOW)',
        '(principal=User:carol, host=*, operation=WRITE, permissionType=ALLOW)',
      ]);
      const removed = ok(await runCli(['acls', ...bootstrap, '--remove', '--topic', 'cli-t', '--group', 'cli-g']), 'acls --remove');
      assert.equal(removed.split('\n').filter((l) => l.includes('principal=User:carol')).length, 5);
      assert.doesNotMatch(ok(await runCli(['acls', ...bootstrap, '--list', '--principal', 'User:carol']), 'acls --list'), /carol/);
    });

    test('KafkaJS deleteAcls: the deleted bindings no longer apply', async () => {
      const result = await admin.deleteAcls({
        filters: [
          {
            resourceType: TOPIC,
            resourceName: 'denied',
            resourcePatternType: ResourcePatternTypes.LITERAL,
            operation: AclOperationTypes.ANY,
            permissionType: AclPermissionTypes.ANY,
          },
        ],
      });
      assert.equal(result.filterResponses[0]!.matchingAcls.length, 1);
      const producer = kafka.producer({ retry: { retries: 0 } });
      await producer.connect();
      assert.equal(await failureOf(producer.send({ topic: 'denied', messages: [{ value: 'now open' }] })), 'none');
      await producer.disconnect();
    });
  });

  describe(`${who.principal} as a super user, nothing open without ACLs`, () => {
    let broker: BrokerProcess;
    before(async () => {
      broker = await startBrokerProcess({ 'authorizer.class.name': ACL_AUTHORIZER, 'super.users': `User:admin;${who.principal}` });
    });
    after(async () => {
      await broker?.stop();
    });

    test('a super user may create topics, produce and manage ACLs with no ACL at all', async () => {
      const kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 }, ...who.client });
      const admin = kafka.admin();
      await admin.connect();
      const producer = kafka.producer({ retry: { retries: 0 } });
      try {
        await admin.createTopics({ topics: [{ topic: 'su' }] });
        await producer.connect();
        await producer.send({ topic: 'su', messages: [{ value: 'x' }] });
        const acls = await admin.describeAcls({
          resourceType: AclResourceTypes.ANY,
          resourcePatternType: ResourcePatternTypes.ANY,
          operation: AclOperationTypes.ANY,
          permissionType: AclPermissionTypes.ANY,
        });
        assert.deepEqual(acls.resources, []);
      } finally {
        await producer.disconnect();
        await admin.disconnect();
      }
    });
  });
}

aclMatrix({ principal: 'User:ANONYMOUS', host: '127.0.0.1', client: {} });
