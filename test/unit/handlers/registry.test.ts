import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HANDLERS } from '../../../src/handlers/index.js';
import { HandlerRegistry } from '../../../src/handlers/registry.js';
import { API_MESSAGES, ProduceRequest } from '../../../src/protocol/messages/index.js';

const registry = new HandlerRegistry(HANDLERS);

test('Produce is advertised from v0, as Kafka 4 does for librdkafka before 2.11, but served from v3 only', () => {
  const produce = registry.supportedApis.find((a) => a.apiKey === 0);
  assert.deepEqual(produce, { apiKey: 0, minVersion: 0, maxVersion: ProduceRequest.validVersions.hi });
  for (const version of [0, 1, 2]) assert.equal(registry.supports(0, version), false, `v${version} is not served`);
  assert.equal(registry.supports(0, 3), true);
  assert.equal(registry.supports(0, ProduceRequest.validVersions.hi), true);
  assert.equal(registry.supports(0, ProduceRequest.validVersions.hi + 1), false);
});

test('SaslHandshake is advertised from v0, as Kafka 4.4 does, but served at v1 only (v0 sends raw tokens outside Kafka framing)', () => {
  assert.deepEqual(registry.supportedApis.find((a) => a.apiKey === 17), { apiKey: 17, minVersion: 0, maxVersion: 1 });
  assert.equal(registry.supports(17, 0), false);
  assert.equal(registry.supports(17, 1), true);
});

test('every other API is served exactly in the range it advertises', () => {
  for (const api of registry.supportedApis.filter((a) => a.apiKey !== 0 && a.apiKey !== 17)) {
    assert.equal(registry.supports(api.apiKey, api.minVersion), true, `API ${api.apiKey} v${api.minVersion}`);
    assert.equal(registry.supports(api.apiKey, api.maxVersion), true, `API ${api.apiKey} v${api.maxVersion}`);
    assert.equal(registry.supports(api.apiKey, api.minVersion - 1), false, `API ${api.apiKey} below its range`);
    assert.equal(registry.supports(api.apiKey, api.maxVersion + 1), false, `API ${api.apiKey} above its range`);
  }
});

test('the ZooKeeper-era inter-broker APIs have codecs but are not advertised: only a cluster-mode broker will', () => {
  for (const apiKey of [4, 5, 6, 7]) {
    assert.ok(API_MESSAGES.some((a) => a.apiKey === apiKey), `API ${apiKey} has generated codecs`);
    assert.equal(registry.supportedApis.some((a) => a.apiKey === apiKey), false, `API ${apiKey} is advertised`);
    assert.equal(registry.supports(apiKey, 0), false, `API ${apiKey} is served`);
  }
});
