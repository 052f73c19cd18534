import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { FetchSessionCache, type FetchPartitionRequest, type FetchPartitionOutcome } from '../../../src/partitions/fetch-session-cache.js';

const part = (partition: number, fetchOffset = 0n): FetchPartitionRequest => ({
  topicId: 'AAAAAAAAAAAAAAAAAAAAAQ',
  topic: 't',
  partition,
  fetchOffset,
  partitionMaxBytes: 1 << 20,
  currentLeaderEpoch: -1,
  lastFetchedEpoch: -1,
  logStartOffset: -1n,
});
const outcome = (o: Partial<FetchPartitionOutcome> = {}): FetchPartitionOutcome => ({
  errorCode: 0,
  highWatermark: 10n,
  lastStableOffset: 10n,
  logStartOffset: 0n,
  recordBytes: 0,
  diverged: false,
  ...o,
});

function ids(...values: number[]): () => number {
  return () => values.shift() ?? 999;
}

test('a full fetch with epoch 0 opens a session; incremental fetches answer only changed partitions', () => {
  const cache = new FetchSessionCache({ maxSessions: 10, randomId: ids(42) });
  const full = cache.newContext({ sessionId: 0, sessionEpoch: 0, usesTopicIds: true, partitions: [part(0), part(1)], forgotten: [] });
  assert.ok(full.ok);
  assert.equal(full.context.sessionId, 42);
  for (const p of full.context.partitions) assert.equal(full.context.include(p, outcome()), true);

  const inc = cache.newContext({ sessionId: 42, sessionEpoch: 1, usesTopicIds: true, partitions: [], forgotten: [] });
  assert.ok(inc.ok);
  assert.equal(inc.context.partitions.length, 2, 'the session remembers both partitions');
  const [p0, p1] = inc.context.partitions;
  assert.equal(inc.context.include(p0!, outcome()), false, 'nothing changed');
  assert.equal(inc.context.include(p1!, outcome({ highWatermark: 11n })), true, 'high watermark moved');

  const inc2 = cache.newContext({
    sessionId: 42,
    sessionEpoch: 2,
    usesTopicIds: true,
    partitions: [part(0, 5n)],
    forgotten: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', topic: 't', partition: 1 }],
  });
  assert.ok(inc2.ok);
  assert.deepEqual(
    inc2.context.partitions.map((p) => [p.partition, p.params.fetchOffset]),
    [[0, 5n]],
  );
  assert.equal(inc2.context.include(inc2.context.partitions[0]!, outcome({ recordBytes: 100 })), true, 'records are news');
  assert.equal(inc2.context.include(inc2.context.partitions[0]!, outcome({ errorCode: ErrorCode.OFFSET_OUT_OF_RANGE })), true);
  assert.equal(
    inc2.context.include(inc2.context.partitions[0]!, outcome({ diverged: true })),
    true,
    "a follower's diverging epoch is news",
  );
});

test('wrong epochs, unknown sessions and a switch between names and ids are refused', () => {
  const cache = new FetchSessionCache({ maxSessions: 10, randomId: ids(7) });
  assert.ok(cache.newContext({ sessionId: 0, sessionEpoch: 0, usesTopicIds: false, partitions: [part(0)], forgotten: [] }).ok);
  assert.deepEqual(cache.newContext({ sessionId: 7, sessionEpoch: 5, usesTopicIds: false, partitions: [], forgotten: [] }), {
    ok: false,
    errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH,
  });
  assert.deepEqual(cache.newContext({ sessionId: 8, sessionEpoch: 1, usesTopicIds: false, partitions: [], forgotten: [] }), {
    ok: false,
    errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND,
  });
  assert.deepEqual(cache.newContext({ sessionId: 7, sessionEpoch: 1, usesTopicIds: true, partitions: [], forgotten: [] }), {
    ok: false,
    errorCode: ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR,
  });
});

test('epoch -1 closes the session and fetches without one; sessionless fetches create nothing', () => {
  const cache = new FetchSessionCache({ maxSessions: 10, randomId: ids(3) });
  assert.ok(cache.newContext({ sessionId: 0, sessionEpoch: 0, usesTopicIds: true, partitions: [part(0)], forgotten: [] }).ok);
  assert.equal(cache.size, 1);
  const closing = cache.newContext({ sessionId: 3, sessionEpoch: -1, usesTopicIds: true, partitions: [part(0)], forgotten: [] });
  assert.ok(closing.ok);
  assert.equal(closing.context.sessionId, 0);
  assert.equal(cache.size, 0);
  const sessionless = cache.newContext({ sessionId: 0, sessionEpoch: -1, usesTopicIds: true, partitions: [part(0)], forgotten: [] });
  assert.ok(sessionless.ok && sessionless.context.sessionId === 0 && !sessionless.context.incremental);
  assert.equal(cache.size, 0);
});

test('a full cache evicts its least recently used session', () => {
  const cache = new FetchSessionCache({ maxSessions: 2, randomId: ids(1, 2, 3) });
  for (let i = 0; i < 2; i++) cache.newContext({ sessionId: 0, sessionEpoch: 0, usesTopicIds: true, partitions: [part(0)], forgotten: [] });
  assert.ok(cache.newContext({ sessionId: 1, sessionEpoch: 1, usesTopicIds: true, partitions: [], forgotten: [] }).ok, 'session 1 used');
  cache.newContext({ sessionId: 0, sessionEpoch: 0, usesTopicIds: true, partitions: [part(0)], forgotten: [] });
  assert.equal(cache.size, 2);
  assert.deepEqual(
    cache.newContext({ sessionId: 2, sessionEpoch: 1, usesTopicIds: true, partitions: [], forgotten: [] }),
    {
      ok: false,
      errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND,
    },
    'session 2 was the least recently used',
  );
  assert.ok(cache.newContext({ sessionId: 1, sessionEpoch: 2, usesTopicIds: true, partitions: [], forgotten: [] }).ok);
});

test('an incremental fetch answers a partition whose last stable offset alone moved (a transaction completed)', () => {
  const cache = new FetchSessionCache({ maxSessions: 10, randomId: ids(5) });
  const full = cache.newContext({ sessionId: 0, sessionEpoch: 0, usesTopicIds: true, partitions: [part(0)], forgotten: [] });
  assert.ok(full.ok);
  full.context.include(full.context.partitions[0]!, outcome({ lastStableOffset: 4n }));
  const inc = cache.newContext({ sessionId: 5, sessionEpoch: 1, usesTopicIds: true, partitions: [], forgotten: [] });
  assert.ok(inc.ok);
  const [p0] = inc.context.partitions;
  assert.equal(inc.context.include(p0!, outcome({ lastStableOffset: 4n })), false);
  assert.equal(inc.context.include(p0!, outcome({ lastStableOffset: 10n })), true);
});
