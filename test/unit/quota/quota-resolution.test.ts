import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QuotaLimits, quotaUserOf, type QuotaEntity, type QuotaEntityConfigs } from '../../../src/quota/quota-resolution.js';

const KEY = 'producer_byte_rate';

function limits(entries: ReadonlyArray<readonly [QuotaEntity, number]>, key = KEY): QuotaLimits {
  const entities: QuotaEntityConfigs[] = entries.map(([entity, value]) => ({ entity, configs: new Map([[key, String(value)]]) }));
  return new QuotaLimits(entities, key);
}

function limitFor(l: QuotaLimits, user: string, clientId: string): number | null {
  return l.limitOf(l.tagsOf(user, clientId));
}

/** All eight levels, each with its own value, most specific first (Kafka's precedence). */
const LEVELS: ReadonlyArray<readonly [QuotaEntity, number]> = [
  [{ user: 'alice', clientId: 'app' }, 1],
  [{ user: 'alice', clientId: null }, 2],
  [{ user: 'alice' }, 3],
  [{ user: null, clientId: 'app' }, 4],
  [{ user: null, clientId: null }, 5],
  [{ user: null }, 6],
  [{ clientId: 'app' }, 7],
  [{ clientId: null }, 8],
];

test('the most specific entity holding the quota wins, in Kafka precedence order', () => {
  for (let i = 0; i < LEVELS.length; i++) {
    const l = limits(LEVELS.slice(i));
    assert.equal(limitFor(l, 'alice', 'app'), LEVELS[i]![1], `with levels ${i + 1}.. configured`);
  }
});

test('with only the default levels, any user and client id gets the default', () => {
  assert.equal(limitFor(limits([[{ clientId: null }, 8]]), 'bob', 'other'), 8);
  assert.equal(limitFor(limits([[{ user: null }, 6]]), 'bob', 'other'), 6);
  assert.equal(limitFor(limits([[{ user: null, clientId: null }, 5]]), 'bob', 'other'), 5);
});

test('an entity of another user or client id does not apply', () => {
  const l = limits([
    [{ user: 'alice', clientId: 'app' }, 1],
    [{ user: 'alice' }, 3],
    [{ clientId: 'app' }, 7],
  ]);
  assert.equal(limitFor(l, 'bob', 'app'), 7);
  assert.equal(limitFor(l, 'alice', 'other'), 3);
  assert.equal(limitFor(l, 'bob', 'other'), null);
});

test('a user quota is shared by all its clients; a client-id quota is per client id', () => {
  const users = limits([[{ user: 'alice' }, 3]]);
  assert.deepEqual(users.tagsOf('alice', 'a'), { user: 'alice', clientId: '' });
  assert.deepEqual(users.tagsOf('alice', 'b'), users.tagsOf('alice', 'a'));
  const clients = limits([[{ clientId: null }, 8]]);
  assert.deepEqual(clients.tagsOf('alice', 'a'), { user: '', clientId: 'a' });
  const both = limits([
    [{ user: 'alice' }, 3],
    [{ clientId: null }, 8],
  ]);
  assert.deepEqual(both.tagsOf('alice', 'a'), { user: 'alice', clientId: '' });
  assert.deepEqual(both.tagsOf('bob', 'a'), { user: '', clientId: 'a' });
  assert.equal(limitFor(both, 'bob', 'a'), 8);
  const pairs = limits([
    [{ user: null, clientId: null }, 5],
    [{ clientId: 'x' }, 7],
  ]);
  assert.deepEqual(pairs.tagsOf('bob', 'a'), { user: 'bob', clientId: 'a' });
});

test('each quota key resolves on its own: an entity counts only for the keys it holds', () => {
  const entities: QuotaEntityConfigs[] = [
    { entity: { user: 'alice' }, configs: new Map([['consumer_byte_rate', '100']]) },
    { entity: { clientId: 'app' }, configs: new Map([[KEY, '700']]) },
  ];
  const produce = new QuotaLimits(entities, KEY);
  assert.equal(limitFor(produce, 'alice', 'app'), 700);
  assert.equal(limitFor(new QuotaLimits(entities, 'consumer_byte_rate'), 'alice', 'app'), 100);
});

test('no entity holding the key disables the quota; ip entities and unparsable values are ignored', () => {
  assert.equal(limits([]).enabled, false);
  const l = new QuotaLimits(
    [
      { entity: { ip: '10.0.0.1' }, configs: new Map([[KEY, '5']]) },
      { entity: { clientId: 'x' }, configs: new Map([[KEY, 'fast']]) },
      { entity: { user: 'alice' }, configs: new Map([['SCRAM-SHA-256', 'salt=...']]) },
    ],
    KEY,
  );
  assert.equal(l.enabled, false);
  assert.equal(limitFor(l, 'alice', 'x'), null);
});

test('the quota user is the principal name', () => {
  assert.equal(quotaUserOf('User:ANONYMOUS'), 'ANONYMOUS');
  assert.equal(quotaUserOf('User:CN=a:b'), 'CN=a:b');
});
