/**
 * InitProducerId with a transactional id: a new id at epoch 0 with an allocated producer id, epoch
 * bumps that fence the previous producer, an open transaction aborted first, KIP-360 recovery and
 * fencing, producer id rotation when the epoch runs out, and the request checks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { MAX_PRODUCER_EPOCH } from '../../../../src/coordinator/transaction/transaction-metadata.js';
import { Harness, TP0, TP1, TXN } from './harness.js';

test('a new transactional id gets an allocated producer id at epoch 0, in Empty', () => {
  const h = new Harness();
  assert.deepEqual(h.init(5), { errorCode: ErrorCode.NONE, producerId: 1000n, producerEpoch: 0 });
  assert.equal(h.allocations, 1);
  const m = h.c.transaction(TXN)!;
  assert.equal(h.state(), 'Empty');
  assert.equal(m.txnTimeoutMs, 60_000);
  assert.equal(m.txnStartTimestamp, -1);
  assert.equal(m.txnLastUpdateTimestamp, 5);
  assert.equal(h.log.length, 1);
});

test('InitProducerId again bumps the epoch (fencing the old producer) without a new producer id', () => {
  const h = new Harness();
  const first = h.init(0);
  const second = h.init(1, { timeoutMs: 30_000 });
  assert.deepEqual(second, { errorCode: ErrorCode.NONE, producerId: first.producerId, producerEpoch: 1 });
  assert.equal(h.allocations, 1);
  assert.equal(h.c.transaction(TXN)!.txnTimeoutMs, 30_000);
  assert.equal(h.add(2, first, [TP0]), ErrorCode.PRODUCER_FENCED, 'the old epoch is fenced');
});

test('a timeout of 0 or above transaction.max.timeout.ms answers INVALID_TRANSACTION_TIMEOUT', () => {
  const h = new Harness({ transactionMaxTimeoutMs: 1000 });
  assert.equal(h.init(0, { timeoutMs: 1001 }).errorCode, ErrorCode.INVALID_TRANSACTION_TIMEOUT);
  assert.equal(h.init(0, { timeoutMs: 0 }).errorCode, ErrorCode.INVALID_TRANSACTION_TIMEOUT);
  assert.equal(h.init(0, { timeoutMs: 1000 }).errorCode, ErrorCode.NONE);
});

test('a producer id without an epoch (or the reverse) is an INVALID_REQUEST', () => {
  const h = new Harness();
  assert.equal(h.init(0, { producerId: 5n, producerEpoch: -1 }).errorCode, ErrorCode.INVALID_REQUEST);
});

test('an open transaction is fenced and aborted first: CONCURRENT_TRANSACTIONS, then the retry gets a higher epoch', () => {
  const h = new Harness({ transactionVersionLevel: () => 0 });
  const p = h.init(0);
  h.add(1, p, [TP0, TP1]);
  assert.deepEqual(h.init(2), { errorCode: ErrorCode.CONCURRENT_TRANSACTIONS, producerId: -1n, producerEpoch: -1 });
  const m = h.c.transaction(TXN)!;
  assert.equal(h.state(), 'PrepareAbort');
  assert.equal(m.producerEpoch, 1, 'the fencing epoch, never handed out');
  const job = h.jobs.at(-1)!;
  assert.deepEqual(
    { commit: job.commit, epoch: job.producerEpoch, partitions: job.partitions },
    { commit: false, epoch: 1, partitions: [TP0, TP1] },
  );
  assert.equal(h.init(3).errorCode, ErrorCode.CONCURRENT_TRANSACTIONS, 'markers still being written');
  h.markersWritten(4);
  assert.equal(h.state(), 'CompleteAbort');
  assert.deepEqual(h.init(5), { errorCode: ErrorCode.NONE, producerId: p.producerId, producerEpoch: 2 });
});

test('with transaction.version 2 the fencing abort bumps the epoch once more, like every TV2 end', () => {
  const h = new Harness({ transactionVersionLevel: () => 2 });
  const p = h.init(0);
  h.add(1, p, [TP0]);
  assert.equal(h.init(2).errorCode, ErrorCode.CONCURRENT_TRANSACTIONS);
  const job = h.jobs.at(-1)!;
  assert.deepEqual({ epoch: job.producerEpoch, tv: job.transactionVersion }, { epoch: 2, tv: 2 });
  h.markersWritten(3);
  assert.equal(h.init(4).producerEpoch, 3);
});

test('KIP-360: the current producer recovers with an epoch bump; a retry of that bump gets the same epoch; others are fenced', () => {
  const h = new Harness();
  const p = h.init(0);
  const bumped = h.init(1, { producerId: p.producerId, producerEpoch: p.producerEpoch });
  assert.deepEqual(bumped, { errorCode: ErrorCode.NONE, producerId: p.producerId, producerEpoch: 1 });
  assert.deepEqual(h.init(2, { producerId: p.producerId, producerEpoch: 0 }), bumped, 'the lost answer is given again');
  assert.equal(h.init(3, { producerId: p.producerId, producerEpoch: 7 }).errorCode, ErrorCode.PRODUCER_FENCED);
  assert.equal(h.init(3, { producerId: 99n, producerEpoch: 1 }).errorCode, ErrorCode.PRODUCER_FENCED, 'another producer id');
});

test('KIP-360 on an unknown id: the producer gets a new producer id at epoch 0', () => {
  const h = new Harness();
  assert.deepEqual(h.init(0, { producerId: 42n, producerEpoch: 3 }), { errorCode: ErrorCode.NONE, producerId: 1000n, producerEpoch: 0 });
});

test('an exhausted epoch rotates to a new producer id at epoch 0; a retry from the old id at its last epoch is recognised', () => {
  const h = new Harness();
  const p = h.init(0);
  // Walk the epoch up to Short.MAX_VALUE - 1 without a record per bump.
  let epoch = p.producerEpoch;
  while (epoch < MAX_PRODUCER_EPOCH - 1) epoch = h.init(1).producerEpoch;
  assert.equal(h.allocations, 1);
  const rotated = h.init(2, { producerId: p.producerId, producerEpoch: MAX_PRODUCER_EPOCH - 1 });
  assert.deepEqual(rotated, { errorCode: ErrorCode.NONE, producerId: 1001n, producerEpoch: 0 });
  assert.equal(h.c.transaction(TXN)!.prevProducerId, p.producerId);
  const retried = h.init(3, { producerId: p.producerId, producerEpoch: MAX_PRODUCER_EPOCH - 1 });
  assert.deepEqual(retried, { errorCode: ErrorCode.NONE, producerId: 1001n, producerEpoch: 0 }, 'same answer, no new bump');
  assert.equal(h.init(4, { producerId: p.producerId, producerEpoch: MAX_PRODUCER_EPOCH - 2 }).errorCode, ErrorCode.PRODUCER_FENCED);
});

test('InitProducerId while markers are written answers CONCURRENT_TRANSACTIONS', () => {
  const h = new Harness();
  const p = h.init(0);
  h.add(1, p, [TP0]);
  h.end(2, p, true);
  assert.equal(h.init(3).errorCode, ErrorCode.CONCURRENT_TRANSACTIONS);
  assert.equal(h.state(), 'PrepareCommit');
});
