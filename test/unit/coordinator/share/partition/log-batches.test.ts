import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeRecordBatch } from '@sluice/protocol/records/index.js';
import { batchesIn, fileBatches } from '../../../../../src/coordinator/share/partition/log-batches.js';

function batchAt(baseOffset: bigint, values: string[], transactional = false): Buffer {
  return encodeRecordBatch({
    baseOffset,
    ...(transactional ? { producerId: 9n, producerEpoch: 0, isTransactional: true } : {}),
    records: values.map((v) => ({ key: null, value: Buffer.from(v), headers: [], timestamp: 0n })),
  });
}

test('the batches of a file range are read from their headers, a partial batch at the end left out', async () => {
  const first = batchAt(10n, ['a', 'b', 'c']);
  const second = batchAt(13n, ['d'], true);
  const bytes = Buffer.concat([Buffer.alloc(7), first, second, second.subarray(0, 30)]);
  const path = join(mkdtempSync(join(tmpdir(), 'sluice-share-')), 'segment');
  writeFileSync(path, bytes);
  const fd = openSync(path, 'r');
  try {
    let released = 0;
    const region = { fd, position: 7, byteLength: bytes.length - 7, release: () => released++ };
    const batches = await fileBatches.read(region);
    const expected = [
      { firstOffset: 10n, lastOffset: 12n, producerId: -1n, isTransactional: false, isControl: false, start: 0, end: first.length },
      {
        firstOffset: 13n,
        lastOffset: 13n,
        producerId: 9n,
        isTransactional: true,
        isControl: false,
        start: first.length,
        end: first.length + second.length,
      },
    ];
    assert.deepEqual(batches, expected);
    assert.deepEqual(batchesIn(bytes.subarray(7)), expected, 'in memory as in the file');
    const slice = fileBatches.slice(region, first.length, first.length + second.length);
    assert.deepEqual([slice.position, slice.byteLength], [7 + first.length, second.length]);
    slice.release();
    assert.equal(released, 1, 'a slice is released with its range');
  } finally {
    closeSync(fd);
  }
});

test('headers are read a chunk at a time across chunk boundaries, and the scan stops at the first batch at or past `before`', async () => {
  // 300 batches of ~1.1 KiB: the range spans two 256 KiB chunks, with a header cut by the boundary.
  const all = Array.from({ length: 300 }, (_, i) => batchAt(BigInt(i * 2), ['x'.repeat(1000), 'y']));
  const bytes = Buffer.concat(all);
  const path = join(mkdtempSync(join(tmpdir(), 'sluice-share-')), 'segment');
  writeFileSync(path, bytes);
  const fd = openSync(path, 'r');
  try {
    const region = { fd, position: 0, byteLength: bytes.length, release: () => undefined };
    const read = await fileBatches.read(region);
    assert.deepEqual(read, batchesIn(bytes), 'the same batches as from memory');
    assert.equal(read.length, 300);
    assert.deepEqual(
      read.map((b) => b.firstOffset),
      all.map((_, i) => BigInt(i * 2)),
    );
    const upTo = await fileBatches.read(region, 101n);
    assert.deepEqual(
      upTo.map((b) => b.firstOffset),
      Array.from({ length: 51 }, (_, i) => BigInt(i * 2)),
      'batches starting before offset 101 only',
    );
    assert.deepEqual(batchesIn(bytes, 101n), upTo, 'in memory as in the file');
  } finally {
    closeSync(fd);
  }
});
