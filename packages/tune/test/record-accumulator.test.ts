import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RecordAccumulator, recordSizeInBatch, type QueuedRecord } from '@sluice/client/producer-accumulator.js';
import { encodeBatch } from '@sluice/client/producer-request.js';
import { BatchLayout, CompressionType } from '@sluice/protocol/records/index.js';

const T = 'topic';
/** Every partition led by node 1. */
const leader = (): number => 1;

function record(value: string, timestamp = 1_000n): QueuedRecord {
  return { key: null, value: Buffer.from(value), headers: [], timestamp, sentAt: 0, callback: null };
}

/** batch.size that holds exactly `n` records of `value` (all with the same timestamp). */
function sizeForRecords(n: number, value: string): number {
  let bytes = BatchLayout.RECORD_BATCH_OVERHEAD;
  for (let i = 0; i < n; i++) bytes += recordSizeInBatch(i, 0n, record(value));
  return bytes;
}

describe('RecordAccumulator', () => {
  test('a batch closes on batch.size: the record that does not fit opens a new batch and makes the first sendable', () => {
    const acc = new RecordAccumulator({ batchSize: sizeForRecords(3, 'xxxxxxxxxx'), lingerMs: 1_000, compression: CompressionType.None });
    const results = [0, 1, 2].map((i) => acc.append(T, 0, record('xxxxxxxxxx'), i));
    assert.deepEqual(
      results.map((r) => r.newBatchCreated),
      [true, false, false],
    );
    // Exactly at the limit the batch is full already (Kafka: writeLimit <= estimatedBytesWritten).
    assert.equal(results[2]!.batchIsFull, true);
    assert.deepEqual([...acc.ready(3, leader, false).readyNodes], [1], 'a full batch does not wait for linger');
    const fourth = acc.append(T, 0, record('xxxxxxxxxx'), 3);
    assert.equal(fourth.newBatchCreated, true);
    assert.equal(fourth.batchIsFull, true, 'two batches queued: the first is sendable');
    const drained = acc.drain([1], leader, 1 << 20, 4).get(1)!;
    assert.equal(drained.length, 1, 'one batch per partition per request');
    assert.equal(drained[0]!.records.length, 3);
    assert.equal(acc.queuedRecords, 1);
    assert.equal(acc.ready(4, leader, false).readyNodes.size, 0, 'the second batch is not full and still lingers');
  });

  test('a batch closes on linger.ms: not sendable before, sendable at created + linger', () => {
    const acc = new RecordAccumulator({ batchSize: 16_384, lingerMs: 10, compression: CompressionType.None });
    acc.append(T, 0, record('a'), 100);
    acc.append(T, 0, record('b'), 104);
    const early = acc.ready(105, leader, false);
    assert.equal(early.readyNodes.size, 0);
    assert.equal(early.nextCheckDelayMs, 5, 'linger counts from the batch’s first record');
    assert.deepEqual([...acc.ready(110, leader, false).readyNodes], [1]);
    assert.deepEqual(
      acc
        .drain([1], leader, 1 << 20, 110)
        .get(1)!
        .map((b) => b.records.map((r) => r.value!.toString())),
      [['a', 'b']],
    );
  });

  test('linger.ms=0 makes a batch sendable at once; force (flush) ignores linger', () => {
    const zero = new RecordAccumulator({ batchSize: 16_384, lingerMs: 0, compression: CompressionType.None });
    zero.append(T, 0, record('a'), 50);
    assert.deepEqual([...zero.ready(50, leader, false).readyNodes], [1]);
    const long = new RecordAccumulator({ batchSize: 16_384, lingerMs: 60_000, compression: CompressionType.None });
    long.append(T, 0, record('a'), 50);
    assert.equal(long.ready(51, leader, false).readyNodes.size, 0);
    assert.deepEqual([...long.ready(51, leader, true).readyNodes], [1]);
  });

  test('keeps each partition’s records in send order across batches; a ready leader drains every partition it leads', () => {
    const acc = new RecordAccumulator({ batchSize: sizeForRecords(2, 'v00'), lingerMs: 1_000, compression: CompressionType.None });
    for (let i = 0; i < 10; i++) acc.append(T, i % 2, record(`v${String(i).padStart(2, '0')}`), i);
    const seen = new Map<number, string[]>([
      [0, []],
      [1, []],
    ]);
    for (let round = 0; acc.queuedRecords > 0; round++) {
      const check = acc.ready(100 + round, leader, false);
      const drained = acc.drain(check.readyNodes.size > 0 ? check.readyNodes : [1], leader, 1 << 20, 100 + round).get(1) ?? [];
      assert.ok(drained.length <= 2, 'at most one batch per partition in a request');
      for (const b of drained) seen.get(b.partition)!.push(...b.records.map((r) => r.value!.toString()));
      if (round === 0) assert.deepEqual(drained.map((b) => b.partition).sort(), [0, 1], 'the non-full partition rides along');
    }
    assert.deepEqual(seen.get(0), ['v00', 'v02', 'v04', 'v06', 'v08']);
    assert.deepEqual(seen.get(1), ['v01', 'v03', 'v05', 'v07', 'v09']);
  });

  test('a request holds batches up to max.request.size (the first always goes) and the next drain starts where it stopped', () => {
    const batchSize = sizeForRecords(4, 'x'.repeat(100));
    const acc = new RecordAccumulator({ batchSize, lingerMs: 0, compression: CompressionType.None });
    for (const p of [0, 1, 2]) for (let i = 0; i < 4; i++) acc.append(T, p, record('x'.repeat(100)), 0);
    const first = acc.drain([1], leader, batchSize + 10, 0).get(1)!;
    const second = acc.drain([1], leader, batchSize + 10, 0).get(1)!;
    const third = acc.drain([1], leader, batchSize + 10, 0).get(1)!;
    assert.deepEqual(
      [first, second, third].map((r) => r.map((b) => b.partition)),
      [[0], [1], [2]],
    );
  });

  test('a record larger than batch.size gets a batch of its own', () => {
    const acc = new RecordAccumulator({ batchSize: 100, lingerMs: 1_000, compression: CompressionType.None });
    acc.append(T, 0, record('small'), 0);
    const big = acc.append(T, 0, record('y'.repeat(500)), 0);
    assert.equal(big.newBatchCreated, true);
    const drained = acc.drain([1], leader, 1 << 20, 0).get(1)!;
    assert.equal(drained[0]!.records.length, 1);
    assert.equal(acc.drain([1], leader, 1 << 20, 0).get(1)![0]!.records[0]!.value!.length, 500);
  });

  test('a re-enqueued batch goes back to the head of its partition and waits out the backoff', () => {
    const acc = new RecordAccumulator({ batchSize: 16_384, lingerMs: 0, compression: CompressionType.None });
    acc.append(T, 0, record('first'), 0);
    const [batch] = acc.drain([1], leader, 1 << 20, 0).get(1)!;
    acc.append(T, 0, record('second'), 1);
    batch!.attempts = 1;
    acc.reenqueue(batch!, 10, 100);
    const waiting = acc.ready(50, leader, false);
    assert.equal(waiting.readyNodes.size, 0);
    assert.equal(waiting.nextCheckDelayMs, 60);
    assert.equal(acc.drain([1], leader, 1 << 20, 50).size, 0);
    assert.deepEqual(
      acc
        .drain([1], leader, 1 << 20, 110)
        .get(1)![0]!
        .records.map((r) => r.value!.toString()),
      ['first'],
    );
  });

  test('partitions without a known leader are reported for a metadata refresh', () => {
    const acc = new RecordAccumulator({ batchSize: 16_384, lingerMs: 0, compression: CompressionType.None });
    acc.append(T, 3, record('a'), 0);
    const check = acc.ready(0, () => undefined, false);
    assert.equal(check.readyNodes.size, 0);
    assert.deepEqual([...check.unknownLeaderTopics], [T]);
  });

  test('compressed batches fill by the estimated compression ratio, which follows observed ratios as Kafka’s estimator does', () => {
    const value = 'z'.repeat(1000);
    const acc = new RecordAccumulator({ batchSize: sizeForRecords(4, value), lingerMs: 1_000, compression: CompressionType.Lz4 });
    for (let i = 0; i < 4; i++) acc.append(T, 0, record(value), 0);
    // Ratio 1 with the 5% margin: the fourth record already overflows the estimate.
    assert.equal(acc.drain([1], leader, 1 << 20, 0).get(1)![0]!.records.length, 3);
    acc.takeAll();
    for (let i = 0; i < 40; i++) acc.observeCompression(T, 0.1); // improves by 0.005 a step
    for (let i = 0; i < 8; i++) acc.append(T, 0, record(value), 0);
    assert.equal(acc.drain([1], leader, 1 << 20, 0).get(1)![0]!.records.length, 4, 'ratio 0.8: four records fit');
    acc.observeCompression(T, 2); // a worse ratio is trusted at once
    acc.takeAll();
    for (let i = 0; i < 3; i++) acc.append(T, 0, record(value), 0);
    assert.equal(acc.drain([1], leader, 1 << 20, 0).get(1)![0]!.records.length, 2);
  });
});

describe('recordSizeInBatch', () => {
  test('adds up to the encoder’s batch length (Kafka’s DefaultRecord.sizeInBytes)', () => {
    const records: QueuedRecord[] = [
      record('', 1_000n),
      { ...record('v'.repeat(300), 1_005n), key: Buffer.from('key') },
      {
        ...record('w'.repeat(70_000), 900n),
        headers: [
          { key: 'h', value: Buffer.from('hv') },
          { key: 'n', value: null },
        ],
      },
      { ...record('x', 5_000_000n), key: null, value: null },
    ];
    let expected = BatchLayout.RECORD_BATCH_OVERHEAD;
    records.forEach((r, i) => (expected += recordSizeInBatch(i, r.timestamp - records[0]!.timestamp, r)));
    assert.equal(encodeBatch(records, CompressionType.None, 0n).bytes.length, expected);
  });
});
