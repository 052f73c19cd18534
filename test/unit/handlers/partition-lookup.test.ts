/**
 * mergePartitions, the shared view of a request's partitions as Kafka keys them by
 * topic-partition: each topic once, each partition once with its last copy and how many copies
 * there were, in the order of first appearance.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mergePartitions } from '../../../src/handlers/partition-lookup.js';

interface Topic {
  name: string;
  partitions: Array<{ index: number; value: string }>;
}

const merge = (topics: Topic[]) =>
  mergePartitions(
    topics,
    (t) => t.name,
    (t) => t.partitions,
    (p) => p.index,
  ).map(({ topic, partitions }) => ({
    name: topic.name,
    partitions: partitions.map(({ entry, copies }) => [entry.index, entry.value, copies]),
  }));

describe('mergePartitions', () => {
  test('a request without duplicates is unchanged, in its order', () => {
    assert.deepEqual(
      merge([
        {
          name: 'a',
          partitions: [
            { index: 2, value: 'x' },
            { index: 0, value: 'y' },
          ],
        },
        { name: 'b', partitions: [{ index: 0, value: 'z' }] },
      ]),
      [
        {
          name: 'a',
          partitions: [
            [2, 'x', 1],
            [0, 'y', 1],
          ],
        },
        { name: 'b', partitions: [[0, 'z', 1]] },
      ],
    );
  });

  test('a partition named twice is kept once, where it first appeared, with the last copy and the count', () => {
    assert.deepEqual(
      merge([
        {
          name: 'a',
          partitions: [
            { index: 0, value: 'first' },
            { index: 1, value: 'one' },
            { index: 0, value: 'last' },
          ],
        },
      ]),
      [
        {
          name: 'a',
          partitions: [
            [0, 'last', 2],
            [1, 'one', 1],
          ],
        },
      ],
    );
  });

  test('a topic named twice is merged into its first entry, its partitions counted across entries', () => {
    assert.deepEqual(
      merge([
        { name: 'a', partitions: [{ index: 0, value: 'p' }] },
        { name: 'b', partitions: [] },
        {
          name: 'a',
          partitions: [
            { index: 1, value: 'q' },
            { index: 0, value: 'r' },
          ],
        },
        { name: 'b', partitions: [{ index: 0, value: 's' }] },
      ]),
      [
        {
          name: 'a',
          partitions: [
            [0, 'r', 2],
            [1, 'q', 1],
          ],
        },
        { name: 'b', partitions: [[0, 's', 1]] },
      ],
    );
  });

  test('a topic with no partitions is still answered once', () => {
    assert.deepEqual(
      merge([
        { name: 'a', partitions: [] },
        { name: 'a', partitions: [] },
      ]),
      [{ name: 'a', partitions: [] }],
    );
  });
});
