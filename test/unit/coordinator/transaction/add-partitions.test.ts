/**
 * AddPartitionsToTxn (client and TV2 partition leaders), its verifyOnly form (KIP-890 part 1), and
 * the producer checks both make.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { Harness, OTHER, TP0, TP1, TXN } from './harness.js';

test('adding partitions opens the transaction (Ongoing, start time set) and later adds keep the start', () => {
  const h = new Harness();
  const p = h.init(0);
  assert.equal(h.add(10, p, [TP1]), ErrorCode.NONE);
  assert.equal(h.add(20, p, [TP0, TP1], { tv: 2 }), ErrorCode.NONE);
  const m = h.c.transaction(TXN)!;
  assert.equal(h.state(), 'Ongoing');
  assert.deepEqual(m.partitions, [TP0, TP1]);
  assert.equal(m.txnStartTimestamp, 10);
  assert.equal(m.txnLastUpdateTimestamp, 20);
  assert.equal(m.clientTransactionVersion, 2, 'a TV2 producer added through its partition leader');
});

test('partitions already in the transaction are answered without a record', () => {
  const h = new Harness();
  const p = h.init(0);
  h.add(1, p, [TP0, TP1]);
  const before = h.log.length;
  assert.equal(h.add(2, p, [TP1]), ErrorCode.NONE);
  assert.equal(h.log.length, before);
});

test('the producer checks: unknown id and wrong producer id are INVALID_PRODUCER_ID_MAPPING, an old epoch PRODUCER_FENCED', () => {
  const h = new Harness();
  const p = h.init(0);
  assert.equal(h.add(1, p, [TP0], { id: 'nobody' }), ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  assert.equal(h.add(1, { producerId: p.producerId + 1n, producerEpoch: 0 }, [TP0]), ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  h.init(1);
  assert.equal(h.add(2, p, [TP0]), ErrorCode.PRODUCER_FENCED);
});

test('while the transaction completes, adds answer CONCURRENT_TRANSACTIONS; after Complete* a new transaction starts', () => {
  const h = new Harness();
  const p = h.init(0);
  h.add(1, p, [TP0]);
  h.end(2, p, false);
  assert.equal(h.add(3, p, [TP1]), ErrorCode.CONCURRENT_TRANSACTIONS);
  h.markersWritten(4);
  assert.equal(h.add(5, p, [TP1]), ErrorCode.NONE);
  const m = h.c.transaction(TXN)!;
  assert.deepEqual(m.partitions, [TP1], 'the new transaction holds only its own partitions');
  assert.equal(m.txnStartTimestamp, 5);
});

test('verifyOnly: NONE for partitions in the open transaction, TRANSACTION_ABORTABLE for others, fencing errors for the wrong producer', () => {
  const h = new Harness();
  const p = h.init(0);
  h.add(1, p, [TP0]);
  const verify = (producer: { producerId: bigint; producerEpoch: number }, id = TXN) =>
    h.c.verifyPartitions({ transactionalId: id, ...producer, partitions: [TP0, OTHER] }).map((r) => r.errorCode);
  assert.deepEqual(verify(p), [ErrorCode.NONE, ErrorCode.TRANSACTION_ABORTABLE]);
  assert.deepEqual(verify({ producerId: p.producerId, producerEpoch: 5 }), [ErrorCode.PRODUCER_FENCED, ErrorCode.PRODUCER_FENCED]);
  assert.deepEqual(verify({ producerId: 7n, producerEpoch: 0 }), [
    ErrorCode.INVALID_PRODUCER_ID_MAPPING,
    ErrorCode.INVALID_PRODUCER_ID_MAPPING,
  ]);
  assert.deepEqual(verify(p, 'nobody'), [ErrorCode.INVALID_PRODUCER_ID_MAPPING, ErrorCode.INVALID_PRODUCER_ID_MAPPING]);
  const before = h.log.length;
  h.end(2, p, true);
  assert.equal(h.log.length, before + 1);
  assert.deepEqual(verify(p), [ErrorCode.CONCURRENT_TRANSACTIONS, ErrorCode.CONCURRENT_TRANSACTIONS]);
  h.markersWritten(3);
  assert.deepEqual(verify(p), [ErrorCode.TRANSACTION_ABORTABLE, ErrorCode.TRANSACTION_ABORTABLE], 'no transaction open');
});
