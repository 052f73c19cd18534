/**
 * The Fetch handler over the in-memory partition owner: topics by name (v4-v12) and by id
 * (v13+), the response's `max_bytes` and each partition's `partition_max_bytes` with KIP-74's
 * first batch, errors answered per partition beside partitions that read, every leased range
 * released once, and the bytes out counted for /metrics. Followers' fetches (replica id up to
 * v14, replica state from v15): read to the log end, move the high watermark, diverging epochs,
 * brokers that are no replica, long polls woken by appends, incremental sessions.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fetchHandler } from '../../../src/handlers/01-fetch.js';
import { produceHandler } from '../../../src/handlers/00-produce.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import * as M from '@sluice/protocol/messages/index.js';
import { total } from '../metrics/prometheus-text-helper.js';
import { versions } from './admin-harness.js';
import { NO_SUCH_TOPIC_ID } from '../../helpers/offset-wire.js';
import { batch, dataHarnesses, type DataHarness } from './data-harness.js';
import { MemoryPartitions } from './memory-partitions-fixture.js';

const {
  NONE,
  UNKNOWN_TOPIC_OR_PARTITION,
  UNKNOWN_TOPIC_ID,
  OFFSET_OUT_OF_RANGE,
  FENCED_LEADER_EPOCH,
  UNKNOWN_LEADER_EPOCH,
  NOT_LEADER_OR_FOLLOWER,
} = ErrorCode;
const BY_ID = 13;
const MIB = 1 << 20;

const fresh = dataHarnesses((d) => assert.equal(d.owner.outstandingLeases, 0, 'every range the owner leased was released'));

async function append(d: DataHarness, topic: string, partition: number, records: Buffer): Promise<void> {
  const res = await d.call(produceHandler, M.ProduceRequest, M.ProduceResponse, 9, {
    acks: 1,
    timeoutMs: 1000,
    topicData: [{ name: topic, partitionData: [{ index: partition, records }] }],
  });
  assert.equal(res.responses[0]!.partitionResponses[0]!.errorCode, NONE);
}

type Wanted = M.FetchRequestFetchPartitionInput & { partition: number };

async function fetch(
  d: DataHarness,
  version: number,
  topics: Array<{ topic?: string; topicId?: string; partitions: Wanted[] }>,
  maxBytes = MIB,
) {
  const res = await d.call(fetchHandler, M.FetchRequest, M.FetchResponse, version, {
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes,
    sessionId: 0,
    sessionEpoch: -1,
    topics: topics.map((t) => ({ ...t, partitions: t.partitions.map((p) => ({ fetchOffset: 0n, partitionMaxBytes: MIB, ...p })) })),
  });
  assert.equal(res.errorCode, NONE);
  return res.responses.map((t) => ({
    topic: version >= BY_ID ? t.topicId : t.topic,
    partitions: t.partitions.map((p) => ({
      partition: p.partitionIndex,
      errorCode: p.errorCode,
      highWatermark: p.highWatermark,
      records: p.records ?? Buffer.alloc(0),
    })),
  }));
}

/** A consumer's long poll (v12, 10 s max wait) on topic t's partitions 0.., from `offsets`. */
function longPoll(d: DataHarness, minBytes: number, offsets: readonly bigint[]) {
  return d.call(fetchHandler, M.FetchRequest, M.FetchResponse, 12, {
    replicaId: -1,
    maxWaitMs: 10_000,
    minBytes,
    maxBytes: MIB,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [{ topic: 't', partitions: offsets.map((fetchOffset, partition) => ({ partition, fetchOffset, partitionMaxBytes: MIB })) }],
  });
}

describe('Fetch', () => {
  test('by name (v4-v12) and by id (v13+): the appended batches from the fetch offset, with the high watermark', async () => {
    const d = fresh();
    const id = await d.createTopic('t');
    await append(d, 't', 0, batch(['a', 'b']));
    await append(d, 't', 0, batch(['c']));
    const [first, second] = d.owner.batchesOf({ topic: 't', partition: 0 });
    for (const v of versions(M.FetchRequest)) {
      const named = v >= BY_ID ? { topicId: id } : { topic: 't' };
      const all = await fetch(d, v, [{ ...named, partitions: [{ partition: 0 }] }]);
      assert.deepEqual(
        all,
        [
          {
            topic: v >= BY_ID ? id : 't',
            partitions: [{ partition: 0, errorCode: NONE, highWatermark: 3n, records: Buffer.concat([first!, second!]) }],
          },
        ],
        `v${v}`,
      );
      // From inside the first batch: the batch holding the offset and everything after.
      assert.deepEqual(
        (await fetch(d, v, [{ ...named, partitions: [{ partition: 0, fetchOffset: 1n }] }]))[0]!.partitions[0]!.records,
        Buffer.concat([first!, second!]),
      );
      assert.deepEqual(
        (await fetch(d, v, [{ ...named, partitions: [{ partition: 0, fetchOffset: 2n }] }]))[0]!.partitions[0]!.records,
        second,
      );
      assert.equal(
        (await fetch(d, v, [{ ...named, partitions: [{ partition: 0, fetchOffset: 3n }] }]))[0]!.partitions[0]!.records.length,
        0,
        'nothing at the log end',
      );
    }
  });

  test('max_bytes: the first partition with data always gets its first batch (KIP-74), later ones only what fits', async () => {
    const d = fresh();
    await d.createTopic('t', 3);
    for (const p of [0, 1, 2]) await append(d, 't', p, batch([`value of partition ${p}`.repeat(20)]));
    const size = d.owner.batchesOf({ topic: 't', partition: 0 })[0]!.length;
    const partitions = [{ partition: 0 }, { partition: 1 }, { partition: 2 }];
    const lengths = async (maxBytes: number) =>
      (await fetch(d, 12, [{ topic: 't', partitions }], maxBytes))[0]!.partitions.map((p) => [p.errorCode, p.records.length]);
    assert.deepEqual(
      await lengths(10),
      [
        [NONE, size],
        [NONE, 0],
        [NONE, 0],
      ],
      'over max_bytes, yet the first batch',
    );
    assert.deepEqual(await lengths(2 * size), [
      [NONE, size],
      [NONE, size],
      [NONE, 0],
    ]);
    assert.deepEqual(await lengths(3 * size), [
      [NONE, size],
      [NONE, size],
      [NONE, size],
    ]);
  });

  test('partition_max_bytes bounds each partition to whole batches, at least the first', async () => {
    const d = fresh();
    await d.createTopic('t');
    for (const v of ['one', 'two', 'three']) await append(d, 't', 0, batch([v.repeat(30)]));
    const sizes = d.owner.batchesOf({ topic: 't', partition: 0 }).map((b) => b.length);
    const read = async (partitionMaxBytes: number) =>
      (await fetch(d, 12, [{ topic: 't', partitions: [{ partition: 0, partitionMaxBytes }] }]))[0]!.partitions[0]!.records.length;
    assert.equal(await read(1), sizes[0]);
    assert.equal(await read(sizes[0]! + sizes[1]!), sizes[0]! + sizes[1]!);
    assert.equal(await read(sizes[0]! + sizes[1]! + sizes[2]! - 1), sizes[0]! + sizes[1]!);
  });

  test('v13+: an unknown topic id is UNKNOWN_TOPIC_ID, beside a known id that reads', async () => {
    const d = fresh();
    const id = await d.createTopic('t');
    await append(d, 't', 0, batch(['a']));
    const res = await fetch(d, BY_ID, [
      { topicId: NO_SUCH_TOPIC_ID, partitions: [{ partition: 0 }] },
      { topicId: id, partitions: [{ partition: 0 }] },
    ]);
    assert.deepEqual(
      res.map((t) => [t.topic, t.partitions.map((p) => [p.partition, p.errorCode, p.highWatermark, p.records.length > 0])]),
      [
        [NO_SUCH_TOPIC_ID, [[0, UNKNOWN_TOPIC_ID, -1n, false]]],
        [id, [[0, NONE, 1n, true]]],
      ],
    );
  });

  test('errors are per partition: unknown topic or partition, offset out of range, fenced and unknown leader epochs', async () => {
    const d = fresh();
    await d.createTopic('t', 4);
    for (const p of [0, 1]) await append(d, 't', p, batch(['a']));
    for (const p of [2, 3]) await d.moveLeaderEpoch('t', p, 4);
    const res = await fetch(d, 12, [
      {
        topic: 't',
        partitions: [
          { partition: 0, currentLeaderEpoch: 0 },
          { partition: 1, fetchOffset: 5n },
          { partition: 2, currentLeaderEpoch: 3 },
          { partition: 3, currentLeaderEpoch: 5 },
          { partition: 4 },
        ],
      },
      { topic: 'missing', partitions: [{ partition: 0 }] },
    ]);
    assert.deepEqual(
      res.map((t) => [t.topic, t.partitions.map((p) => [p.partition, p.errorCode, p.records.length > 0])]),
      [
        [
          't',
          [
            [0, NONE, true],
            [1, OFFSET_OUT_OF_RANGE, false],
            [2, FENCED_LEADER_EPOCH, false],
            [3, UNKNOWN_LEADER_EPOCH, false],
            [4, UNKNOWN_TOPIC_OR_PARTITION, false],
          ],
        ],
        ['missing', [[0, UNKNOWN_TOPIC_OR_PARTITION, false]]],
      ],
    );
  });

  test("a consumer's long poll that found nothing is answered from the read its waking append did, without a read of its own; the other partitions stand as read", async () => {
    const d = fresh();
    await d.createTopic('t', 3);
    await append(d, 't', 2, batch(['old']));
    const polling = longPoll(d, 1, [0n, 0n, 1n]);
    while (d.h.cluster.purgatory.waiting === 0) await new Promise((resolve) => setImmediate(resolve));
    const readsBefore = d.owner.readManyCalls;
    await append(d, 't', 1, batch(['new']));
    const res = await polling;
    assert.equal(d.owner.readManyCalls, readsBefore, 'no read after the wake');
    const [appended] = d.owner.batchesOf({ topic: 't', partition: 1 });
    assert.deepEqual(
      res.responses[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode, p.highWatermark, p.records?.length ?? 0]),
      [
        [0, NONE, 0n, 0],
        [1, NONE, 1n, appended!.length],
        [2, NONE, 1n, 0],
      ],
    );
    assert.ok(Buffer.from(res.responses[0]!.partitions[1]!.records!).equals(appended!));
  });

  test('a long poll that found some data short of min_bytes reads everything again when woken', async () => {
    const d = fresh();
    await d.createTopic('t', 2);
    await append(d, 't', 0, batch(['a']));
    const polling = longPoll(d, MIB, [0n, 0n]);
    while (d.h.cluster.purgatory.waiting === 0) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(d.h.cluster.purgatory.hasParkedReads, false);
    const readsBefore = d.owner.readManyCalls;
    await append(d, 't', 1, batch(['b']));
    while (d.owner.readManyCalls === readsBefore) await new Promise((resolve) => setImmediate(resolve));
    d.h.cluster.purgatory.wakeAll('shutdown');
    const res = await polling;
    assert.deepEqual(
      res.responses[0]!.partitions.map((p) => (p.records?.length ?? 0) > 0),
      [true, true],
    );
  });

  test('counts the record bytes it answers per topic', async () => {
    const d = fresh();
    await d.createTopic('t');
    await append(d, 't', 0, batch(['a', 'b']));
    const records = (await fetch(d, 12, [{ topic: 't', partitions: [{ partition: 0 }] }]))[0]!.partitions[0]!.records;
    assert.equal(total(await d.scrape(), 'sluice_topic_bytes_out_total', { topic: 't' }), records.length);
  });

  describe("a follower's fetch (broker 1 leads, broker 2 follows, both in the ISR)", () => {
    const LEADER = 1;
    const FOLLOWER = 2;

    async function replicated(): Promise<{ d: DataHarness; id: string }> {
      const d = fresh(new MemoryPartitions(LEADER));
      const id = await d.createTopic('t');
      await d.assign('t', 0, { leader: LEADER, leaderEpoch: 1, replicas: [LEADER, FOLLOWER], isr: [LEADER, FOLLOWER] });
      return { d, id };
    }

    interface ReplicaFetch {
      readonly replicaId?: number;
      readonly fetchOffset?: bigint;
      readonly lastFetchedEpoch?: number;
      readonly currentLeaderEpoch?: number;
      readonly maxWaitMs?: number;
      readonly minBytes?: number;
      readonly sessionId?: number;
      readonly sessionEpoch?: number;
      readonly partitions?: boolean;
    }

    /** A broker's fetch at `version`: its id in `replica_id` up to v14, in `replica_state` from v15, the topic by id from v13. */
    async function replicaFetch(d: DataHarness, id: string, version: number, f: ReplicaFetch = {}) {
      const replicaId = f.replicaId ?? FOLLOWER;
      const partition = {
        partition: 0,
        fetchOffset: f.fetchOffset ?? 0n,
        partitionMaxBytes: MIB,
        currentLeaderEpoch: f.currentLeaderEpoch ?? 1,
        lastFetchedEpoch: f.lastFetchedEpoch ?? -1,
      };
      const res = await d.call(fetchHandler, M.FetchRequest, M.FetchResponse, version, {
        ...(version >= 15 ? { replicaState: { replicaId, replicaEpoch: 7n } } : { replicaId }),
        maxWaitMs: f.maxWaitMs ?? 0,
        minBytes: f.minBytes ?? 0,
        maxBytes: MIB,
        sessionId: f.sessionId ?? 0,
        sessionEpoch: f.sessionEpoch ?? -1,
        topics: f.partitions === false ? [] : [{ ...(version >= BY_ID ? { topicId: id } : { topic: 't' }), partitions: [partition] }],
      });
      assert.equal(res.errorCode, NONE);
      return { sessionId: res.sessionId, partitions: res.responses.flatMap((t) => t.partitions) };
    }

    test('reads up to the log end, not the high watermark, and its offset moves the high watermark (v12 replica_id, v15 replica_state)', async () => {
      for (const v of [12, 15, 18]) {
        const { d, id } = await replicated();
        await append(d, 't', 0, batch(['a', 'b']));
        await append(d, 't', 0, batch(['c']));
        const stored = Buffer.concat(d.owner.batchesOf({ topic: 't', partition: 0 }));
        const consumed = async () => (await fetch(d, 12, [{ topic: 't', partitions: [{ partition: 0 }] }]))[0]!.partitions[0]!;
        assert.deepEqual(
          await consumed(),
          { partition: 0, errorCode: NONE, highWatermark: 0n, records: Buffer.alloc(0) },
          `v${v}: nothing committed for consumers`,
        );
        const first = (await replicaFetch(d, id, v)).partitions[0]!;
        assert.deepEqual(
          [first.errorCode, first.highWatermark, first.logStartOffset, first.records],
          [NONE, 0n, 0n, stored],
          `v${v}: the follower gets everything to the log end`,
        );
        const second = (await replicaFetch(d, id, v, { fetchOffset: 3n, lastFetchedEpoch: 1 })).partitions[0]!;
        assert.deepEqual(
          [second.errorCode, second.highWatermark, second.records?.length ?? 0, second.divergingEpoch.epoch],
          [NONE, 3n, 0, -1],
          `v${v}: its log end commits the records`,
        );
        assert.deepEqual(await consumed(), { partition: 0, errorCode: NONE, highWatermark: 3n, records: stored });
        assert.equal(
          total(await d.scrape(), 'sluice_topic_bytes_out_total', { topic: 't' }),
          stored.length,
          "a follower's bytes are not consumers' bytes out",
        );
      }
    });

    test('a follower whose last fetched epoch ended before its fetch offset here gets the diverging epoch and no records', async () => {
      const { d, id } = await replicated();
      await append(d, 't', 0, batch(['a', 'b']));
      // Epoch 1 holds offsets 0-1; epoch 3 starts at 2.
      await d.assign('t', 0, { leader: LEADER, leaderEpoch: 3, replicas: [LEADER, FOLLOWER], isr: [LEADER, FOLLOWER] });
      await append(d, 't', 0, batch(['c']));
      const [answer] = (await replicaFetch(d, id, 12, { fetchOffset: 3n, lastFetchedEpoch: 2, currentLeaderEpoch: 3 })).partitions;
      assert.deepEqual(
        [answer!.errorCode, answer!.divergingEpoch.epoch, answer!.divergingEpoch.endOffset, answer!.records?.length ?? 0],
        [NONE, 1, 2n, 0],
      );
      const [agreed] = (await replicaFetch(d, id, 12, { fetchOffset: 2n, lastFetchedEpoch: 1, currentLeaderEpoch: 3 })).partitions;
      assert.deepEqual([agreed!.divergingEpoch.epoch, agreed!.records!.length > 0], [-1, true]);
    });

    test('a broker that is no replica: UNKNOWN_LEADER_EPOCH when it names an epoch, NOT_LEADER_OR_FOLLOWER when not', async () => {
      const { d, id } = await replicated();
      assert.equal((await replicaFetch(d, id, 12, { replicaId: 9 })).partitions[0]!.errorCode, UNKNOWN_LEADER_EPOCH);
      assert.equal(
        (await replicaFetch(d, id, 15, { replicaId: 9, currentLeaderEpoch: -1 })).partitions[0]!.errorCode,
        NOT_LEADER_OR_FOLLOWER,
      );
    });

    test("a follower's long poll wakes on an append, which leaves the high watermark where consumers' long polls wait", async () => {
      const { d, id } = await replicated();
      const started = Date.now();
      const waiting = replicaFetch(d, id, 12, { maxWaitMs: 10_000, minBytes: 1 });
      const consumer = d.call(fetchHandler, M.FetchRequest, M.FetchResponse, 12, {
        replicaId: -1,
        maxWaitMs: 300,
        minBytes: 1,
        maxBytes: MIB,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [{ topic: 't', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: MIB }] }],
      });
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(d.h.cluster.purgatory.waiting, 2);
      await append(d, 't', 0, batch(['a']));
      const woken = (await waiting).partitions[0]!;
      assert.ok(woken.records!.length > 0 && Date.now() - started < 5000, 'the follower reads the append at once');
      const unwoken = (await consumer).responses[0]!.partitions[0]!;
      assert.equal(unwoken.records?.length ?? 0, 0);
      assert.ok(Date.now() - started >= 250, 'the consumer waited out its max wait: nothing was committed');
    });

    test('followers keep incremental fetch sessions: an answer carries the partition when its high watermark moved', async () => {
      const { d, id } = await replicated();
      await append(d, 't', 0, batch(['a']));
      const opened = await replicaFetch(d, id, 13, { sessionEpoch: 0 });
      assert.notEqual(opened.sessionId, 0);
      assert.equal(opened.partitions[0]!.records!.length > 0, true);
      const caughtUp = await replicaFetch(d, id, 13, { sessionId: opened.sessionId, sessionEpoch: 1, fetchOffset: 1n });
      assert.deepEqual(
        caughtUp.partitions.map((p) => p.highWatermark),
        [1n],
        'its fetch moved the high watermark: news',
      );
      const idle = await replicaFetch(d, id, 13, { sessionId: opened.sessionId, sessionEpoch: 2, partitions: false });
      assert.deepEqual(idle.partitions, [], 'nothing new');
    });
  });
});
