/**
 * The ACL znodes as Kafka 3.9's AclAuthorizer and kafka-acls.sh write them (bytes captured from
 * `kafka.admin.AclCommand --authorizer-properties zookeeper.connect=...`).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as D from '../../../src/zk/kafka-zk-data.js';
import { AclOperation, PatternType, PermissionType, ResourceType } from '../../../src/security/acl/index.js';

const buf = (s: string): Buffer => Buffer.from(s, 'utf8');

describe("Kafka's ACL znodes", () => {
  test('resource paths: literal under /kafka-acl, prefixed under /kafka-acl-extended/prefixed', () => {
    assert.equal(
      D.aclResourcePath({ resourceType: ResourceType.TOPIC, name: 'orders', patternType: PatternType.LITERAL }),
      '/kafka-acl/Topic/orders',
    );
    assert.equal(
      D.aclResourcePath({ resourceType: ResourceType.CLUSTER, name: 'kafka-cluster', patternType: PatternType.LITERAL }),
      '/kafka-acl/Cluster/kafka-cluster',
    );
    assert.equal(
      D.aclResourcePath({ resourceType: ResourceType.TRANSACTIONAL_ID, name: 'tx-', patternType: PatternType.PREFIXED }),
      '/kafka-acl-extended/prefixed/TransactionalId/tx-',
    );
    assert.throws(() => D.aclResourcePath({ resourceType: ResourceType.TOPIC, name: 'x', patternType: PatternType.MATCH }), RangeError);
  });

  test("a resource's ACLs: what Kafka wrote decodes; ours encodes with Kafka's names", () => {
    const kafka = buf(
      '{"acls":[{"principal":"User:alice","permissionType":"Allow","host":"*","operation":"DescribeConfigs"},{"principal":"User:alice","permissionType":"Allow","host":"*","operation":"Read"}],"version":1}',
    );
    const entries = D.decodeResourceAcls('/kafka-acl/Topic/orders', kafka);
    assert.deepEqual(entries, [
      { principal: 'User:alice', host: '*', operation: AclOperation.DESCRIBE_CONFIGS, permissionType: PermissionType.ALLOW },
      { principal: 'User:alice', host: '*', operation: AclOperation.READ, permissionType: PermissionType.ALLOW },
    ]);
    assert.deepEqual(JSON.parse(D.encodeResourceAcls(entries).toString()), JSON.parse(kafka.toString()));
    const deny = [
      { principal: 'User:bob', host: '10.0.0.2', operation: AclOperation.IDEMPOTENT_WRITE, permissionType: PermissionType.DENY },
    ];
    assert.deepEqual(JSON.parse(D.encodeResourceAcls(deny).toString()), {
      version: 1,
      acls: [{ principal: 'User:bob', permissionType: 'Deny', operation: 'IdempotentWrite', host: '10.0.0.2' }],
    });
    assert.deepEqual(D.decodeResourceAcls('/p', null), []);
    assert.throws(
      () =>
        D.decodeResourceAcls(
          '/p',
          buf('{"version":1,"acls":[{"principal":"User:a","permissionType":"Allow","host":"*","operation":"Fly"}]}'),
        ),
      /unknown operation/,
    );
  });

  test('change notifications: literal "TOPIC:orders", extended JSON, both ways', () => {
    const literal = { resourceType: ResourceType.CLUSTER, name: 'kafka-cluster', patternType: PatternType.LITERAL } as const;
    assert.equal(D.encodeAclChange(literal).toString(), 'CLUSTER:kafka-cluster');
    assert.deepEqual(D.decodeLiteralAclChange('/n', buf('TOPIC:orders')), {
      resourceType: ResourceType.TOPIC,
      name: 'orders',
      patternType: PatternType.LITERAL,
    });
    assert.deepEqual(D.decodeLiteralAclChange('/n', buf('TRANSACTIONAL_ID:a:b')), {
      resourceType: ResourceType.TRANSACTIONAL_ID,
      name: 'a:b',
      patternType: PatternType.LITERAL,
    });
    const prefixed = { resourceType: ResourceType.TRANSACTIONAL_ID, name: 'tx-', patternType: PatternType.PREFIXED } as const;
    assert.deepEqual(JSON.parse(D.encodeAclChange(prefixed).toString()), {
      version: 1,
      resourceType: 'TRANSACTIONAL_ID',
      name: 'tx-',
      patternType: 'PREFIXED',
    });
    assert.deepEqual(
      D.decodeExtendedAclChange('/n', buf('{"version":1,"resourceType":"TOPIC","name":"sales-","patternType":"PREFIXED"}')),
      {
        resourceType: ResourceType.TOPIC,
        name: 'sales-',
        patternType: PatternType.PREFIXED,
      },
    );
    assert.equal(D.aclChangesPath(PatternType.LITERAL), '/kafka-acl-changes');
    assert.equal(D.aclChangesPath(PatternType.PREFIXED), '/kafka-acl-extended-changes');
    assert.throws(() => D.decodeLiteralAclChange('/n', buf('nonsense')));
  });
});
