import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  applyQuotaChanges,
  describeClientQuotas,
  MATCH_DEFAULT,
  MATCH_EXACT,
  MATCH_SPECIFIED,
  validateAlterations,
  type FilterComponent,
} from '../../../src/quota/client-quota-requests.js';
import { formatQuotaValue, quotaValueError } from '../../../src/quota/quota-configs.js';
import type { QuotaEntityConfigs } from '../../../src/quota/quota-resolution.js';

const q = (key: string, value: string): Map<string, string> => new Map([[key, value]]);
const ENTITIES: QuotaEntityConfigs[] = [
  {
    entity: { user: 'alice' },
    configs: new Map([
      ['producer_byte_rate', '1024'],
      ['SCRAM-SHA-256', 'salt=c2FsdA==,stored_key=a,server_key=b,iterations=4096'],
    ]),
  },
  { entity: { user: 'alice', clientId: 'app' }, configs: q('consumer_byte_rate', '2048') },
  { entity: { user: null }, configs: q('request_percentage', '50.0') },
  { entity: { clientId: 'app' }, configs: q('producer_byte_rate', '10') },
  { entity: { clientId: null }, configs: q('producer_byte_rate', '20') },
  { entity: { ip: '10.0.0.1' }, configs: q('connection_creation_rate', '5') },
  { entity: { user: 'bob' }, configs: q('SCRAM-SHA-512', 'salt=...') },
];

function names(components: FilterComponent[], strict = false): string[] {
  return describeClientQuotas(ENTITIES, components, strict)
    .map((d) => d.entity.map((e) => `${e.entityType}=${e.entityName ?? '<default>'}`).join(','))
    .sort();
}

test('no filter, not strict: every entity with quotas; SCRAM credentials are neither values nor entities', () => {
  const all = describeClientQuotas(ENTITIES, [], false);
  assert.equal(all.length, 6);
  const alice = all.find((d) => d.entity.length === 1 && d.entity[0]!.entityName === 'alice')!;
  assert.deepEqual(alice.values, [{ key: 'producer_byte_rate', value: 1024 }]);
  assert.deepEqual(describeClientQuotas(ENTITIES, [], true), []);
});

test('exact, default and specified matches, with and without strict', () => {
  const exact = (entityType: string, match: string): FilterComponent => ({ entityType, matchType: MATCH_EXACT, match });
  const dflt = (entityType: string): FilterComponent => ({ entityType, matchType: MATCH_DEFAULT, match: null });
  const any = (entityType: string): FilterComponent => ({ entityType, matchType: MATCH_SPECIFIED, match: null });
  assert.deepEqual(names([exact('user', 'alice')]), ['user=alice', 'user=alice,client-id=app']);
  assert.deepEqual(names([exact('user', 'alice')], true), ['user=alice']);
  assert.deepEqual(names([dflt('user')]), ['user=<default>']);
  assert.deepEqual(names([dflt('client-id')], true), ['client-id=<default>']);
  assert.deepEqual(names([any('client-id')]), ['client-id=<default>', 'client-id=app', 'user=alice,client-id=app']);
  assert.deepEqual(names([any('client-id')], true), ['client-id=<default>', 'client-id=app']);
  assert.deepEqual(names([exact('user', 'alice'), any('client-id')], true), ['user=alice,client-id=app']);
  assert.deepEqual(names([any('ip')]), ['ip=10.0.0.1']);
});

test('filters Kafka refuses answer its error and message', () => {
  const refused = (components: FilterComponent[], code: number, message: string): void =>
    assert.throws(
      () => describeClientQuotas(ENTITIES, components, false),
      (e: unknown) => e instanceof KafkaError && e.code === code && e.message === message,
    );
  refused([{ entityType: '', matchType: 0, match: 'x' }], ErrorCode.INVALID_REQUEST, 'Invalid empty entity type.');
  refused([{ entityType: 'group', matchType: 0, match: 'x' }], ErrorCode.UNSUPPORTED_VERSION, 'Unsupported entity type group');
  refused(
    [{ entityType: 'user', matchType: 0, match: null }],
    ErrorCode.INVALID_REQUEST,
    'Request specified MATCH_TYPE_EXACT, but set match string to null.',
  );
  refused(
    [{ entityType: 'user', matchType: 1, match: 'a' }],
    ErrorCode.INVALID_REQUEST,
    'Request specified MATCH_TYPE_DEFAULT, but also specified a match string.',
  );
  refused(
    [{ entityType: 'user', matchType: 2, match: 'a' }],
    ErrorCode.INVALID_REQUEST,
    'Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.',
  );
  refused([{ entityType: 'user', matchType: 7, match: null }], ErrorCode.INVALID_REQUEST, 'Unknown match type 7');
  refused(
    [
      { entityType: 'user', matchType: 2, match: null },
      { entityType: 'user', matchType: 1, match: null },
    ],
    ErrorCode.INVALID_REQUEST,
    'Entity type user cannot appear more than once in the filter.',
  );
  refused(
    [
      { entityType: 'ip', matchType: 2, match: null },
      { entityType: 'user', matchType: 1, match: null },
    ],
    ErrorCode.INVALID_REQUEST,
    'Invalid entity filter component combination. IP filter component should not be used with user or clientId filter component.',
  );
});

test("alterations: valid ones give the entity and its changes, invalid ones Kafka 4.4's message", () => {
  const user = (name: string | null) => [{ entityType: 'user', entityName: name }];
  const set = (key: string, value: number) => ({ key, value, remove: false });
  const results = validateAlterations([
    {
      entity: [...user('alice'), { entityType: 'client-id', entityName: null }],
      ops: [set('producer_byte_rate', 1024), { key: 'consumer_byte_rate', value: 0, remove: true }],
    },
    { entity: [], ops: [] },
    { entity: [{ entityType: 'group', entityName: 'g' }], ops: [] },
    { entity: user(''), ops: [] },
    { entity: [...user('a'), ...user('b')], ops: [] },
    { entity: [{ entityType: 'ip', entityName: '1.2.3.4' }, ...user('a')], ops: [] },
    { entity: [{ entityType: 'ip', entityName: 'not an ip' }], ops: [] },
    { entity: user('x'), ops: [set('bogus', 1)] },
    { entity: user('y'), ops: [set('producer_byte_rate', 0)] },
    { entity: user('z'), ops: [set('producer_byte_rate', 1.5)] },
    { entity: user('w'), ops: [set('request_percentage', Infinity)] },
    { entity: [{ entityType: 'ip', entityName: null }], ops: [set('producer_byte_rate', 1)] },
    { entity: [{ entityType: 'ip', entityName: '::1' }], ops: [set('connection_creation_rate', 3e9)] },
    { entity: user('v'), ops: [set('producer_byte_rate', 1), set('producer_byte_rate', 2)] },
    { entity: user('alice2'), ops: [] },
    { entity: user('alice2'), ops: [] },
  ]);
  assert.deepEqual(results[0], {
    ok: true,
    entity: { user: 'alice', clientId: null },
    changes: new Map<string, number | null>([
      ['producer_byte_rate', 1024],
      ['consumer_byte_rate', null],
    ]),
  });
  const messages = results.slice(1).map((r) => (r.ok ? 'ok' : `${r.errorCode} ${r.errorMessage}`));
  assert.deepEqual(messages, [
    '42 Invalid empty client quota entity',
    '42 Unhandled client quota entity type: group',
    '42 Empty user not supported',
    '42 Invalid client quota entity, duplicate entity entry user',
    '42 Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId',
    '42 not an ip is not a valid IP or resolvable host.',
    '42 Invalid configuration key bogus',
    '42 Quota producer_byte_rate must be greater than 0',
    '42 producer_byte_rate cannot be a fractional value.',
    '42 Quota request_percentage must be a finite number',
    '42 Invalid configuration key producer_byte_rate',
    '42 Proposed value for connection_creation_rate is too large for an INT.',
    '42 Ignoring duplicate entity ClientQuotaEntity(entries={user=v})',
    'ok',
    '42 Ignoring duplicate entity ClientQuotaEntity(entries={user=alice2})',
  ]);
});

test('applying changes keeps the keys not named (a SCRAM credential) and writes values as Kafka stores them', () => {
  const current = new Map([
    ['SCRAM-SHA-256', 'cred'],
    ['consumer_byte_rate', '5'],
  ]);
  const next = applyQuotaChanges(
    current,
    new Map<string, number | null>([
      ['producer_byte_rate', 1024],
      ['request_percentage', 50],
      ['consumer_byte_rate', null],
    ]),
  );
  assert.deepEqual([...next].sort(), [
    ['SCRAM-SHA-256', 'cred'],
    ['producer_byte_rate', '1024'],
    ['request_percentage', '50.0'],
  ]);
  assert.equal(formatQuotaValue('controller_mutation_rate', 0.5), '0.5');
  assert.equal(quotaValueError('client', 'request_percentage', 0.5), null);
});
