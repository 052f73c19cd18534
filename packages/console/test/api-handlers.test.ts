import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { messages, MAX_RECORDS, overview, topic, topics } from '../src/api-handlers.js';
import { ApiError } from '../src/api-errors.js';
import { clusterMetadata, FakeReader, partition, records, topicMetadata } from './fake-reader.js';

const metadata = clusterMetadata([
  topicMetadata('orders', [partition(0, 1, [1, 2], [1, 2]), partition(1, 2, [2, 1], [2]), partition(2, -1, [1, 2], [])]),
  topicMetadata('__consumer_offsets', [partition(0, 1, [1], [1])], true),
  { ...topicMetadata('deleting', [partition(0, 1, [1], [1])]), errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED },
]);

test('the overview counts brokers, topics, partitions, under-replicated and offline partitions', async () => {
  const view = await overview(new FakeReader({ metadata }));
  assert.deepEqual(view, {
    clusterId: 'cluster-1',
    controllerId: 2,
    brokers: [
      { nodeId: 1, host: 'b1', port: 9092, rack: null },
      { nodeId: 2, host: 'b2', port: 9092, rack: 'r2' },
    ],
    topicCount: 2,
    partitionCount: 4,
    underReplicatedPartitions: 2,
    offlinePartitions: 1,
  });
});

test('topics lists the described topics by name with partitions and replication factor', async () => {
  assert.deepEqual(await topics(new FakeReader({ metadata })), [
    { name: '__consumer_offsets', internal: true, partitions: 1, replicationFactor: 1, underReplicatedPartitions: 0 },
    { name: 'orders', internal: false, partitions: 3, replicationFactor: 2, underReplicatedPartitions: 2 },
  ]);
});

test("a topic's view has each partition's replicas and offsets, asking offsets only of partitions with a leader", async () => {
  const reader = new FakeReader({
    metadata,
    records: new Map([[0, records(0, 3, 5n)]]),
    start: 5n,
    configs: [
      { name: 'retention.ms', value: '1000', readOnly: false, source: 1, isSensitive: false, synonyms: [] },
      { name: 'cleanup.policy', value: 'delete', readOnly: false, source: 5, isSensitive: false, synonyms: [] },
      { name: 'sasl.secret', value: 'hunter2', readOnly: false, source: 1, isSensitive: true, synonyms: [] },
    ],
  });
  const view = await topic(reader, 'orders');
  assert.deepEqual(view.partitions, [
    { partition: 0, leader: 1, replicas: [1, 2], isr: [1, 2], startOffset: '5', endOffset: '8' },
    { partition: 1, leader: 2, replicas: [2, 1], isr: [2], startOffset: '5', endOffset: '5' },
    { partition: 2, leader: -1, replicas: [1, 2], isr: [], startOffset: null, endOffset: null },
  ]);
  assert.deepEqual(
    reader.offsetCalls.map((c) => c.partitions),
    [
      [0, 1],
      [0, 1],
    ],
  );
  assert.deepEqual(view.configs, [
    { name: 'cleanup.policy', value: 'delete', source: 'DEFAULT_CONFIG', sensitive: false },
    { name: 'retention.ms', value: '1000', source: 'DYNAMIC_TOPIC_CONFIG', sensitive: false },
    { name: 'sasl.secret', value: null, source: 'DYNAMIC_TOPIC_CONFIG', sensitive: true },
  ]);
});

test('an unknown topic or partition is a 404', async () => {
  const reader = new FakeReader({ metadata });
  await assert.rejects(topic(reader, 'nope'), (err) => err instanceof ApiError && err.status === 404);
  await assert.rejects(messages(reader, 'orders', 7, 'end', 10), (err) => err instanceof ApiError && err.status === 404);
});

test('messages from the end are the last ones, and an offset outside the partition is brought inside it', async () => {
  const reader = new FakeReader({ metadata, records: new Map([[0, records(0, 30, 100n)]]), start: 100n });
  const last = await messages(reader, 'orders', 0, 'end', 10);
  assert.deepEqual(
    last.records.map((r) => r.offset),
    Array.from({ length: 10 }, (_, i) => String(120 + i)),
  );
  assert.deepEqual([last.fromOffset, last.nextOffset, last.startOffset, last.endOffset], ['120', '130', '100', '130']);

  const early = await messages(reader, 'orders', 0, { offset: 3n }, 5);
  assert.equal(early.fromOffset, '100');
  assert.equal(early.records.length, 5);
  const late = await messages(reader, 'orders', 0, { offset: 999n }, 5);
  assert.deepEqual([late.fromOffset, late.nextOffset, late.records.length], ['130', '130', 0]);

  await messages(reader, 'orders', 0, { offset: 100n }, 100_000);
  assert.equal(reader.reads.at(-1)?.limit, MAX_RECORDS);
});

test('record bytes become text: invalid UTF-8 replaced, null keys, values and header values kept null', async () => {
  const record = {
    partition: 0,
    offset: 0n,
    timestamp: -1n,
    key: null,
    value: Buffer.from([0x3c, 0x62, 0x3e, 0xff, 0xfe]),
    headers: [
      { key: 'trace', value: Buffer.from('<script>alert(1)</script>') },
      { key: 'empty', value: null },
    ],
  };
  const reader = new FakeReader({ metadata, records: new Map([[0, [record]]]) });
  const view = await messages(reader, 'orders', 0, { offset: 0n }, 10);
  assert.deepEqual(view.records, [
    {
      partition: 0,
      offset: '0',
      timestamp: '-1',
      key: null,
      value: '<b>\ufffd\ufffd',
      headers: [
        { key: 'trace', value: '<script>alert(1)</script>' },
        { key: 'empty', value: null },
      ],
    },
  ]);
});
