import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { ClusterStatusEvent } from '../src/api-types.js';
import type { Asset } from '../src/assets.js';
import { startConsoleServer } from '../src/console-server.js';
import { clusterMetadata, FakeReader, partition, records, topicMetadata } from './fake-reader.js';

const ASSETS: ReadonlyMap<string, Asset> = new Map([
  ['/', { contentType: 'text/html; charset=utf-8', body: Buffer.from('<!doctype html><div id="app"></div>') }],
]);

async function started(t: TestContext, reader: FakeReader, statusIntervalMs = 20): Promise<string> {
  const server = await startConsoleServer({ reader, host: '127.0.0.1', port: 0, assets: ASSETS, statusIntervalMs });
  t.after(() => server.close());
  return server.url;
}

function fakeReader(): FakeReader {
  return new FakeReader({
    metadata: clusterMetadata([topicMetadata('orders', [partition(0, 1, [1], [1])])]),
    records: new Map([[0, records(0, 3)]]),
  });
}

test('the API answers JSON with the headers that keep the page inert', async (t) => {
  const url = await started(t, fakeReader());
  const res = await fetch(new URL('api/topics', url));
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.deepEqual(await res.json(), [
    { name: 'orders', internal: false, partitions: 1, replicationFactor: 1, underReplicatedPartitions: 0 },
  ]);

  const page = await fetch(url);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /id="app"/);
});

test('messages take partition, from and limit; bad values are a 400, unknown paths a 404', async (t) => {
  const url = await started(t, fakeReader());
  const res = await fetch(new URL('api/topics/orders/messages?partition=0&from=1&limit=1', url));
  assert.equal(res.status, 200);
  const body = (await res.json()) as { records: { offset: string; key: string }[] };
  assert.deepEqual(
    body.records.map((r) => [r.offset, r.key]),
    [['1', 'k1']],
  );
  for (const query of ['partition=-1', 'from=abc', 'limit=0']) {
    const bad = await fetch(new URL(`api/topics/orders/messages?${query}`, url));
    assert.equal(bad.status, 400, query);
    assert.equal(typeof ((await bad.json()) as { error: unknown }).error, 'string');
  }
  assert.equal((await fetch(new URL('api/nothing', url))).status, 404);
  assert.equal((await fetch(new URL('api/topics/missing', url))).status, 404);
  assert.equal((await fetch(new URL('nowhere.html', url))).status, 404);
});

test('the console is read-only: a POST is refused', async (t) => {
  const url = await started(t, fakeReader());
  const res = await fetch(new URL('api/topics', url), { method: 'POST', body: '{}' });
  assert.equal(res.status, 405);
});

test('on a loopback address, a request naming another host is refused (DNS rebinding)', async (t) => {
  const url = new URL(await started(t, fakeReader()));
  const status = (host: string): Promise<number | undefined> =>
    new Promise((resolve, reject) => {
      request({ host: url.hostname, port: url.port, path: '/api/topics', headers: { host } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      })
        .on('error', reject)
        .end();
    });
  assert.equal(await status('evil.example:9021'), 403);
  assert.equal(await status(`localhost:${url.port}`), 200);
  assert.equal(await status(url.host), 200);
});

test("a cluster that fails is a 502 with Kafka's error name", async (t) => {
  const reader = fakeReader();
  reader.data.failure = new KafkaError(ErrorCode.NETWORK_EXCEPTION, 'could not connect');
  const url = await started(t, reader);
  const res = await fetch(new URL('api/overview', url));
  assert.equal(res.status, 502);
  assert.deepEqual(await res.json(), { error: 'NETWORK_EXCEPTION: could not connect' });
});

/** Reads the event stream's status events until `until` accepts one, then stops reading. */
async function statusEvents(url: string, until: (events: ClusterStatusEvent[]) => boolean): Promise<ClusterStatusEvent[]> {
  const controller = new AbortController();
  const res = await fetch(new URL('api/events', url), { signal: controller.signal });
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  const events: ClusterStatusEvent[] = [];
  let buffered = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body!) {
    buffered += decoder.decode(chunk as Uint8Array, { stream: true });
    let end;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const data = /^data: (.*)$/m.exec(buffered.slice(0, end))?.[1];
      buffered = buffered.slice(end + 2);
      if (data !== undefined) events.push(JSON.parse(data) as ClusterStatusEvent);
    }
    if (until(events)) break;
  }
  controller.abort();
  return events;
}

test('the event stream says when the cluster stops answering and when it answers again', async (t) => {
  const reader = fakeReader();
  const url = await started(t, reader);
  const seen = await statusEvents(url, (events) => {
    const last = events.at(-1);
    // Up, then down, then up again: each change of the fake's state is made on the event that shows the previous one.
    if (events.length === 1 && last?.reachable === true) reader.data.failure = new KafkaError(ErrorCode.NETWORK_EXCEPTION, 'gone');
    if (last?.reachable === false) delete reader.data.failure;
    return events.some((e) => !e.reachable) && last?.reachable === true;
  });
  const first = seen[0]!;
  assert.ok(first.reachable);
  assert.equal(first.overview.topicCount, 1);
  const down = seen.find((e) => !e.reachable);
  assert.ok(down !== undefined && !down.reachable);
  assert.match(down.error, /gone/);
  assert.ok(seen.at(-1)!.reachable);
});
