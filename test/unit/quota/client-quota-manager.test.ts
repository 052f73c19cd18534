import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientQuotaManager } from '../../../src/quota/client-quota-manager.js';
import { ClientQuotas } from '../../../src/quota/client-quotas.js';
import { QuotaLimits, type QuotaEntityConfigs } from '../../../src/quota/quota-resolution.js';

const WINDOW = { samples: 11, sampleMs: 1000 };

function image(entries: QuotaEntityConfigs[]): { clientEntities(): readonly QuotaEntityConfigs[] } {
  return { clientEntities: () => entries };
}

test('without any quota set nothing is recorded or throttled', () => {
  const m = new ClientQuotaManager('Produce', new QuotaLimits([], 'producer_byte_rate'), WINDOW);
  assert.equal(m.recordAndGetThrottleTimeMs('u', 'c', 1e12, 0), 0);
  assert.deepEqual(m.sensorViews(0), []);
  assert.equal(m.maxValueInQuotaWindow('u', 'c'), Infinity);
});

test('clients sharing a user quota share one rate; an unlimited client is measured but never throttled', () => {
  const l = new QuotaLimits([{ entity: { user: 'alice' }, configs: new Map([['producer_byte_rate', '1000']]) }], 'producer_byte_rate');
  const m = new ClientQuotaManager('Produce', l, WINDOW);
  assert.equal(m.recordAndGetThrottleTimeMs('alice', 'a', 6000, 0), 0);
  assert.equal(m.recordAndGetThrottleTimeMs('alice', 'b', 6000, 0), 2000);
  assert.equal(m.recordAndGetThrottleTimeMs('bob', 'a', 1e9, 0), 0);
  assert.equal(m.sensorViews(0).length, 2);
});

test('the request quota caps a throttle at one sample window; the byte quotas do not', () => {
  const l = new QuotaLimits([{ entity: { clientId: null }, configs: new Map([['request_percentage', '1.0']]) }], 'request_percentage');
  assert.equal(new ClientQuotaManager('Request', l, WINDOW, 1000).recordAndGetThrottleTimeMs('u', 'c', 500, 0), 1000);
  assert.ok(new ClientQuotaManager('Request', l, WINDOW).recordAndGetThrottleTimeMs('u', 'c', 500, 0) > 1000);
});

test('maxValueInQuotaWindow is the limit over samples - 1 windows', () => {
  const l = new QuotaLimits([{ entity: { clientId: 'c' }, configs: new Map([['consumer_byte_rate', '2048']]) }], 'consumer_byte_rate');
  assert.equal(new ClientQuotaManager('Fetch', l, WINDOW).maxValueInQuotaWindow('u', 'c'), 20_480);
});

test('a new image changes the limits; existing rates are kept', () => {
  let entities: QuotaEntityConfigs[] = [{ entity: { clientId: 'c' }, configs: new Map([['producer_byte_rate', '1000']]) }];
  let now = 0;
  const quotas = new ClientQuotas(
    () => image(entities),
    WINDOW,
    null,
    () => now,
  );
  const mutes: number[] = [];
  const first = quotas.forRequest('User:ANONYMOUS', 'c', (ms) => mutes.push(ms));
  first.requestBytes = 10_000;
  assert.equal(first.produceThrottleMs(), 0);
  entities = [{ entity: { clientId: 'c' }, configs: new Map([['producer_byte_rate', '500']]) }];
  now = 1;
  const second = quotas.forRequest('User:ANONYMOUS', 'c', (ms) => mutes.push(ms));
  second.requestBytes = 1;
  const throttle = second.produceThrottleMs();
  assert.ok(throttle >= 9_900, `throttle ${throttle}`);
  second.throttle('Produce', throttle);
  assert.deepEqual(mutes, [throttle]);
});

test('the request quota is recorded once per request, from its handler time', () => {
  const entities: QuotaEntityConfigs[] = [{ entity: { clientId: null }, configs: new Map([['request_percentage', '10']]) }];
  const quotas = new ClientQuotas(
    () => image(entities),
    WINDOW,
    null,
    () => 0,
  );
  const r = quotas.forRequest('User:ANONYMOUS', 'c', () => {});
  // 2 s of handler time is 200 percent-seconds: over 10 s that is 20 %, twice the quota.
  r.handlerMs = 2000;
  assert.equal(r.settled, false);
  assert.equal(r.requestThrottleMs(), 1000);
  assert.equal(r.requestThrottleMs(), 1000);
  assert.equal(r.settled, true);
  const exempt = quotas.forRequest('User:ANONYMOUS', 'c', () => {});
  exempt.handlerMs = 1e6;
  exempt.exempt();
  assert.equal(exempt.requestThrottleMs(), 0);
});
