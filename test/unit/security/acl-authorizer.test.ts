import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  AclOperation as Op,
  AclSet,
  Authorizer,
  CONCRETE_OPERATIONS,
  PatternType,
  PermissionType,
  ResourceType,
  bindingIsUnknown,
  bindingMatches,
  bindingRefusal,
  filterIsUnknown,
  operationName,
  parseOperation,
  parseSuperUsers,
  type AclBinding,
  type AclBindingFilter,
  type AuthorizerConfig,
  type Requester,
} from '../../../src/security/acl/index.js';

const alice: Requester = { principal: 'User:alice', clientHost: '10.0.0.1' };
const bob: Requester = { principal: 'User:bob', clientHost: '10.0.0.2' };

function acl(
  resourceType: ResourceType,
  name: string,
  principal: string,
  operation: Op,
  permission: PermissionType = PermissionType.ALLOW,
  patternType: PatternType = PatternType.LITERAL,
  host = '*',
): AclBinding {
  return { pattern: { resourceType, name, patternType }, entry: { principal, host, operation, permissionType: permission } };
}

function authorizer(bindings: AclBinding[], config: Partial<AuthorizerConfig> = {}): Authorizer {
  const set = AclSet.of(bindings);
  return new Authorizer({ superUsers: [], allowEveryoneIfNoAclFound: false, ...config }, () => set);
}

const topic = (a: Authorizer, who: Requester, op: Op, name = 'orders'): boolean => a.authorize(who, op, ResourceType.TOPIC, name);

describe('ACL authorization (Kafka semantics)', () => {
  test('a LITERAL ALLOW allows its principal that operation on that resource only', () => {
    const a = authorizer([acl(ResourceType.TOPIC, 'orders', 'User:alice', Op.READ)]);
    assert.equal(topic(a, alice, Op.READ), true);
    assert.equal(topic(a, alice, Op.WRITE), false);
    assert.equal(topic(a, bob, Op.READ), false);
    assert.equal(topic(a, alice, Op.READ, 'orders2'), false);
    assert.equal(a.authorize(alice, Op.READ, ResourceType.GROUP, 'orders'), false);
  });

  test('the implications: READ, WRITE, DELETE, ALTER imply DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS; ALL implies everything', () => {
    for (const implying of [Op.READ, Op.WRITE, Op.DELETE, Op.ALTER, Op.DESCRIBE]) {
      assert.equal(
        topic(authorizer([acl(ResourceType.TOPIC, 'orders', 'User:alice', implying)]), alice, Op.DESCRIBE),
        true,
        operationName(implying),
      );
    }
    for (const other of [Op.CREATE, Op.DESCRIBE_CONFIGS, Op.ALTER_CONFIGS, Op.CLUSTER_ACTION, Op.IDEMPOTENT_WRITE]) {
      assert.equal(
        topic(authorizer([acl(ResourceType.TOPIC, 'orders', 'User:alice', other)]), alice, Op.DESCRIBE),
        false,
        operationName(other),
      );
    }
    assert.equal(topic(authorizer([acl(ResourceType.TOPIC, 'orders', 'User:alice', Op.ALTER_CONFIGS)]), alice, Op.DESCRIBE_CONFIGS), true);
    assert.equal(topic(authorizer([acl(ResourceType.TOPIC, 'orders', 'User:alice', Op.DESCRIBE_CONFIGS)]), alice, Op.ALTER_CONFIGS), false);
    assert.equal(topic(authorizer([acl(ResourceType.TOPIC, 'orders', 'User:alice', Op.DESCRIBE)]), alice, Op.READ), false);
    const all = authorizer([acl(ResourceType.TOPIC, 'orders', 'User:alice', Op.ALL)]);
    for (const op of CONCRETE_OPERATIONS) assert.equal(topic(all, alice, op), true, operationName(op));
  });

  test('DENY wins over ALLOW, is not widened by implications, and DENY ALL denies everything', () => {
    const a = authorizer([
      acl(ResourceType.TOPIC, 'orders', 'User:alice', Op.ALL),
      acl(ResourceType.TOPIC, 'orders', 'User:alice', Op.WRITE, PermissionType.DENY),
    ]);
    assert.equal(topic(a, alice, Op.WRITE), false);
    assert.equal(topic(a, alice, Op.READ), true);
    assert.equal(topic(a, alice, Op.DESCRIBE), true, 'DENY WRITE does not deny the DESCRIBE it would imply');
    const denyAll = authorizer([
      acl(ResourceType.TOPIC, '*', 'User:*', Op.READ),
      acl(ResourceType.TOPIC, 'ord', 'User:alice', Op.ALL, PermissionType.DENY, PatternType.PREFIXED),
    ]);
    assert.equal(topic(denyAll, alice, Op.READ), false);
    assert.equal(topic(denyAll, bob, Op.READ), true);
  });

  test('PREFIXED patterns apply to names that start with them; the LITERAL * to every name; User:* to every principal', () => {
    const a = authorizer([
      acl(ResourceType.TOPIC, 'sales-', 'User:alice', Op.WRITE, PermissionType.ALLOW, PatternType.PREFIXED),
      acl(ResourceType.TOPIC, '*', 'User:bob', Op.READ),
      acl(ResourceType.GROUP, 'g', 'User:*', Op.READ),
    ]);
    assert.equal(topic(a, alice, Op.WRITE, 'sales-eu'), true);
    assert.equal(topic(a, alice, Op.WRITE, 'sales-'), true);
    assert.equal(topic(a, alice, Op.WRITE, 'sale'), false);
    assert.equal(topic(a, alice, Op.WRITE, 'presales-eu'), false);
    assert.equal(topic(a, bob, Op.READ, 'anything'), true);
    assert.equal(topic(a, bob, Op.WRITE, 'anything'), false);
    assert.equal(a.authorize(alice, Op.READ, ResourceType.GROUP, 'g'), true);
    assert.equal(a.authorize(bob, Op.READ, ResourceType.GROUP, 'g'), true);
    assert.equal(a.authorize(bob, Op.READ, ResourceType.GROUP, 'h'), false);
  });

  test('a LITERAL name is not a pattern: "*" in a PREFIXED or a longer name matches only itself', () => {
    const a = authorizer([acl(ResourceType.TOPIC, 'a*', 'User:alice', Op.READ)]);
    assert.equal(topic(a, alice, Op.READ, 'a*'), true);
    assert.equal(topic(a, alice, Op.READ, 'ab'), false);
  });

  test('hosts: the ACL host must be the client address or *; IPv4-mapped addresses compare as IPv4', () => {
    const a = authorizer([acl(ResourceType.TOPIC, 'orders', 'User:alice', Op.READ, PermissionType.ALLOW, PatternType.LITERAL, '10.0.0.1')]);
    assert.equal(topic(a, alice, Op.READ), true);
    assert.equal(topic(a, { ...alice, clientHost: '::ffff:10.0.0.1' }, Op.READ), true);
    assert.equal(topic(a, { ...alice, clientHost: '10.0.0.9' }, Op.READ), false);
    const denyHost = authorizer([
      acl(ResourceType.TOPIC, 'orders', 'User:*', Op.READ),
      acl(ResourceType.TOPIC, 'orders', 'User:*', Op.READ, PermissionType.DENY, PatternType.LITERAL, '10.0.0.2'),
    ]);
    assert.equal(topic(denyHost, alice, Op.READ), true);
    assert.equal(topic(denyHost, bob, Op.READ), false);
  });

  test('no ACL on the resource: denied, unless allow.everyone.if.no.acl.found; any ACL on it (for anyone) makes it governed', () => {
    assert.equal(topic(authorizer([]), alice, Op.READ), false);
    const open = authorizer([acl(ResourceType.TOPIC, 'other', 'User:bob', Op.READ)], { allowEveryoneIfNoAclFound: true });
    assert.equal(topic(open, alice, Op.READ), true);
    const governed = authorizer([acl(ResourceType.TOPIC, 'orders', 'User:bob', Op.READ)], { allowEveryoneIfNoAclFound: true });
    assert.equal(topic(governed, alice, Op.READ), false);
    assert.equal(topic(governed, bob, Op.READ), true);
  });

  test('super users are allowed everything, even what a DENY names', () => {
    const a = authorizer([acl(ResourceType.TOPIC, 'orders', 'User:alice', Op.ALL, PermissionType.DENY)], {
      superUsers: parseSuperUsers(' User:alice ; User:admin;'),
    });
    assert.deepEqual(parseSuperUsers(' User:alice ; User:admin;'), ['User:alice', 'User:admin']);
    for (const op of CONCRETE_OPERATIONS) assert.equal(topic(a, alice, op), true);
    assert.equal(a.authorize(alice, Op.CLUSTER_ACTION, ResourceType.CLUSTER, 'kafka-cluster'), true);
    assert.equal(topic(a, bob, Op.READ), false);
  });

  test('authorizeByResourceType: some resource of the type allows it and no DENY covers that', () => {
    const w = (bindings: AclBinding[]): boolean => authorizer(bindings).authorizeByResourceType(alice, Op.WRITE, ResourceType.TOPIC);
    assert.equal(w([]), false);
    assert.equal(w([acl(ResourceType.TOPIC, 'orders', 'User:alice', Op.WRITE)]), true);
    assert.equal(
      w([
        acl(ResourceType.TOPIC, 'orders', 'User:alice', Op.WRITE),
        acl(ResourceType.TOPIC, 'ord', 'User:alice', Op.WRITE, PermissionType.DENY, PatternType.PREFIXED),
      ]),
      false,
    );
    assert.equal(w([acl(ResourceType.TOPIC, 'x-', 'User:alice', Op.ALL, PermissionType.ALLOW, PatternType.PREFIXED)]), true);
    assert.equal(
      w([
        acl(ResourceType.TOPIC, 'x-', 'User:alice', Op.WRITE, PermissionType.ALLOW, PatternType.PREFIXED),
        acl(ResourceType.TOPIC, '*', 'User:alice', Op.WRITE, PermissionType.DENY),
      ]),
      false,
    );
    assert.equal(w([acl(ResourceType.GROUP, 'g', 'User:alice', Op.WRITE)]), false);
  });

  test("authorized operations: the bit set over the type's supported operations", () => {
    const a = authorizer([
      acl(ResourceType.TOPIC, 'orders', 'User:alice', Op.READ),
      acl(ResourceType.TOPIC, 'orders', 'User:alice', Op.ALTER_CONFIGS),
    ]);
    assert.equal(
      a.authorizedOperations(alice, ResourceType.TOPIC, 'orders'),
      (1 << Op.READ) | (1 << Op.DESCRIBE) | (1 << Op.ALTER_CONFIGS) | (1 << Op.DESCRIBE_CONFIGS),
    );
    const sup = authorizer([], { superUsers: ['User:alice'] });
    assert.equal(sup.authorizedOperations(alice, ResourceType.TOPIC, 'orders'), 3576);
    assert.equal(sup.authorizedOperations(alice, ResourceType.CLUSTER, 'kafka-cluster'), 8096);
    assert.equal(sup.authorizedOperations(alice, ResourceType.GROUP, 'g'), 3400, 'READ, DELETE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS');
  });
});

describe('ACL filters', () => {
  const bindings = [
    acl(ResourceType.TOPIC, 'orders', 'User:alice', Op.READ),
    acl(ResourceType.TOPIC, '*', 'User:bob', Op.WRITE, PermissionType.DENY),
    acl(ResourceType.TOPIC, 'ord', 'User:alice', Op.WRITE, PermissionType.ALLOW, PatternType.PREFIXED),
    acl(ResourceType.GROUP, 'orders', 'User:alice', Op.READ),
  ];
  const filter = (p: Partial<AclBindingFilter['pattern']>, e: Partial<AclBindingFilter['entry']> = {}): AclBindingFilter => ({
    pattern: { resourceType: ResourceType.ANY, name: null, patternType: PatternType.ANY, ...p },
    entry: { principal: null, host: null, operation: Op.ANY, permissionType: PermissionType.ANY, ...e },
  });
  const names = (f: AclBindingFilter): string[] =>
    bindings.filter((b) => bindingMatches(f, b)).map((b) => `${b.pattern.resourceType}/${b.pattern.patternType}/${b.pattern.name}`);

  test('ANY matches all; a name with ANY pattern type matches that exact name of any pattern type', () => {
    assert.equal(names(filter({})).length, 4);
    assert.deepEqual(names(filter({ name: 'orders' })), ['2/3/orders', '3/3/orders']);
    assert.deepEqual(names(filter({ resourceType: ResourceType.TOPIC, patternType: PatternType.PREFIXED })), ['2/4/ord']);
    assert.deepEqual(names(filter({ resourceType: ResourceType.TOPIC, name: 'ord', patternType: PatternType.LITERAL })), []);
  });

  test('MATCH selects the patterns that apply to the name: literal, wildcard and prefixes', () => {
    assert.deepEqual(names(filter({ resourceType: ResourceType.TOPIC, name: 'orders', patternType: PatternType.MATCH })), [
      '2/3/orders',
      '2/3/*',
      '2/4/ord',
    ]);
    assert.deepEqual(names(filter({ resourceType: ResourceType.TOPIC, name: 'x', patternType: PatternType.MATCH })), ['2/3/*']);
  });

  test('entry fields filter by principal, host, operation and permission', () => {
    assert.deepEqual(names(filter({}, { principal: 'User:bob' })), ['2/3/*']);
    assert.deepEqual(names(filter({}, { operation: Op.WRITE, permissionType: PermissionType.ALLOW })), ['2/4/ord']);
    assert.deepEqual(names(filter({}, { host: '10.0.0.1' })), []);
  });

  test('validation as Kafka 4.4: UNKNOWN codes (a request it cannot parse); indefinite or malformed bindings with its answers', () => {
    assert.equal(filterIsUnknown(filter({})), false);
    assert.equal(filterIsUnknown(filter({ resourceType: ResourceType.UNKNOWN })), true);
    assert.equal(filterIsUnknown(filter({}, { operation: 77 as Op })), true);
    assert.equal(bindingIsUnknown(acl(ResourceType.TOPIC, 'x', 'User:a', Op.UNKNOWN)), true);
    assert.equal(bindingIsUnknown(acl(ResourceType.TOPIC, 'x', 'User:a', Op.ANY)), false);
    assert.equal(bindingRefusal(acl(ResourceType.TOPIC, 'orders', 'User:alice', Op.READ)), null);
    assert.equal(bindingRefusal(acl(ResourceType.CLUSTER, 'kafka-cluster', 'User:alice', Op.ALTER)), null);
    assert.equal(
      bindingRefusal(acl(ResourceType.CLUSTER, 'kafka-cluster', 'User:alice', Op.ALTER, PermissionType.ALLOW, PatternType.PREFIXED)),
      null,
    );
    assert.equal(bindingRefusal(acl(ResourceType.TOPIC, 'x', 'User:', Op.READ)), null);
    const unexpected = { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: null };
    for (const indefinite of [
      acl(ResourceType.ANY, 'x', 'User:alice', Op.READ),
      acl(ResourceType.TOPIC, 'x', 'User:alice', Op.ANY),
      acl(ResourceType.TOPIC, 'x', 'User:alice', Op.READ, PermissionType.ANY),
      acl(ResourceType.TOPIC, 'x', 'User:alice', Op.READ, PermissionType.ALLOW, PatternType.MATCH),
      acl(ResourceType.TOPIC, 'x', 'User:alice', Op.READ, PermissionType.ALLOW, PatternType.ANY),
    ]) {
      assert.deepEqual(bindingRefusal(indefinite), unexpected);
    }
    const invalid = (b: AclBinding): string | null | undefined =>
      bindingRefusal(b)?.errorCode === ErrorCode.INVALID_REQUEST ? bindingRefusal(b)!.errorMessage : undefined;
    assert.equal(
      invalid(acl(ResourceType.CLUSTER, 'other', 'User:alice', Op.ALTER)),
      'The only valid name for the CLUSTER resource is kafka-cluster',
    );
    assert.equal(invalid(acl(ResourceType.TOPIC, '', 'User:alice', Op.READ)), 'Invalid empty resource name');
    assert.equal(
      invalid(acl(ResourceType.TOPIC, 'x', 'alice', Op.READ)),
      'Could not parse principal from `alice` (no colon is present separating the principal type from the principal name)',
    );
    assert.equal(
      invalid(acl(ResourceType.TOPIC, 'x', 'User:alice', Op.READ, PermissionType.ALLOW, PatternType.LITERAL, '')),
      'Host pattern cannot be null or empty',
    );
  });

  test('names parse case-insensitively, with or without underscores', () => {
    assert.equal(parseOperation('DescribeConfigs'), Op.DESCRIBE_CONFIGS);
    assert.equal(parseOperation('describe_configs'), Op.DESCRIBE_CONFIGS);
    assert.equal(parseOperation('READ'), Op.READ);
    assert.equal(parseOperation('nope'), undefined);
  });

  test("AclSet: replacing a resource's entries makes the next set; the old one is unchanged", () => {
    const before = AclSet.of(bindings);
    const pattern = bindings[0]!.pattern;
    const after = before.withEntries(pattern, []);
    assert.equal(before.size, 4);
    assert.equal(after.size, 3);
    assert.deepEqual(after.entries(pattern), []);
    assert.equal(before.entries(pattern).length, 1);
  });
});
