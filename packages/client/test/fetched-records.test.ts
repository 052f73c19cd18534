import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodePartitionRecords } from '../src/fetched-records.js';
import { compressRecords } from '../src/compression-codecs.js';
import { CompressionType, encodeEndTxnMarkerBatch, encodeRecordBatch } from '@sluice/protocol/records/index.js';

function batch(baseOffset: bigint, values: string[], compression: CompressionType = CompressionType.None): Buffer {
  return encodeRecordBatch(
    {
      baseOffset,
      compression,
      records: values.map((v, i) => ({
        key: i === 0 ? null : Buffer.from(`k${v}`),
        value: Buffer.from(v),
        timestamp: 1_700_000_000_000n + BigInt(i),
      })),
    },
    compressRecords,
  );
}

const values = (r: { value: Buffer | null }[]): (string | null)[] => r.map((x) => x.value?.toString() ?? null);

describe('decodePartitionRecords', () => {
  test('returns records from the fetch offset on, skipping the earlier records of the first batch', () => {
    const section = Buffer.concat([batch(10n, ['a', 'b', 'c']), batch(13n, ['d', 'e'], CompressionType.Gzip)]);
    const { records, nextOffset } = decodePartitionRecords(4, section, 11n);
    assert.deepEqual(values(records), ['b', 'c', 'd', 'e']);
    assert.deepEqual(
      records.map((r) => r.offset),
      [11n, 12n, 13n, 14n],
    );
    assert.equal(records[0]!.partition, 4);
    assert.equal(records[0]!.key?.toString(), 'kb');
    assert.equal(nextOffset, 15n);
  });

  test('a partial batch at the end is left for the next fetch', () => {
    const whole = batch(0n, ['x']);
    const next = batch(1n, ['y', 'z']);
    const { records, nextOffset } = decodePartitionRecords(0, Buffer.concat([whole, next.subarray(0, next.length - 3)]), 0n);
    assert.deepEqual(values(records), ['x']);
    assert.equal(nextOffset, 1n);
  });

  test('control batches yield no records but move the position past them', () => {
    const marker = encodeEndTxnMarkerBatch({
      baseOffset: 3n,
      producerId: 7n,
      producerEpoch: 0,
      coordinatorEpoch: 0,
      committed: true,
      timestamp: 0n,
    });
    const { records, nextOffset } = decodePartitionRecords(0, Buffer.concat([batch(0n, ['a', 'b', 'c']), marker]), 0n);
    assert.deepEqual(values(records), ['a', 'b', 'c']);
    assert.equal(nextOffset, 4n);
  });

  test('no records section keeps the position', () => {
    assert.deepEqual(decodePartitionRecords(0, null, 42n), { records: [], nextOffset: 42n });
    assert.deepEqual(decodePartitionRecords(0, Buffer.alloc(0), 42n), { records: [], nextOffset: 42n });
  });
});
