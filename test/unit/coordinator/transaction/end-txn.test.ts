/**
 * EndTxn, TV1 and TV2 (KIP-890 part 2): the decision is recorded (Prepare*) and markers follow
 * with the right epoch; Complete* once written; retries of a decided EndTxn; the TV2 epoch bump,
 * its retry with the previous epoch, and the move to a new producer id when the epoch runs out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { MAX_PRODUCER_EPOCH } from '../../../../src/coordinator/transaction/transaction-metadata.js';
import { Harness, TP0, TP1, TXN } from './harness.js';

const NO_IDS = { producerId: -1n, producerEpoch: -1 };

test('TV1 commit: PrepareCommit with markers at the current epoch, then CompleteCommit with no partitions', () => {
  const h = new Harness();
  const p = h.init(0);
  h.add(1, p, [TP0, TP1]);
  assert.deepEqual(h.end(2, p, true), { errorCode: ErrorCode.NONE, ...NO_IDS });
  assert.equal(h.state(), 'PrepareCommit');
  assert.deepEqual(h.jobs.at(-1), {
    transactionalId: TXN,
    producerId: p.producerId,
    producerEpoch: p.producerEpoch,
    commit: true,
    transactionVersion: 0,
    partitions: [TP0, TP1],
  });
  h.markersWritten(3);
  const m = h.c.transaction(TXN)!;
  assert.equal(h.state(), 'CompleteCommit');
  assert.deepEqual(m.partitions, []);
  assert.equal(m.producerEpoch, p.producerEpoch, 'TV1 keeps the epoch');
});

test('TV1 retries: the same decision succeeds, the other is INVALID_TXN_STATE; during markers both are CONCURRENT_TRANSACTIONS', () => {
  const h = new Harness();
  const p = h.init(0);
  h.add(1, p, [TP0]);
  h.end(2, p, true);
  assert.equal(h.end(3, p, true).errorCode, ErrorCode.CONCURRENT_TRANSACTIONS);
  assert.equal(h.end(3, p, false).errorCode, ErrorCode.CONCURRENT_TRANSACTIONS);
  h.markersWritten(4);
  assert.equal(h.end(5, p, true).errorCode, ErrorCode.NONE);
  assert.equal(h.end(5, p, false).errorCode, ErrorCode.INVALID_TXN_STATE);
});

test('TV1 errors: Empty is INVALID_TXN_STATE, wrong epoch PRODUCER_FENCED, wrong producer INVALID_PRODUCER_ID_MAPPING', () => {
  const h = new Harness();
  const p = h.init(0);
  assert.equal(h.end(1, p, false).errorCode, ErrorCode.INVALID_TXN_STATE);
  assert.equal(h.end(1, { producerId: p.producerId, producerEpoch: 3 }, false).errorCode, ErrorCode.PRODUCER_FENCED);
  assert.equal(h.end(1, { producerId: 5n, producerEpoch: 0 }, false).errorCode, ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  assert.equal(h.end(1, p, false, { id: 'nobody' }).errorCode, ErrorCode.INVALID_PRODUCER_ID_MAPPING);
});

test('TV2: the epoch is bumped at the end, markers carry it and transaction version 2, the answer hands it out', () => {
  const h = new Harness();
  const p = h.init(0);
  h.add(1, p, [TP0], { tv: 2 });
  assert.deepEqual(h.end(2, p, true, { tv: 2 }), { errorCode: ErrorCode.NONE, producerId: p.producerId, producerEpoch: 1 });
  const job = h.jobs.at(-1)!;
  assert.deepEqual({ epoch: job.producerEpoch, tv: job.transactionVersion }, { epoch: 1, tv: 2 });
  const m = h.c.transaction(TXN)!;
  assert.equal(m.lastProducerEpoch, 0);
  h.markersWritten(3);
  assert.equal(h.c.transaction(TXN)!.producerEpoch, 1);
  assert.equal(h.add(4, p, [TP0], { tv: 2 }), ErrorCode.PRODUCER_FENCED, 'the old epoch cannot open the next transaction');
  assert.equal(h.add(4, { producerId: p.producerId, producerEpoch: 1 }, [TP0], { tv: 2 }), ErrorCode.NONE);
});

test('TV2 retries with the previous epoch: CONCURRENT while markers are written, then the same answer again or INVALID_TXN_STATE', () => {
  const h = new Harness();
  const p = h.init(0);
  h.add(1, p, [TP0], { tv: 2 });
  const answer = h.end(2, p, true, { tv: 2 });
  assert.equal(h.end(3, p, true, { tv: 2 }).errorCode, ErrorCode.CONCURRENT_TRANSACTIONS);
  // The next transaction, ended before its records left the producer: it waits for the markers (Kafka fences it).
  assert.equal(
    h.end(3, { producerId: p.producerId, producerEpoch: 1 }, false, { tv: 2 }).errorCode,
    ErrorCode.CONCURRENT_TRANSACTIONS,
    'the new epoch waits for the markers',
  );
  assert.equal(
    h.end(3, { producerId: p.producerId, producerEpoch: 2 }, false, { tv: 2 }).errorCode,
    ErrorCode.PRODUCER_FENCED,
    'an epoch never handed out',
  );
  h.markersWritten(4);
  assert.deepEqual(h.end(5, p, true, { tv: 2 }), answer);
  assert.equal(h.end(5, p, false, { tv: 2 }).errorCode, ErrorCode.INVALID_TXN_STATE);
  assert.equal(
    h.end(5, { producerId: p.producerId, producerEpoch: p.producerEpoch - 1 }, true, { tv: 2 }).errorCode,
    ErrorCode.PRODUCER_FENCED,
    'older than a retry',
  );
});

test('TV2 abort without a transaction (Empty or Complete*) bumps the epoch; commit there is INVALID_TXN_STATE', () => {
  const h = new Harness();
  const p = h.init(0);
  assert.equal(h.end(1, p, true, { tv: 2 }).errorCode, ErrorCode.INVALID_TXN_STATE);
  const aborted = h.end(2, p, false, { tv: 2 });
  assert.deepEqual(aborted, { errorCode: ErrorCode.NONE, producerId: p.producerId, producerEpoch: 1 });
  const job = h.jobs.at(-1)!;
  assert.deepEqual(job.partitions, [], 'nothing to mark');
  assert.equal(h.c.transaction(TXN)!.txnStartTimestamp, 2);
  h.markersWritten(3);
  assert.deepEqual(h.end(4, p, false, { tv: 2 }), aborted, 'a retry of that abort');
  assert.deepEqual(
    h.end(5, aborted, false, { tv: 2 }),
    { errorCode: ErrorCode.NONE, producerId: p.producerId, producerEpoch: 2 },
    'abort again from CompleteAbort',
  );
  h.markersWritten(6);
  const next = { producerId: p.producerId, producerEpoch: 2 };
  h.add(7, next, [TP0], { tv: 2 });
  h.end(8, next, true, { tv: 2 });
  h.markersWritten(9);
  assert.deepEqual(
    h.end(10, { producerId: p.producerId, producerEpoch: 3 }, false, { tv: 2 }).producerEpoch,
    4,
    'abort from CompleteCommit',
  );
  assert.equal(h.end(10, next, false, { tv: 2 }).errorCode, ErrorCode.PRODUCER_FENCED, 'an epoch two behind is fenced');
});

test('TV2 when the epoch runs out: the answer moves the producer to a new producer id at epoch 0; a retry with the old id is recognised', () => {
  const h = new Harness();
  let p = h.init(0);
  while (p.producerEpoch < MAX_PRODUCER_EPOCH - 2) p = h.init(1);
  p = { ...p, producerEpoch: h.init(1, { producerId: p.producerId, producerEpoch: p.producerEpoch }).producerEpoch };
  assert.equal(p.producerEpoch, MAX_PRODUCER_EPOCH - 1);
  h.add(2, p, [TP0], { tv: 2 });
  const ended = h.end(3, p, true, { tv: 2 });
  assert.deepEqual(ended, { errorCode: ErrorCode.NONE, producerId: 1001n, producerEpoch: 0 });
  const job = h.jobs.at(-1)!;
  assert.deepEqual(
    { id: job.producerId, epoch: job.producerEpoch },
    { id: p.producerId, epoch: MAX_PRODUCER_EPOCH },
    'markers end the old producer id at its last epoch',
  );
  h.markersWritten(4);
  const m = h.c.transaction(TXN)!;
  assert.deepEqual({ id: m.producerId, epoch: m.producerEpoch, prev: m.prevProducerId }, { id: 1001n, epoch: 0, prev: p.producerId });
  assert.deepEqual(h.end(5, p, true, { tv: 2 }), ended, 'a retry from the old producer id');
});
