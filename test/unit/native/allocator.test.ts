/**
 * The broker's allocator setting: where the C library is glibc it takes the trim threshold, and
 * bad sizes are refused as every native argument is. Its effect (page faults and CPU per GB
 * produced) is measured in bench/, not asserted here: how often glibc trims depends on when the
 * collector frees buffers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BROKER_KEPT_FREE_HEAP_BYTES, keepFreedHeap } from '../../../src/native/allocator.js';
import { native } from '../../../src/native/binding.js';

const glibc = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime !== undefined;

test('the trim threshold is taken where the C library is glibc, and nowhere else claimed', () => {
  assert.equal(keepFreedHeap(), glibc);
  assert.equal(keepFreedHeap(BROKER_KEPT_FREE_HEAP_BYTES * 2), glibc);
});

test('a size that is not a non-negative 31-bit integer is refused', () => {
  assert.throws(() => native().keepFreedHeap(-1), TypeError);
  assert.throws(() => native().keepFreedHeap(1.5), TypeError);
  assert.throws(() => native().keepFreedHeap(2 ** 31), RangeError);
});
