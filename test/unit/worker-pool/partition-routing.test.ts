import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fnv1a32, workerForPartition } from '../../../src/worker-pool/partition-routing.js';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

test('fnv1a32 matches the published FNV-1a test vectors', () => {
  assert.equal(fnv1a32(utf8('')), 0x811c9dc5);
  assert.equal(fnv1a32(utf8('a')), 0xe40c292c);
  assert.equal(fnv1a32(utf8('foobar')), 0xbf9cf968);
});

test('consecutive partitions of a topic go to consecutive workers, the same way every time', () => {
  const first = workerForPartition('orders', 0, 4);
  for (let partition = 0; partition < 12; partition++) {
    assert.equal(workerForPartition('orders', partition, 4), (first + partition) % 4);
  }
  assert.equal(workerForPartition('orders', 7, 4), workerForPartition('orders', 7, 4));
  assert.equal(workerForPartition('any', 123, 1), 0);
});

test('many topics spread over the workers', () => {
  const counts = [0, 0, 0];
  for (let topic = 0; topic < 3000; topic++) counts[workerForPartition(`topic-${topic}`, 0, 3)]!++;
  for (const count of counts) assert.ok(count > 800, `uneven spread: ${counts.join(', ')}`);
});

test('bad partitions and worker counts are refused', () => {
  assert.throws(() => workerForPartition('t', -1, 2), RangeError);
  assert.throws(() => workerForPartition('t', 0, 0), RangeError);
});
