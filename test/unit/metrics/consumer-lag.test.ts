/** Lag as kafka-consumer-groups computes it: high watermark minus committed offset, per group and partition. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { consumerGroupLag, partitionsToMeasure, type GroupOffset } from '../../../src/common/metrics/consumer-lag.js';

const committed: GroupOffset[] = [
  { group: 'a', topic: 't', partition: 0, offset: 7n },
  { group: 'a', topic: 't', partition: 1, offset: 0n },
  { group: 'b', topic: 't', partition: 0, offset: 10n },
  { group: 'b', topic: 'u', partition: 2, offset: 5n },
  // Kafka's "no offset": no position, no lag, and no end to look up for it.
  { group: 'c', topic: 'v', partition: 0, offset: -1n },
];

test('each partition with a committed position is measured once', () => {
  assert.deepEqual(partitionsToMeasure(committed), [
    { topic: 't', partition: 0 },
    { topic: 't', partition: 1 },
    { topic: 'u', partition: 2 },
  ]);
  assert.deepEqual(partitionsToMeasure([]), []);
});

test('lag is the high watermark minus the committed offset; unknown without an end; negative past the end', () => {
  const ends = [
    { topic: 't', partition: 0, highWatermark: 10n },
    { topic: 't', partition: 1, highWatermark: 3n },
    // A group committed past the end (e.g. the topic was recreated): Kafka's tool shows it negative.
    { topic: 'u', partition: 2, highWatermark: 2n },
  ];
  assert.deepEqual(consumerGroupLag(committed, ends), [
    { group: 'a', topic: 't', partition: 0, committedOffset: 7n, endOffset: 10n, lag: 3n },
    { group: 'a', topic: 't', partition: 1, committedOffset: 0n, endOffset: 3n, lag: 3n },
    { group: 'b', topic: 't', partition: 0, committedOffset: 10n, endOffset: 10n, lag: 0n },
    { group: 'b', topic: 'u', partition: 2, committedOffset: 5n, endOffset: 2n, lag: -3n },
  ]);
  const withoutU = consumerGroupLag(committed, ends.slice(0, 2));
  assert.deepEqual(withoutU.at(-1), { group: 'b', topic: 'u', partition: 2, committedOffset: 5n, endOffset: null, lag: null });
});
