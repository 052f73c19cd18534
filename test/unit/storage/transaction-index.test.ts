/**
 * `TransactionIndex` on its own: created lazily, entries in marker order, a torn tail ignored and
 * overwritten, truncation, and the search that tells when later segments cannot add more.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { offsetOf } from '@sluice/protocol/common/offsets.js';
import { TransactionIndex, TXN_INDEX_ENTRY_SIZE, type AbortedTxn } from '../../../src/storage/index/transaction-index.js';
import { tempDir } from './storage-fixtures.js';

const root = tempDir('txnindex');
process.on('exit', root.remove);
let n = 0;
const fresh = (): string => join(root.path, `${n++}.txnindex`);

const txn = (producerId: bigint, first: number, last: number, lso: number): AbortedTxn => ({
  producerId,
  firstOffset: offsetOf(first),
  lastOffset: offsetOf(last),
  lastStableOffset: offsetOf(lso),
});

test('no file until the first abort; entries must follow each other by marker offset', () => {
  const path = fresh();
  const index = new TransactionIndex(path);
  assert.deepEqual(index.entries, []);
  index.truncateTo(0);
  index.flush();
  assert.equal(existsSync(path), false);
  index.append(txn(1n, 0, 4, 5));
  assert.throws(() => index.append(txn(2n, 1, 4, 5)), RangeError);
  index.append(txn(2n, 1, 6, 7));
  assert.equal(statSync(path).size, 2 * TXN_INDEX_ENTRY_SIZE);
  assert.deepEqual(new TransactionIndex(path).entries, [txn(1n, 0, 4, 5), txn(2n, 1, 6, 7)]);
});

test('a torn last entry left by a crash is ignored and overwritten by the next append', () => {
  const path = fresh();
  new TransactionIndex(path).append(txn(1n, 0, 1, 2));
  appendFileSync(path, Buffer.alloc(10, 0xff));
  const reopened = new TransactionIndex(path);
  assert.deepEqual(reopened.entries, [txn(1n, 0, 1, 2)]);
  reopened.append(txn(3n, 2, 3, 4));
  assert.equal(statSync(path).size, 2 * TXN_INDEX_ENTRY_SIZE);
  assert.deepEqual(new TransactionIndex(path).entries, [txn(1n, 0, 1, 2), txn(3n, 2, 3, 4)]);
});

test('truncation keeps the transactions aborted before the offset, in memory and on disk', () => {
  const path = fresh();
  const index = new TransactionIndex(path);
  for (const t of [txn(1n, 0, 2, 3), txn(2n, 1, 5, 6), txn(3n, 6, 9, 10)]) index.append(t);
  index.truncateTo(5);
  assert.deepEqual(index.entries, [txn(1n, 0, 2, 3)]);
  assert.deepEqual(new TransactionIndex(path).entries, [txn(1n, 0, 2, 3)]);
  assert.equal(index.holdsMarker(offsetOf(2)), true);
  assert.equal(index.holdsMarker(offsetOf(5)), false);
});

test('collect: overlapping transactions, complete once an entry reached the upper bound with its LSO', () => {
  const index = new TransactionIndex(fresh());
  for (const t of [txn(1n, 0, 2, 1), txn(2n, 1, 5, 6), txn(3n, 6, 9, 10)]) index.append(t);
  assert.deepEqual(index.collect(3, 6), { aborted: [txn(2n, 1, 5, 6)], complete: true });
  assert.deepEqual(index.collect(0, 20), { aborted: [txn(1n, 0, 2, 1), txn(2n, 1, 5, 6), txn(3n, 6, 9, 10)], complete: false });
  assert.deepEqual(index.collect(10, 20), { aborted: [], complete: false });
});
