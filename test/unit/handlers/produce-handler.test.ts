/**
 * The Produce handler over the in-memory partition owner: acks 0, 1 and -1 (and the ISR rule
 * behind -1), acks values Kafka refuses, topics and partitions the cluster does not have, by
 * name and by id (v13), and what the handler counts for /metrics (transactional produce: transaction-handlers.test.ts).
 * On a replicated partition, acks=-1 waits until the followers' fetches commit the records, up to
 * the request's timeout.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { produceHandler } from '../../../src/handlers/00-produce.js';
import { fetchHandler } from '../../../src/handlers/01-fetch.js';
import { CloseConnection, NO_RESPONSE } from '../../../src/handlers/handler.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import * as M from '@sluice/protocol/messages/index.js';
import { readBatchHeader, setLogAppendTime } from '@sluice/protocol/records/index.js';
import type { AppendReply, AppendRequest } from '../../../src/partitions/partition-protocol.js';
import { AggregatorRegistry, type PrometheusContentType } from 'prom-client';
import { parseExposition, total } from '../metrics/prometheus-text-helper.js';
import { versions } from './admin-harness.js';
import { NO_SUCH_TOPIC_ID } from '../../helpers/offset-wire.js';
import { batch, dataHarnesses, type DataHarness } from './data-harness.js';
import { MemoryPartitions } from './memory-partitions-fixture.js';

const {
  NONE,
  UNKNOWN_TOPIC_OR_PARTITION,
  UNKNOWN_TOPIC_ID,
  INVALID_REQUIRED_ACKS,
  NOT_ENOUGH_REPLICAS,
  INVALID_RECORD,
  CORRUPT_MESSAGE,
  REQUEST_TIMED_OUT,
  NOT_LEADER_OR_FOLLOWER,
} = ErrorCode;
const BY_ID = 13;

const fresh = dataHarnesses();

type Partition = M.ProduceRequestPartitionProduceDataInput;
type Topic = { name?: string; topicId?: string; partitionData: Partition[] };

async function produce(
  d: DataHarness,
  version: number,
  acks: number,
  topicData: Topic[],
  transactionalId: string | null = null,
  timeoutMs = 1000,
) {
  const res = await d.call(produceHandler, M.ProduceRequest, M.ProduceResponse, version, { acks, timeoutMs, transactionalId, topicData });
  return res.responses.map((t) => ({
    topic: version >= BY_ID ? t.topicId : t.name,
    partitions: t.partitionResponses.map((p) => [p.index, p.errorCode, p.baseOffset]),
  }));
}

/** Base offset and leader epoch of each batch the owner holds for the partition. */
function stored(d: DataHarness, topic: string, partition = 0): Array<[bigint, number]> {
  return d.owner.batchesOf({ topic, partition }).map((b) => {
    const header = readBatchHeader(b, 0)!;
    return [header.baseOffset, header.partitionLeaderEpoch];
  });
}

describe('Produce', () => {
  test('serves v3-v13 and advertises v0 as Kafka 4 does', () => {
    assert.deepEqual(produceHandler.versions, { lo: 3, hi: 13 });
    assert.equal(produceHandler.advertisedVersions.lo, 0);
  });

  test('acks=1 and acks=-1 append at every version by name: offsets assigned in order, stamped with the leader epoch', async () => {
    const d = fresh();
    await d.createTopic('t', 2);
    let next = 0n;
    for (const v of versions(M.ProduceRequest).filter((v) => v < BY_ID)) {
      for (const acks of [1, -1]) {
        const res = await produce(d, v, acks, [{ name: 't', partitionData: [{ index: 1, records: batch(['a', 'b', 'c']) }] }]);
        assert.deepEqual(res, [{ topic: 't', partitions: [[1, NONE, next]] }], `v${v} acks=${acks}`);
        next += 3n;
      }
    }
    assert.deepEqual(
      stored(d, 't', 1),
      Array.from({ length: Number(next / 3n) }, (_, i) => [BigInt(i * 3), 0]),
    );
    assert.deepEqual(stored(d, 't', 0), []);
  });

  test('v13 names topics by id: a known id appends, an unknown one is UNKNOWN_TOPIC_ID, each id echoed', async () => {
    const d = fresh();
    const id = await d.createTopic('t');
    const res = await produce(d, BY_ID, 1, [
      { topicId: id, partitionData: [{ index: 0, records: batch(['x']) }] },
      { topicId: NO_SUCH_TOPIC_ID, partitionData: [{ index: 0, records: batch(['y']) }] },
    ]);
    assert.deepEqual(res, [
      { topic: id, partitions: [[0, NONE, 0n]] },
      { topic: NO_SUCH_TOPIC_ID, partitions: [[0, UNKNOWN_TOPIC_ID, -1n]] },
    ]);
    assert.equal(stored(d, 't').length, 1);
  });

  test('acks=0 gets no response; a failed partition closes the connection instead', async () => {
    const d = fresh();
    await d.createTopic('t');
    const body = (index: number) => ({
      acks: 0,
      timeoutMs: 1000,
      topicData: [{ name: 't', partitionData: [{ index, records: batch(['a']) }] }],
    });
    assert.equal(await d.exchange(produceHandler, M.ProduceRequest, M.ProduceResponse, 9, body(0)), NO_RESPONSE);
    assert.deepEqual(stored(d, 't'), [[0n, 0]]);
    await assert.rejects(d.exchange(produceHandler, M.ProduceRequest, M.ProduceResponse, 9, body(3)), CloseConnection);
  });

  test('acks=-1 is refused while the ISR is below min.insync.replicas; acks=1 still appends', async () => {
    const d = fresh();
    await d.createTopic('t', 1, { 'min.insync.replicas': '2' });
    await d.assign('t', 0, { replicas: [0, 1], isr: [0] });
    assert.deepEqual(await produce(d, 9, -1, [{ name: 't', partitionData: [{ index: 0, records: batch(['a']) }] }]), [
      { topic: 't', partitions: [[0, NOT_ENOUGH_REPLICAS, -1n]] },
    ]);
    assert.deepEqual(await produce(d, 9, 1, [{ name: 't', partitionData: [{ index: 0, records: batch(['a']) }] }]), [
      { topic: 't', partitions: [[0, NONE, 0n]] },
    ]);
  });

  test('min.insync.replicas above the replication factor counts as the replication factor, as in Kafka: one replica takes acks=-1', async () => {
    const d = fresh();
    await d.createTopic('t', 1, { 'min.insync.replicas': '2' });
    assert.deepEqual(await produce(d, 9, -1, [{ name: 't', partitionData: [{ index: 0, records: batch(['a']) }] }]), [
      { topic: 't', partitions: [[0, NONE, 0n]] },
    ]);
  });

  test('acks other than 0, 1 and -1 are INVALID_REQUIRED_ACKS for every partition, and nothing is appended', async () => {
    const d = fresh();
    await d.createTopic('t', 2);
    for (const acks of [2, -2]) {
      const res = await produce(d, 9, acks, [
        {
          name: 't',
          partitionData: [
            { index: 0, records: batch(['a']) },
            { index: 1, records: batch(['b']) },
          ],
        },
        { name: 'missing', partitionData: [{ index: 0, records: batch(['c']) }] },
      ]);
      assert.deepEqual(res, [
        {
          topic: 't',
          partitions: [
            [0, INVALID_REQUIRED_ACKS, -1n],
            [1, INVALID_REQUIRED_ACKS, -1n],
          ],
        },
        { topic: 'missing', partitions: [[0, INVALID_REQUIRED_ACKS, -1n]] },
      ]);
    }
    assert.deepEqual([stored(d, 't', 0), stored(d, 't', 1)], [[], []]);
  });

  test('unknown topics and partitions fail per partition, beside partitions that append', async () => {
    const d = fresh();
    await d.createTopic('t', 2);
    const res = await produce(d, 9, 1, [
      {
        name: 't',
        partitionData: [
          { index: 0, records: batch(['a']) },
          { index: 2, records: batch(['b']) },
          { index: -1, records: batch(['c']) },
        ],
      },
      { name: 'missing', partitionData: [{ index: 0, records: batch(['d']) }] },
    ]);
    assert.deepEqual(res, [
      {
        topic: 't',
        partitions: [
          [0, NONE, 0n],
          [2, UNKNOWN_TOPIC_OR_PARTITION, -1n],
          [-1, UNKNOWN_TOPIC_OR_PARTITION, -1n],
        ],
      },
      { topic: 'missing', partitions: [[0, UNKNOWN_TOPIC_OR_PARTITION, -1n]] },
    ]);
  });

  test("a partition without records is INVALID_RECORD; the owner's validation errors reach the partition's answer", async () => {
    const d = fresh();
    await d.createTopic('t', 2);
    const corrupt = batch(['a']);
    corrupt[corrupt.length - 1]! ^= 0xff;
    const res = await produce(d, 9, 1, [
      {
        name: 't',
        partitionData: [
          { index: 0, records: null },
          { index: 1, records: corrupt },
        ],
      },
    ]);
    assert.deepEqual(res, [
      {
        topic: 't',
        partitions: [
          [0, INVALID_RECORD, -1n],
          [1, CORRUPT_MESSAGE, -1n],
        ],
      },
    ]);
  });

  test('counts the appended batches (bytes, records) per topic, and every partition batch of each request', async () => {
    const d = fresh();
    await d.createTopic('t', 2);
    const appended = batch(['a', 'b', 'c']);
    await produce(d, 9, 1, [
      {
        name: 't',
        partitionData: [
          { index: 0, records: appended },
          { index: 5, records: batch(['x']) },
        ],
      },
    ]);
    const s = await d.scrape();
    assert.equal(total(s, 'sluice_topic_messages_in_total', { topic: 't' }), 3);
    assert.equal(total(s, 'sluice_topic_bytes_in_total', { topic: 't' }), appended.length);
    assert.equal(total(s, 'sluice_produce_batch_records_count'), 1);
    assert.equal(total(s, 'sluice_produce_request_batches_sum'), 2);
  });

  test("breaks the appended batches down by the request's client id: records, bytes, batches per request, CreateTime span", async () => {
    const d = fresh();
    await d.createTopic('t', 2);
    const now = BigInt(Date.now());
    const appended = batch(['a', 'b', 'c'], [now - 20n, now - 15n, now - 8n]);
    await produce(d, 9, 1, [
      {
        name: 't',
        partitionData: [
          { index: 0, records: appended },
          { index: 1, records: batch(['x'], [now]) },
        ],
      },
    ]);
    const s = parseExposition(await AggregatorRegistry.aggregate<PrometheusContentType>([d.metrics.clientProduce.snapshot()]).metrics());
    const client = { client_id: 'test' };
    assert.equal(total(s, 'sluice_client_produce_batch_records_sum', client), 4);
    assert.equal(total(s, 'sluice_client_produce_batch_records_count', client), 2);
    assert.equal(total(s, 'sluice_client_produce_batch_size_bytes_sum', client), appended.length + batch(['x'], [now]).length);
    assert.equal(total(s, 'sluice_client_produce_request_batches_sum', client), 2);
    assert.ok(Math.abs(total(s, 'sluice_client_produce_batch_span_seconds_sum', client) - 0.012) < 1e-9);
    assert.ok(total(s, 'sluice_client_produce_batch_age_seconds_sum', client) >= 0.02);
    assert.equal(total(s, 'sluice_client_produce_batches_total', { ...client, compression: 'none' }), 2);
  });

  test("the client's CreateTime stamps count even when the owner stamps LogAppendTime into the request's own records", async () => {
    /** As a partition worker reading the batch in its request frame does, on a LogAppendTime topic. */
    class StampingPartitions extends MemoryPartitions {
      override async appendMany(entries: readonly AppendRequest[]): Promise<AppendReply[]> {
        const replies = await super.appendMany(entries);
        for (const e of entries) setLogAppendTime(e.records, 0, BigInt(Date.now()) + 60_000n);
        return replies;
      }
    }
    const d = dataHarnesses()(new StampingPartitions());
    await d.createTopic('t', 1);
    const now = BigInt(Date.now());
    await produce(d, 9, 1, [{ name: 't', partitionData: [{ index: 0, records: batch(['a', 'b'], [now - 30n, now - 10n]) }] }]);
    const s = parseExposition(await AggregatorRegistry.aggregate<PrometheusContentType>([d.metrics.clientProduce.snapshot()]).metrics());
    const client = { client_id: 'test' };
    assert.ok(
      Math.abs(total(s, 'sluice_client_produce_batch_span_seconds_sum', client) - 0.02) < 1e-9,
      'the span as the client stamped it',
    );
    assert.equal(total(s, 'sluice_client_produce_batch_span_seconds_count', client), 1);
  });

  test('a partition named twice, the topic twice: one answer a partition, only the last copy appended', async () => {
    const d = fresh();
    await d.createTopic('t', 2);
    const res = await produce(d, 9, 1, [
      {
        name: 't',
        partitionData: [
          { index: 0, records: batch(['first', 'x']) },
          { index: 0, records: batch(['last']) },
        ],
      },
      { name: 't', partitionData: [{ index: 1, records: batch(['one']) }] },
    ]);
    assert.deepEqual(res, [
      {
        topic: 't',
        partitions: [
          [0, NONE, 0n],
          [1, NONE, 0n],
        ],
      },
    ]);
    // One batch of one record at offset 0: the last copy's.
    assert.deepEqual(stored(d, 't', 0), [[0n, 0]]);
    assert.equal(readBatchHeader(d.owner.batchesOf({ topic: 't', partition: 0 })[0]!, 0)!.lastOffsetDelta, 0);
  });

  describe('acks=-1 on a replicated partition (broker 1 leads, broker 2 follows, both in the ISR)', () => {
    const FOLLOWER = 2;

    async function replicated(): Promise<DataHarness> {
      const d = fresh(new MemoryPartitions(1));
      await d.createTopic('t', 2);
      for (const p of [0, 1]) await d.assign('t', p, { leader: 1, leaderEpoch: 1, replicas: [1, FOLLOWER], isr: [1, FOLLOWER] });
      return d;
    }

    /** The follower's fetch of `partition` at `offset`: its log end as the leader learns it. */
    async function followerFetch(d: DataHarness, partition: number, offset: bigint): Promise<void> {
      const res = await d.call(fetchHandler, M.FetchRequest, M.FetchResponse, 12, {
        replicaId: FOLLOWER,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: 1 << 20,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [{ topic: 't', partitions: [{ partition, fetchOffset: offset, partitionMaxBytes: 1 << 20, currentLeaderEpoch: 1 }] }],
      });
      assert.equal(res.responses[0]!.partitions[0]!.errorCode, NONE);
    }

    test('waits until the follower has fetched the records, then answers every partition together in request order', async () => {
      const d = await replicated();
      let answered = false;
      const pending = produce(d, 9, -1, [
        {
          name: 't',
          partitionData: [
            { index: 1, records: batch(['a', 'b']) },
            { index: 0, records: batch(['c']) },
          ],
        },
      ]).then((r) => {
        answered = true;
        return r;
      });
      await followerFetch(d, 1, 0n);
      await followerFetch(d, 0, 1n);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(answered, false, 'partition 1 is still only on the leader');
      assert.equal(d.h.cluster.producePurgatory.waiting, 1);
      await followerFetch(d, 1, 2n);
      assert.deepEqual(await pending, [
        {
          topic: 't',
          partitions: [
            [1, NONE, 0n],
            [0, NONE, 0n],
          ],
        },
      ]);
      assert.equal(d.h.cluster.producePurgatory.waiting, 0);
    });

    test("times out with REQUEST_TIMED_OUT for the partitions the follower has not fetched, keeping the append's offsets", async () => {
      const d = await replicated();
      const pending = produce(
        d,
        9,
        -1,
        [
          {
            name: 't',
            partitionData: [
              { index: 0, records: batch(['a']) },
              { index: 1, records: batch(['b', 'c']) },
            ],
          },
        ],
        null,
        50,
      );
      await followerFetch(d, 0, 1n);
      assert.deepEqual(await pending, [
        {
          topic: 't',
          partitions: [
            [0, NONE, 0n],
            [1, REQUEST_TIMED_OUT, 0n],
          ],
        },
      ]);
      assert.equal(stored(d, 't', 1).length, 1, 'the records stay appended, as in Kafka');
    });

    test('answers NOT_LEADER_OR_FOLLOWER as soon as the leadership moves', async () => {
      const d = await replicated();
      const pending = produce(d, 9, -1, [{ name: 't', partitionData: [{ index: 0, records: batch(['a']) }] }], null, 60_000);
      await d.assign('t', 0, { leader: FOLLOWER, leaderEpoch: 2, replicas: [1, FOLLOWER], isr: [1, FOLLOWER] });
      assert.deepEqual(await pending, [{ topic: 't', partitions: [[0, NOT_LEADER_OR_FOLLOWER, 0n]] }]);
    });

    test('acks=1 answers at once; so does acks=-1 once the ISR is the leader alone', async () => {
      const d = await replicated();
      assert.deepEqual(await produce(d, 9, 1, [{ name: 't', partitionData: [{ index: 0, records: batch(['a']) }] }], null, 60_000), [
        { topic: 't', partitions: [[0, NONE, 0n]] },
      ]);
      await d.assign('t', 0, { leader: 1, leaderEpoch: 1, partitionEpoch: 1, replicas: [1, FOLLOWER], isr: [1] });
      assert.deepEqual(await produce(d, 9, -1, [{ name: 't', partitionData: [{ index: 0, records: batch(['b']) }] }], null, 60_000), [
        { topic: 't', partitions: [[0, NONE, 1n]] },
      ]);
    });
  });
});
