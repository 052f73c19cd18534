/**
 * The leader's idempotence checks through `PartitionLog.append`: duplicates answered with the
 * original offsets and nothing written, sequence gaps and reordering, epoch bumps and fencing,
 * wrap-around at Int32.MAX, producers with no state, the five-batch window.
 */
import { offsetOf } from '@sluice/protocol/common/offsets.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import fc from 'fast-check';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { INT32_MAX } from '../../../../src/storage/offsets.js';
import { decrementSequence, incrementSequence, inSequence } from '../../../../src/storage/producer-state/sequence.js';
import type { PartitionLog } from '../../../../src/storage/log/partition-log.js';
import { decodeBatches, FakeClock, openLog, producedBatch, tempDir } from '../storage-fixtures.js';
import { hasCode, idempotentBatch } from './producer-fixtures.js';

const root = tempDir('pstate-append');
process.on('exit', root.remove);
let n = 0;
const fresh = (): string => join(root.path, String(n++));

/** Appends and returns [baseOffset, lastOffset, duplicate]. */
function append(
  log: PartitionLog,
  producerId: bigint,
  epoch: number,
  sequence: number,
  count: number,
  timestamp: number,
): [number, number, boolean] {
  const r = log.append(idempotentBatch({ producerId, epoch, sequence, count, timestamp }), { leaderEpoch: 0 });
  return [r.baseOffset, r.lastOffset, r.duplicate];
}

/** Asserts the append throws `code` and leaves the log end and size as they were. */
function refused(
  log: PartitionLog,
  code: number,
  producerId: bigint,
  epoch: number,
  sequence: number,
  count: number,
  timestamp: number,
): void {
  const [end, size] = [log.logEndOffset, log.size];
  assert.throws(() => append(log, producerId, epoch, sequence, count, timestamp), hasCode(code));
  assert.deepEqual([log.logEndOffset, log.size], [end, size], 'nothing written');
}

test('in-sequence batches append; a retry of any of the last five returns the original offsets without writing', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock);
  const t = clock.nowMs;
  assert.deepEqual(append(log, 1n, 0, 0, 3, t), [0, 2, false]);
  assert.deepEqual(append(log, 1n, 0, 3, 2, t + 1), [3, 4, false]);
  assert.deepEqual(append(log, 2n, 0, 0, 1, t + 2), [5, 5, false]);
  const [end, size] = [log.logEndOffset, log.size];
  const retry = log.append(idempotentBatch({ producerId: 1n, epoch: 0, sequence: 0, count: 3, timestamp: t }), { leaderEpoch: 0 });
  assert.deepEqual(retry, { baseOffset: 0, lastOffset: 2, logAppendTimeMs: t, logStartOffset: 0, recordCount: 3, duplicate: true });
  assert.deepEqual(append(log, 1n, 0, 3, 2, t + 1), [3, 4, true]);
  assert.deepEqual([log.logEndOffset, log.size], [end, size]);
  assert.deepEqual(append(log, 1n, 0, 5, 1, t + 3), [6, 6, false]);
  // The log holds each batch once.
  assert.deepEqual(
    decodeBatches(log.readBuffer(offsetOf(0), 1 << 20)).map((b) => [b.baseOffset, b.lastOffset]),
    [
      [0, 2],
      [3, 4],
      [5, 5],
      [6, 6],
    ],
  );
  const entry = log.activeProducers().get(1n)!;
  assert.deepEqual([entry.producerEpoch, entry.lastSeq, entry.lastTimestamp, entry.batches.length], [0, 5, t + 3, 3]);
  log.close();
});

test('only the last five batches are kept: a retry of the sixth-newest is out of order, of the fifth-newest a duplicate', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock);
  for (let i = 0; i < 6; i++) append(log, 9n, 0, i * 2, 2, clock.nowMs);
  refused(log, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, 9n, 0, 0, 2, clock.nowMs);
  assert.deepEqual(append(log, 9n, 0, 2, 2, clock.nowMs), [2, 3, true]);
  assert.deepEqual(
    log
      .activeProducers()
      .get(9n)!
      .batches.map((b) => [b.firstSeq, b.lastSeq, b.firstOffset, b.lastOffset]),
    [
      [2, 3, 2, 3],
      [4, 5, 4, 5],
      [6, 7, 6, 7],
      [8, 9, 8, 9],
      [10, 11, 10, 11],
    ],
  );
  log.close();
});

test('gaps, reordering and overlapping ranges are OUT_OF_ORDER_SEQUENCE_NUMBER; nothing is written', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock);
  append(log, 1n, 0, 0, 3, clock.nowMs);
  append(log, 1n, 0, 3, 3, clock.nowMs);
  refused(log, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, 1n, 0, 7, 1, clock.nowMs); // gap
  refused(log, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, 1n, 0, 5, 1, clock.nowMs); // behind
  refused(log, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, 1n, 0, 0, 2, clock.nowMs); // same start, other range
  refused(log, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, 1n, 0, 2, 2, clock.nowMs); // overlaps two batches
  assert.deepEqual(append(log, 1n, 0, 6, 1, clock.nowMs), [6, 6, false]);
  log.close();
});

test('epochs: a bump must restart at sequence 0 and forgets the old batches; an older epoch is INVALID_PRODUCER_EPOCH', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock);
  append(log, 4n, 2, 0, 2, clock.nowMs);
  append(log, 4n, 2, 2, 2, clock.nowMs);
  refused(log, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, 4n, 3, 4, 1, clock.nowMs);
  assert.deepEqual(append(log, 4n, 3, 0, 1, clock.nowMs), [4, 4, false]);
  assert.equal(log.activeProducers().get(4n)!.batches.length, 1);
  // The retry of an old-epoch batch is no duplicate any more: the producer was fenced.
  refused(log, ErrorCode.INVALID_PRODUCER_EPOCH, 4n, 2, 0, 2, clock.nowMs);
  refused(log, ErrorCode.INVALID_PRODUCER_EPOCH, 4n, 2, 4, 1, clock.nowMs);
  assert.deepEqual(append(log, 4n, 3, 1, 1, clock.nowMs), [5, 5, false]);
  log.close();
});

test('a producer without state is accepted at any sequence (Kafka 2.5+), then checked from there', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock);
  assert.deepEqual(append(log, 77n, 5, 1000, 2, clock.nowMs), [0, 1, false]);
  refused(log, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, 77n, 5, 1003, 1, clock.nowMs);
  assert.deepEqual(append(log, 77n, 5, 1002, 1, clock.nowMs), [2, 2, false]);
  // Producer ids beyond 2^53 are kept exactly.
  const big = (1n << 62n) + 1n;
  append(log, big, 0, 0, 1, clock.nowMs);
  assert.deepEqual(append(log, big, 0, 0, 1, clock.nowMs), [3, 3, true]);
  assert.equal(log.activeProducers().get(big - 1n), undefined);
  log.close();
});

test('sequences wrap from Int32.MAX to 0, inside a batch and between batches; duplicates across the wrap', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock);
  append(log, 3n, 0, INT32_MAX - 1, 3, clock.nowMs); // INT32_MAX-1, INT32_MAX, 0
  assert.equal(log.activeProducers().get(3n)!.lastSeq, 0);
  assert.deepEqual(append(log, 3n, 0, INT32_MAX - 1, 3, clock.nowMs), [0, 2, true]);
  assert.deepEqual(append(log, 3n, 0, 1, 1, clock.nowMs), [3, 3, false]);
  append(log, 6n, 0, INT32_MAX - 1, 2, clock.nowMs); // ends exactly at INT32_MAX
  refused(log, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, 6n, 0, 1, 1, clock.nowMs);
  assert.deepEqual(append(log, 6n, 0, 0, 1, clock.nowMs), [6, 6, false]);
  log.close();
});

test('a duplicate answers the original batch timestamp: the append time under LogAppendTime', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock, { 'message.timestamp.type': 'LogAppendTime' });
  const first = log.append(idempotentBatch({ producerId: 1n, epoch: 0, sequence: 0, count: 2, timestamp: 5 }), { leaderEpoch: 0 });
  const appendedAt = clock.nowMs;
  assert.equal(first.logAppendTimeMs, appendedAt);
  clock.advance(10_000);
  log.append(producedBatch(1, 10, clock.nowMs), { leaderEpoch: 0 });
  const retry = log.append(idempotentBatch({ producerId: 1n, epoch: 0, sequence: 0, count: 2, timestamp: 5 }), { leaderEpoch: 0 });
  assert.deepEqual([retry.baseOffset, retry.lastOffset, retry.logAppendTimeMs, retry.duplicate], [0, 1, appendedAt, true]);
  log.close();
});

test('batches without a producer id are never checked; other validation errors come first', () => {
  const clock = new FakeClock();
  const log = openLog(fresh(), clock, { 'max.message.bytes': 200 });
  const plain = producedBatch(1, 10, clock.nowMs);
  assert.equal(log.append(Buffer.from(plain), { leaderEpoch: 0 }).duplicate, false);
  assert.equal(log.append(Buffer.from(plain), { leaderEpoch: 0 }).duplicate, false);
  append(log, 1n, 0, 0, 1, clock.nowMs);
  const tooLarge = idempotentBatch({ producerId: 1n, epoch: 0, sequence: 0, count: 30, timestamp: clock.nowMs });
  assert.throws(() => log.append(tooLarge, { leaderEpoch: 0 }), hasCode(ErrorCode.MESSAGE_TOO_LARGE));
  assert.equal(log.logEndOffset, 3);
  log.close();
});

test('sequence arithmetic: increment/decrement wrap modulo 2^31 and invert each other', () => {
  const seq = fc.integer({ min: 0, max: INT32_MAX });
  fc.assert(
    fc.property(seq, seq, (s, k) => {
      const up = incrementSequence(s, k);
      assert.equal(up, (s + k) % 2 ** 31);
      assert.equal(decrementSequence(up, k), s);
      assert.equal(inSequence(s, incrementSequence(s, 1)), true);
      assert.equal(inSequence(s, incrementSequence(s, 2)), false);
    }),
  );
});
