// Produce and Fetch requests that span many partitions go to each partition worker as one ring
// message (split where a worker's share passes the ring's message limit). Over a real socket:
// every partition gets its own answer, in request order, whatever its neighbours did; large
// requests pipelined on one connection read back intact while the broker reuses frame memory,
// which the workers read the batches in (and stamp LogAppendTime into) without a copy, also when
// the connection that sent them is gone before its answers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeResponseHeader, encodeRequest } from '@sluice/protocol/envelope.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import * as M from '@sluice/protocol/messages/index.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import {
  TimestampType,
  computeBatchCrc,
  type BatchHeader,
  encodeRecordBatch,
  readBatchHeader,
  readRecords,
  timestampTypeOf,
} from '@sluice/protocol/records/index.js';
import { startBrokerProcess, type BrokerProcess } from '../helpers/broker-process.js';
import { wireCall } from '../helpers/wire-call.js';
import { WireClient } from '../helpers/wire-client.js';

const PRODUCE_VERSION = 11;
const FETCH_VERSION = 12;
const PARTITIONS = 12;
/** 12 × 900 KB: more than one 8 MiB ring message holds, so the broker must split the request. */
const VALUE_BYTES = 900_000;

function batch(value: Buffer): Buffer {
  return encodeRecordBatch({ records: [{ key: null, value, timestamp: BigInt(Date.now()) }] });
}

interface FetchedBatch {
  readonly partition: number;
  /** The partition's fetched records, which the batch lies in. */
  readonly stored: Buffer;
  readonly header: BatchHeader;
}

/** A sessionless consumer Fetch: answered at once with what there is, unless `wait` asks for a long poll. */
function fetchOnce(
  bootstrap: string,
  topics: M.FetchRequestFetchTopicInput[],
  wait = { maxWaitMs: 0, minBytes: 0, maxBytes: 64 << 20 },
): Promise<M.FetchResponseData> {
  return wireCall(bootstrap, M.FetchRequest, M.FetchResponse, FETCH_VERSION, {
    replicaId: -1,
    ...wait,
    sessionId: 0,
    sessionEpoch: -1,
    topics,
  });
}

async function createTopic(
  bootstrap: string,
  name: string,
  numPartitions: number,
  configs: { name: string; value: string }[] = [],
): Promise<void> {
  const res = await wireCall(bootstrap, M.CreateTopicsRequest, M.CreateTopicsResponse, 7, {
    timeoutMs: 10_000,
    topics: [{ name, numPartitions, replicationFactor: 1, configs }],
  });
  assert.equal(res.topics[0]!.errorCode, ErrorCode.NONE);
}

describe('requests spanning many partitions', () => {
  let dir: string;
  let broker: BrokerProcess;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-multi-partition-'));
    // One worker: every partition's append shares one ring.
    broker = await startBrokerProcess({ 'log.dirs': dir, 'num.partition.workers': '1', 'auto.create.topics.enable': 'false' });
    await createTopic(broker.bootstrap, 'wide', PARTITIONS);
    await createTopic(broker.bootstrap, 'other', 2);
  });
  after(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('one Produce larger than a ring message: each partition appended or refused on its own, answers in request order', async () => {
    const values = Array.from({ length: PARTITIONS }, (_, p) => Buffer.alloc(VALUE_BYTES, p + 1));
    const corrupt = batch(Buffer.from('corrupt'));
    corrupt[corrupt.length - 1]! ^= 0xff;
    // Partitions in reverse order, an unknown partition and a corrupt batch in between.
    const partitionData = [
      ...values.map((v, p) => ({ index: p, records: batch(v) })).reverse(),
      { index: PARTITIONS, records: batch(Buffer.from('nowhere')) },
    ];
    const res = await wireCall(broker.bootstrap, M.ProduceRequest, M.ProduceResponse, PRODUCE_VERSION, {
      acks: -1,
      timeoutMs: 10_000,
      topicData: [
        { name: 'wide', partitionData },
        {
          name: 'other',
          partitionData: [
            { index: 1, records: corrupt },
            { index: 0, records: batch(Buffer.from('small')) },
          ],
        },
        { name: 'missing', partitionData: [{ index: 0, records: batch(Buffer.from('x')) }] },
      ],
    });
    const answers = res.responses.map((t) => [t.name, t.partitionResponses.map((p) => [p.index, p.errorCode, p.baseOffset])]);
    assert.deepEqual(answers, [
      ['wide', [...values.map((_, p) => [p, ErrorCode.NONE, 0n]).reverse(), [PARTITIONS, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1n]]],
      [
        'other',
        [
          [1, ErrorCode.CORRUPT_MESSAGE, -1n],
          [0, ErrorCode.NONE, 0n],
        ],
      ],
      ['missing', [[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1n]]],
    ]);

    const fetched = await fetchOnce(broker.bootstrap, [
      {
        topic: 'wide',
        partitions: Array.from({ length: PARTITIONS }, (_, p) => ({
          partition: PARTITIONS - 1 - p,
          fetchOffset: 0n,
          partitionMaxBytes: 2 << 20,
        })),
      },
      {
        topic: 'other',
        partitions: [
          { partition: 1, fetchOffset: 0n, partitionMaxBytes: 1 << 20 },
          { partition: 7, fetchOffset: 0n, partitionMaxBytes: 1 << 20 },
        ],
      },
    ]);
    const wide = fetched.responses[0]!.partitions;
    assert.deepEqual(
      wide.map((p) => p.partitionIndex),
      Array.from({ length: PARTITIONS }, (_, p) => PARTITIONS - 1 - p),
    );
    for (const p of wide) {
      assert.equal(p.errorCode, ErrorCode.NONE);
      assert.equal(p.highWatermark, 1n);
      const stored = Buffer.from(p.records as Uint8Array);
      const [record, ...more] = [...readRecords(stored, readBatchHeader(stored, 0)!)];
      assert.equal(more.length, 0);
      assert.ok(record!.value!.equals(values[p.partitionIndex]!), `partition ${p.partitionIndex} reads back its own value`);
    }
    const other = fetched.responses[1]!.partitions.map((p) => [p.partitionIndex, p.errorCode, p.highWatermark]);
    assert.deepEqual(
      other,
      [
        [1, ErrorCode.NONE, 0n],
        [7, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1n],
      ],
      'the corrupt batch was not appended',
    );
  });
});

describe('a long-poll fetch woken by one partition', () => {
  let dir: string;
  let broker: BrokerProcess;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-woken-fetch-'));
    // Two workers: partitions 0 and 1 of a topic have different owners.
    broker = await startBrokerProcess({ 'log.dirs': dir, 'num.partition.workers': '2', 'auto.create.topics.enable': 'false' });
    await createTopic(broker.bootstrap, 'woken', 2);
  });
  after(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function produceTo(partition: number, value: string): Promise<void> {
    const res = await wireCall(broker.bootstrap, M.ProduceRequest, M.ProduceResponse, PRODUCE_VERSION, {
      acks: -1,
      timeoutMs: 10_000,
      topicData: [{ name: 'woken', partitionData: [{ index: partition, records: batch(Buffer.from(value)) }] }],
    });
    assert.equal(res.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.NONE);
  }

  function longPoll(offsets: readonly [bigint, bigint]): Promise<M.FetchResponseData> {
    return fetchOnce(
      broker.bootstrap,
      [{ topic: 'woken', partitions: offsets.map((fetchOffset, partition) => ({ partition, fetchOffset, partitionMaxBytes: 1 << 20 })) }],
      { maxWaitMs: 10_000, minBytes: 1, maxBytes: 1 << 20 },
    );
  }

  const summary = (res: M.FetchResponseData): Array<[number, number, bigint, number]> =>
    res.responses[0]!.partitions.map((p) => [
      p.partitionIndex,
      p.errorCode,
      p.highWatermark,
      (p.records as Uint8Array | null)?.byteLength ?? 0,
    ]);

  test('answers with the appended partition and the current state of the others, on both workers in turn', async () => {
    await produceTo(1, 'before');
    // Partition 1 already has a record at offset 0; asking from offset 1 there, and 0 on partition 0, finds nothing yet.
    const first = longPoll([0n, 1n]);
    // Kept: the long poll parked at the broker shows nowhere outside it, so it is given the time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await produceTo(0, 'wakes partition 0');
    const woken = summary(await first);
    assert.deepEqual(
      woken.map(([p, e, hw]) => [p, e, hw]),
      [
        [0, ErrorCode.NONE, 1n],
        [1, ErrorCode.NONE, 1n],
      ],
    );
    assert.ok(woken[0]![3] > 0 && woken[1]![3] === 0, 'records only for the partition that got them');

    const second = longPoll([1n, 1n]);
    // Kept: the long poll parked at the broker shows nowhere outside it, so it is given the time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await produceTo(1, 'wakes partition 1');
    const again = summary(await second);
    assert.deepEqual(
      again.map(([p, e, hw]) => [p, e, hw]),
      [
        [0, ErrorCode.NONE, 1n],
        [1, ErrorCode.NONE, 2n],
      ],
    );
    assert.ok(again[0]![3] === 0 && again[1]![3] > 0);
  });
});

describe('large Produce requests pipelined on one connection', () => {
  let dir: string;
  let broker: BrokerProcess;
  const REQUESTS = 8;
  /** Each request spans several socket chunks, so its frame is assembled in the broker's frame pool. */
  const LARGE_VALUE_BYTES = 300_000;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-pipelined-produce-'));
    broker = await startBrokerProcess({ 'log.dirs': dir, 'num.partition.workers': '2', 'auto.create.topics.enable': 'false' });
    await createTopic(broker.bootstrap, 'pipelined', 2);
  });
  after(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Sends one acks=1 Produce per value, all before reading any answer; value i goes to partition i % 2. */
  function sendAll(client: WireClient, topic: string, values: readonly Buffer[]): void {
    values.forEach((value, i) => {
      const body = { acks: 1, timeoutMs: 10_000, topicData: [{ name: topic, partitionData: [{ index: i % 2, records: batch(value) }] }] };
      client.send(
        encodeRequest(M.ProduceRequest.apiKey!, PRODUCE_VERSION, i, 'pipelined-test', (w) =>
          M.ProduceRequest.write(w, body, PRODUCE_VERSION),
        ),
      );
    });
  }

  /** Every batch of both partitions, from offset 0, in log order. */
  async function fetchBatches(topic: string): Promise<FetchedBatch[]> {
    const fetched = await fetchOnce(broker.bootstrap, [
      { topic, partitions: [0, 1].map((partition) => ({ partition, fetchOffset: 0n, partitionMaxBytes: 16 << 20 })) },
    ]);
    const out: FetchedBatch[] = [];
    for (const p of fetched.responses[0]!.partitions) {
      const stored = Buffer.from(p.records as Uint8Array);
      for (let position = 0; position < stored.length;) {
        const header = readBatchHeader(stored, position)!;
        out.push({ partition: p.partitionIndex, stored, header });
        position = header.end;
      }
    }
    return out;
  }

  test('LogAppendTime stamped by the worker in the frame itself: batches read back stamped, with a valid CRC and the values sent', async () => {
    await createTopic(broker.bootstrap, 'stamped', 2, [{ name: 'message.timestamp.type', value: 'LogAppendTime' }]);
    const values = Array.from({ length: REQUESTS }, (_, i) => Buffer.alloc(LARGE_VALUE_BYTES, 0x40 + i));
    const before = BigInt(Date.now());
    const client = await WireClient.connect(broker.host, broker.port);
    try {
      sendAll(client, 'stamped', values);
      for (let i = 0; i < REQUESTS; i++) {
        const frame = await client.readFrame(30_000);
        const { bodyOffset } = decodeResponseHeader(frame, M.ProduceRequest.apiKey!, PRODUCE_VERSION);
        const answer = M.ProduceResponse.read(new Reader(frame, bodyOffset), PRODUCE_VERSION).responses[0]!.partitionResponses[0]!;
        assert.equal(answer.errorCode, ErrorCode.NONE);
        assert.ok(answer.logAppendTimeMs >= before, 'the answer carries the append time');
      }
    } finally {
      client.close();
    }
    const batches = await fetchBatches('stamped');
    assert.equal(batches.length, REQUESTS);
    for (const { stored, header } of batches) {
      assert.equal(timestampTypeOf(header.attributes), TimestampType.LogAppendTime);
      assert.ok(header.maxTimestamp >= before);
      assert.equal(
        computeBatchCrc(stored, header.start, header.end),
        header.crc >>> 0,
        'the stamped batch was re-checksummed as it was stored',
      );
      const value = [...readRecords(stored, header)][0]!.value!;
      assert.ok(
        values.some((v) => v.equals(value)),
        'a value as sent',
      );
    }
  });

  test('a connection closed before its answers: what it appended is intact, and the next requests, in reused frames, read back as sent', async () => {
    await createTopic(broker.bootstrap, 'abandoned', 2);
    const abandoned = Array.from({ length: REQUESTS }, (_, i) => Buffer.alloc(LARGE_VALUE_BYTES, 0x60 + i));
    const first = await WireClient.connect(broker.host, broker.port);
    sendAll(first, 'abandoned', abandoned);
    // Gone while its appends may still be under way: the broker answers nobody, and gives the frames back.
    first.close();
    const next = Array.from({ length: REQUESTS }, (_, i) => Buffer.alloc(LARGE_VALUE_BYTES, 0x80 + i));
    const second = await WireClient.connect(broker.host, broker.port);
    try {
      sendAll(second, 'abandoned', next);
      for (let i = 0; i < REQUESTS; i++) {
        const frame = await second.readFrame(30_000);
        const { bodyOffset } = decodeResponseHeader(frame, M.ProduceRequest.apiKey!, PRODUCE_VERSION);
        assert.equal(
          M.ProduceResponse.read(new Reader(frame, bodyOffset), PRODUCE_VERSION).responses[0]!.partitionResponses[0]!.errorCode,
          ErrorCode.NONE,
        );
      }
    } finally {
      second.close();
    }
    const read = (await fetchBatches('abandoned')).map(({ stored, header }) => [...readRecords(stored, header)][0]!.value!);
    for (const value of read)
      assert.ok(
        [...abandoned, ...next].some((v) => v.equals(value)),
        'every stored value is one that was sent, whole',
      );
    for (const value of next)
      assert.ok(
        read.some((v) => v.equals(value)),
        'every answered value was stored',
      );
  });

  test('every record reads back as sent, although frame memory is reused between requests', async () => {
    const values = Array.from({ length: REQUESTS }, (_, i) => Buffer.alloc(LARGE_VALUE_BYTES, i + 1));
    const client = await WireClient.connect(broker.host, broker.port);
    try {
      // All sent before any answer is read: several frames are assembled while others are being appended.
      sendAll(client, 'pipelined', values);
      for (let i = 0; i < REQUESTS; i++) {
        const frame = await client.readFrame(30_000);
        const { correlationId, bodyOffset } = decodeResponseHeader(frame, M.ProduceRequest.apiKey!, PRODUCE_VERSION);
        assert.equal(correlationId, i, 'answers in request order');
        const res = M.ProduceResponse.read(new Reader(frame, bodyOffset), PRODUCE_VERSION);
        assert.equal(res.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.NONE);
      }
    } finally {
      client.close();
    }
    const batches = await fetchBatches('pipelined');
    for (const partition of [0, 1]) {
      const read = batches
        .filter((b) => b.partition === partition)
        .flatMap(({ stored, header }) => [...readRecords(stored, header)].map((r) => r.value!));
      const expected = values.filter((_, i) => i % 2 === partition);
      assert.equal(read.length, expected.length);
      read.forEach((value, n) => assert.ok(value.equals(expected[n]!), `partition ${partition}, record ${n} reads back as sent`));
    }
  });
});
