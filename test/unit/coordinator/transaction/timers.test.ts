/**
 * The coordinator's timers: transactions open past their timeout are aborted (fenced with an epoch
 * bump first) every abort interval; idle ids past transactional.id.expiration.ms are tombstoned
 * every removal interval; after a load, transactions found in Prepare* get their marker jobs again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { TransactionCoordinator } from '../../../../src/coordinator/transaction/transaction-coordinator.js';
import { Harness, TP0, TXN } from './harness.js';

test('a transaction open longer than its timeout is aborted at the next sweep, with the epoch bumped', () => {
  const h = new Harness({ abortTimedOutTransactionsIntervalMs: 10_000, transactionVersionLevel: () => 0 });
  const p = h.init(0, { timeoutMs: 15_000 });
  h.add(1000, p, [TP0]);
  assert.equal(h.c.nextDeadline(), 10_000);
  h.keep(h.c.tick(10_000));
  assert.equal(h.state(), 'Ongoing', 'not timed out yet');
  assert.equal(h.c.nextDeadline(), 20_000);
  h.keep(h.c.tick(20_000));
  assert.equal(h.state(), 'PrepareAbort');
  const job = h.jobs.at(-1)!;
  assert.deepEqual(
    { commit: job.commit, epoch: job.producerEpoch, partitions: job.partitions },
    { commit: false, epoch: 1, partitions: [TP0] },
  );
  assert.equal(h.add(20_001, p, [TP0]), ErrorCode.CONCURRENT_TRANSACTIONS);
  h.markersWritten(20_002);
  assert.equal(h.end(20_003, p, false).errorCode, ErrorCode.PRODUCER_FENCED, 'the timed-out producer is fenced');
});

test('with transaction.version 2 a timeout abort ends with one more bump', () => {
  const h = new Harness({ abortTimedOutTransactionsIntervalMs: 10_000, transactionVersionLevel: () => 2 });
  const p = h.init(0, { timeoutMs: 5_000 });
  h.add(0, p, [TP0], { tv: 2 });
  h.keep(h.c.tick(10_000));
  assert.deepEqual({ epoch: h.jobs.at(-1)!.producerEpoch, tv: h.jobs.at(-1)!.transactionVersion }, { epoch: 2, tv: 2 });
});

test('the transaction.version level is read at each abort: an UpdateFeatures downgrade to 1 ends the bump at once', () => {
  let level = 2;
  const h = new Harness({ abortTimedOutTransactionsIntervalMs: 10_000, transactionVersionLevel: () => level });
  const p = h.init(0, { timeoutMs: 5_000 });
  h.add(0, p, [TP0], { tv: 2 });
  level = 1;
  h.keep(h.c.tick(10_000));
  assert.deepEqual({ epoch: h.jobs.at(-1)!.producerEpoch, tv: h.jobs.at(-1)!.transactionVersion }, { epoch: 1, tv: 0 });
});

test('idle ids past transactional.id.expiration.ms are tombstoned; open ones stay', () => {
  const h = new Harness({
    transactionalIdExpirationMs: 100_000,
    removeExpiredTransactionalIdsIntervalMs: 60_000,
    abortTimedOutTransactionsIntervalMs: 1e9,
  });
  h.init(0, { id: 'idle' });
  const open = h.init(0, { id: 'open', timeoutMs: 900_000 });
  h.add(0, open, [TP0], { id: 'open' });
  h.init(50_000, { id: 'recent' });
  h.keep(h.c.tick(60_000));
  assert.equal(h.c.transactions().length, 3);
  h.keep(h.c.tick(120_000));
  assert.equal(h.c.transaction('idle'), undefined);
  assert.ok(h.c.transaction('open') !== undefined);
  assert.ok(h.c.transaction('recent') !== undefined);
  const tombstone = h.log.at(-1)!;
  assert.equal(tombstone.value, null);
  assert.equal(h.c.nextDeadline(), 180_000);
});

test('after a load, transactions found in Prepare* hand out their marker jobs on the first tick', () => {
  const h = new Harness();
  const p = h.init(0);
  h.add(1, p, [TP0]);
  h.end(2, p, true);
  const loaded = new TransactionCoordinator();
  for (const r of h.log) loaded.replay(r.key, r.value);
  loaded.loaded(100);
  assert.equal(loaded.nextDeadline(), 100);
  const tick = loaded.tick(100);
  assert.deepEqual(tick.released, [h.jobs.at(-1)]);
  assert.deepEqual(tick.records, []);
  assert.deepEqual(loaded.tick(101).released, [], 'only once');
  assert.equal(loaded.transaction(TXN)!.producerId, p.producerId);
});

test('unload forgets everything and stops the timers', () => {
  const h = new Harness();
  h.init(0);
  assert.deepEqual(h.c.unload(), []);
  assert.equal(h.c.transactions().length, 0);
  assert.equal(h.c.nextDeadline(), null);
});
