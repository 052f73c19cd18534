/**
 * `__transaction_state` records: the format Kafka 4.x writes (key type 0, value version 1, no
 * partition list for Empty, tombstones), and replay: a fresh coordinator fed the records holds the
 * same state as the one that wrote them — all but the last producer epoch, which Kafka does not
 * store either.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TransactionLogValue } from '@sluice/protocol/messages/coordinator/transaction-log.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import { readVersioned, writeVersioned } from '@sluice/protocol/primitives/versioned-schema.js';
import { decodeTransactionRecord, transactionRecord } from '../../../../src/coordinator/transaction/records.js';
import { TransactionCoordinator } from '../../../../src/coordinator/transaction/transaction-coordinator.js';
import type { TransactionMetadata } from '../../../../src/coordinator/transaction/transaction-metadata.js';
import { Harness, OTHER, TP0, TP1 } from './harness.js';

function durable(m: TransactionMetadata): Omit<TransactionMetadata, 'lastProducerEpoch'> {
  const { lastProducerEpoch: _inMemoryOnly, ...rest } = m;
  return rest;
}

function sortedById(ms: TransactionMetadata[]) {
  return [...ms].sort((a, b) => (a.transactionalId < b.transactionalId ? -1 : 1)).map(durable);
}

test('replaying the records into a fresh coordinator gives the same transactions', () => {
  const h = new Harness({ transactionalIdExpirationMs: 50_000, removeExpiredTransactionalIdsIntervalMs: 1000 });
  // a: TV1 committed; b: TV2 ended and open again; c: left in PrepareAbort; d: fenced by a new InitProducerId; e: expires.
  const a = h.init(0, { id: 'a' });
  h.add(1, a, [TP0, OTHER], { id: 'a' });
  h.end(2, a, true, { id: 'a' });
  h.markersWritten(3);
  const b = h.init(0, { id: 'b' });
  h.add(1, b, [TP1], { id: 'b', tv: 2 });
  const b2 = h.end(2, b, true, { id: 'b', tv: 2 });
  h.markersWritten(3);
  h.add(4, b2, [TP0], { id: 'b', tv: 2 });
  const c = h.init(0, { id: 'c' });
  h.add(1, c, [TP1], { id: 'c' });
  h.end(2, c, false, { id: 'c' });
  const d = h.init(0, { id: 'd' });
  h.add(1, d, [TP0], { id: 'd' });
  h.init(2, { id: 'd' });
  h.init(100_000, { id: 'e' });
  h.keep(h.c.tick(1000));
  h.keep(h.c.tick(200_000));
  assert.equal(h.c.transaction('e'), undefined, 'e expired');

  const fresh = new TransactionCoordinator();
  for (const r of h.log) fresh.replay(r.key, r.value);
  assert.deepEqual(sortedById(fresh.transactions()), sortedById(h.c.transactions()));
  assert.ok(fresh.transactions().every((m) => m.lastProducerEpoch === -1));
});

test('records are Kafka 4.x: key type 0 + transactional id, value version 1 with tagged previous/next producer ids', () => {
  const h = new Harness();
  const p = h.init(7);
  const empty = h.log.at(-1)!;
  assert.equal(new Reader(empty.key).int16(), 0);
  const { version, data } = readVersioned(TransactionLogValue, empty.value!);
  assert.equal(version, 1);
  assert.equal(data.transactionPartitions, null, 'Empty has no partition list');
  assert.equal(data.transactionStatus, 0);
  assert.equal(data.transactionLastUpdateTimestampMs, 7n);
  h.add(8, p, [TP1, TP0, OTHER], { tv: 2 });
  const ongoing = readVersioned(TransactionLogValue, h.log.at(-1)!.value!).data;
  assert.equal(ongoing.transactionStatus, 1);
  assert.deepEqual(
    ongoing.transactionPartitions?.map((g) => [g.topic, g.partitionIds]),
    [
      ['t', [0, 1]],
      ['u', [3]],
    ],
  );
  assert.equal(ongoing.clientTransactionVersion, 2);
  assert.equal(ongoing.previousProducerId, p.producerId);
});

test('a version 0 value (older Kafka) and a record of another type are read; a tombstone removes the id', () => {
  const base = new Harness();
  base.init(0);
  const record = base.log[0]!;
  const v0 = writeVersioned(TransactionLogValue, 0, {
    ...readVersioned(TransactionLogValue, record.value!).data,
    previousProducerId: -1n,
    nextProducerId: -1n,
    nextProducerEpoch: -1,
    clientTransactionVersion: 0,
    transactionPartitions: null,
  });
  const decoded = decodeTransactionRecord(record.key, v0);
  assert.equal(decoded.type, 'transaction');
  const other = Buffer.from([0, 9, 1, 2]);
  assert.deepEqual(decodeTransactionRecord(other, null), { type: 'other', recordType: 9 });
  const c = new TransactionCoordinator();
  c.replay(record.key, record.value);
  c.replay(other, null);
  assert.equal(c.transactions().length, 1);
  c.replay(record.key, null);
  assert.equal(c.transactions().length, 0);
});

test('a record with an unknown state stops the load', () => {
  const h = new Harness();
  h.init(0);
  const m = { ...h.c.transaction('txn-1')!, state: 9 } as unknown as TransactionMetadata;
  const r = transactionRecord(m);
  assert.throws(() => new TransactionCoordinator().replay(r.key, r.value), /unknown transaction state id 9/);
});
