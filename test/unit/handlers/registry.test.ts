import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLUSTER_HANDLERS, HANDLERS } from '../../../src/handlers/index.js';
import { HandlerRegistry } from '../../../src/handlers/registry.js';
import type { HandlerEntry, RegisteredApi, RequestContext, ResponseBody } from '../../../src/handlers/handler.js';
import { API_MESSAGES, ProduceRequest } from '@sluice/protocol/messages/index.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';

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
  assert.deepEqual(
    registry.supportedApis.find((a) => a.apiKey === 17),
    { apiKey: 17, minVersion: 0, maxVersion: 1 },
  );
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
    assert.ok(
      API_MESSAGES.some((a) => a.apiKey === apiKey),
      `API ${apiKey} has generated codecs`,
    );
    assert.equal(
      registry.supportedApis.some((a) => a.apiKey === apiKey),
      false,
      `API ${apiKey} is advertised`,
    );
    assert.equal(registry.supports(apiKey, 0), false, `API ${apiKey} is served`);
  }
});

test('every entry names the API key, name and version ranges its handler module declares', async () => {
  for (const entry of [...HANDLERS, ...CLUSTER_HANDLERS]) {
    const handler = await entry.load();
    const declared = {
      apiKey: handler.apiKey,
      name: handler.name,
      versions: handler.versions,
      advertisedVersions: handler.advertisedVersions,
    };
    assert.deepEqual(
      { apiKey: entry.apiKey, name: entry.name, versions: entry.versions, advertisedVersions: entry.advertisedVersions },
      declared,
    );
  }
});

const NO_BODY: ResponseBody = () => {};
const ctx = {} as RequestContext;
const body = (): Reader => new Reader(Buffer.alloc(0));

/** An entry whose module "loads" when the test says so, counting loads; its handler records what it served. */
function fakeEntry(apiKey: number, served: number[]) {
  const handler: RegisteredApi = {
    apiKey,
    name: `Api${apiKey}`,
    versions: { lo: 0, hi: 1 },
    advertisedVersions: { lo: 0, hi: 1 },
    invoke: async () => {
      served.push(apiKey);
      return NO_BODY;
    },
  };
  let release: (() => void) | null = null;
  let fail: Error | null = null;
  const entry: HandlerEntry & { loads: number; release(): void; failNext(e: Error): void } = {
    apiKey,
    name: handler.name,
    versions: handler.versions,
    advertisedVersions: handler.advertisedVersions,
    loads: 0,
    load() {
      entry.loads++;
      const failure = fail;
      fail = null;
      return new Promise((resolve, reject) => (release = () => (failure === null ? resolve(handler) : reject(failure))));
    },
    release: () => release?.(),
    failNext: (e) => (fail = e),
  };
  return { entry, handler };
}

const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

test("a handler's module loads on the first request of its API, once, and then serves directly", async () => {
  const served: number[] = [];
  const a = fakeEntry(1, served);
  const r = new HandlerRegistry([a.entry]);
  assert.equal(a.entry.loads, 0, 'nothing loads at start');
  assert.deepEqual(r.supportedApis, [{ apiKey: 1, minVersion: 0, maxVersion: 1 }], 'ApiVersions needs no module');
  const first = r.get(1)!.invoke(body(), ctx);
  const second = r.get(1)!.invoke(body(), ctx);
  await settle();
  assert.equal(a.entry.loads, 1);
  a.entry.release();
  await Promise.all([first, second]);
  assert.deepEqual(served, [1, 1]);
  assert.equal(r.get(1), a.handler, 'once loaded, the handler itself is dispatched to');
  assert.equal(a.entry.loads, 1);
});

test('while a module loads, later requests of loaded APIs wait, so requests start in the order they arrived', async () => {
  const served: number[] = [];
  const slow = fakeEntry(1, served);
  const ready = fakeEntry(2, served);
  const r = new HandlerRegistry([slow.entry, ready.entry]);
  const warm = r.get(2)!.invoke(body(), ctx);
  ready.entry.release();
  await warm;
  served.length = 0;
  const pending = [r.get(1)!.invoke(body(), ctx), r.get(2)!.invoke(body(), ctx)];
  await settle();
  assert.deepEqual(served, [], 'the loaded API waits behind the one loading');
  slow.entry.release();
  await Promise.all(pending);
  assert.deepEqual(served, [1, 2]);
  assert.equal(r.get(2), ready.handler, 'with nothing loading, no waiting');
});

test('a module that fails to load fails its request, and the next request of that API loads it again', async () => {
  const served: number[] = [];
  const a = fakeEntry(1, served);
  const r = new HandlerRegistry([a.entry]);
  a.entry.failNext(new Error('no such module'));
  const failed = r.get(1)!.invoke(body(), ctx);
  await settle();
  a.entry.release();
  await assert.rejects(failed, /no such module/);
  const retried = r.get(1)!.invoke(body(), ctx);
  await settle();
  a.entry.release();
  await retried;
  assert.equal(a.entry.loads, 2);
  assert.deepEqual(served, [1]);
});

test('an API that uses the coordinators waits for them with its module; other APIs never load them', async () => {
  const served: number[] = [];
  const plain = fakeEntry(1, served);
  const coordinated = fakeEntry(2, served);
  let loads = 0;
  let coordinatorsReady: () => void = () => undefined;
  const r = new HandlerRegistry([plain.entry, { ...coordinated.entry, usesCoordinators: true }], () => {
    loads++;
    return new Promise<void>((resolve) => (coordinatorsReady = resolve));
  });
  const first = r.get(1)!.invoke(body(), ctx);
  plain.entry.release();
  await first;
  assert.equal(loads, 0, 'a plain API loads no coordinator');
  const second = r.get(2)!.invoke(body(), ctx);
  await settle();
  coordinated.entry.release();
  await settle();
  assert.deepEqual(served, [1], 'its module alone is not enough');
  assert.equal(loads, 1);
  coordinatorsReady();
  await second;
  assert.deepEqual(served, [1, 2]);
  assert.ok(
    HANDLERS.filter((h) => h.usesCoordinators === true)
      .map((h) => h.name)
      .includes('JoinGroup') && !HANDLERS.find((h) => h.name === 'Produce')!.usesCoordinators,
    'group APIs load the coordinators, Produce does not',
  );
});
