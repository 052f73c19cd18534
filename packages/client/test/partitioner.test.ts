import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { murmur2, partitionForKey, StickyPartitioner } from '../src/partitioner.js';

// Computed with org.apache.kafka.common.utils.Utils.murmur2 from kafka-clients 4.4.0, and
// Utils.toPositive(murmur2(key)) % 7 for the partition.
const KAFKA_VECTORS: ReadonlyArray<readonly [string, number, number]> = [
  ['', 275646681, 2],
  ['a', -1563381124, 5],
  ['ab', 316155434, 0],
  ['abc', 479470107, 4],
  ['abcd', -1323649548, 5],
  ['21', -973932308, 3],
  ['foobar', -790332482, 0],
  ['a-little-bit-long-string', -985981536, 1],
  ['key-éè', -1581491222, 6],
  ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971, 3],
];

describe('partitioner', () => {
  test("murmur2 and the keyed partition match Kafka's Java client", () => {
    for (const [key, hash, partition] of KAFKA_VECTORS) {
      const bytes = Buffer.from(key, 'utf8');
      assert.equal(murmur2(bytes), hash, `murmur2(${JSON.stringify(key)})`);
      assert.equal(partitionForKey(bytes, 7), partition, `partition of ${JSON.stringify(key)}`);
    }
  });

  test('the sticky partitioner moves to the next partition with each batch', () => {
    const sticky = new StickyPartitioner(5);
    assert.deepEqual(
      [1, 2, 3, 4].map(() => sticky.nextBatchPartition(3)),
      [2, 0, 1, 2],
    );
  });
});
