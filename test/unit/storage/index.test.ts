import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { OffsetIndex } from '../../../src/storage/index/offset-index.js';
import { TimeIndex } from '../../../src/storage/index/time-index.js';
import { CorruptIndexError } from '../../../src/storage/storage-error.js';
import type { FilePosition } from '../../../src/storage/offsets.js';
import type { Offset } from '@sluice/protocol/common/offsets.js';
import { tempDir } from './storage-fixtures.js';

const dir = tempDir('index');
process.on('exit', dir.remove);
let n = 0;
const path = (ext: string): string => join(dir.path, `${String(n++).padStart(20, '0')}${ext}`);
const off = (x: number): Offset => x as Offset;
const pos = (x: number): FilePosition => x as FilePosition;

test('offset index: preallocated, Kafka byte layout, trimmed on close, reopened read-only from its length', () => {
  const p = path('.index');
  const index = new OffsetIndex(p, off(100), 1024, true);
  assert.equal(index.entries, 0);
  assert.equal(statSync(p).size, 1024);
  assert.equal(index.maxEntries, 128);
  index.append(off(105), pos(4100));
  index.append(off(110), pos(8300));
  assert.throws(() => index.append(off(110), pos(9000)), /not above/);
  index.close();
  const bytes = readFileSync(p);
  assert.equal(bytes.length, 16);
  assert.deepEqual([bytes.readUInt32BE(0), bytes.readUInt32BE(4), bytes.readUInt32BE(8), bytes.readUInt32BE(12)], [5, 4100, 10, 8300]);
  const reopened = new OffsetIndex(p, off(100), 1024, false);
  assert.equal(reopened.entries, 2);
  reopened.sanityCheck(10_000);
  assert.deepEqual(reopened.lookup(off(99)), { offset: 100, position: 0 });
  assert.deepEqual(reopened.lookup(off(107)), { offset: 105, position: 4100 });
  assert.deepEqual(reopened.lookup(off(1000)), { offset: 110, position: 8300 });
  reopened.close();
});

test('offset index lookup equals a linear search for any entries and target, warm section included', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.integer({ min: 0, max: 100_000 }), { maxLength: 3000 }),
      fc.array(fc.integer({ min: -5, max: 100_010 }), { minLength: 1, maxLength: 20 }),
      (raw, targets) => {
        const offsets = [...raw].sort((a, b) => a - b);
        const index = new OffsetIndex(path('.index'), off(1000), 64 * 1024, true);
        offsets.forEach((o, i) => index.append(off(1000 + o), pos(i * 10 + 1)));
        for (const t of targets) {
          let expected = { offset: 1000, position: 0 };
          offsets.forEach((o, i) => {
            if (1000 + o <= 1000 + t) expected = { offset: 1000 + o, position: i * 10 + 1 };
          });
          assert.deepEqual(index.lookup(off(1000 + t)), expected);
        }
        index.close();
      },
    ),
    { numRuns: 60 },
  );
});

test('offset index truncateTo drops entries at and above the offset; isFull at capacity', () => {
  const index = new OffsetIndex(path('.index'), off(0), 32, true);
  for (let i = 1; i <= 4; i++) index.append(off(i * 10), pos(i * 100));
  assert.equal(index.isFull, true);
  assert.throws(() => index.append(off(50), pos(500)), /full/);
  index.truncateTo(off(30));
  assert.equal(index.entries, 2);
  index.truncateTo(off(25));
  assert.equal(index.entries, 2);
  index.truncateTo(off(0));
  assert.equal(index.entries, 0);
  index.close();
});

test('offset index sanity check refuses partial entries, disorder, positions past the log', () => {
  const ragged = path('.index');
  writeFileSync(ragged, Buffer.alloc(12));
  assert.throws(() => new OffsetIndex(ragged, off(0), 1024, false).sanityCheck(100), CorruptIndexError);
  const unordered = path('.index');
  const b = Buffer.alloc(16);
  b.writeUInt32BE(9, 0);
  b.writeUInt32BE(100, 4);
  b.writeUInt32BE(3, 8);
  b.writeUInt32BE(200, 12);
  writeFileSync(unordered, b);
  assert.throws(() => new OffsetIndex(unordered, off(0), 1024, false).sanityCheck(1000), CorruptIndexError);
  const beyond = path('.index');
  writeFileSync(beyond, b.subarray(0, 8));
  assert.throws(() => new OffsetIndex(beyond, off(0), 1024, false).sanityCheck(50), CorruptIndexError);
  new OffsetIndex(beyond, off(0), 1024, false).sanityCheck(101);
});

test('time index: 12-byte entries, appends only growing timestamps, lookup, final entry in the reserved slot', () => {
  const p = path('.timeindex');
  const index = new TimeIndex(p, off(50), 36, true);
  assert.equal(index.maxEntries, 3);
  index.maybeAppend(1000, off(52));
  index.maybeAppend(1000, off(53));
  index.maybeAppend(900, off(54));
  assert.equal(index.entries, 1);
  index.maybeAppend(2000, off(60));
  assert.equal(index.isFull, true);
  assert.throws(() => index.maybeAppend(3000, off(70)), /full/);
  index.maybeAppend(3000, off(70), true);
  assert.equal(index.entries, 3);
  assert.deepEqual(index.lookup(999), { timestamp: -1, offset: 50 });
  assert.deepEqual(index.lookup(1500), { timestamp: 1000, offset: 52 });
  assert.deepEqual(index.lookup(5000), { timestamp: 3000, offset: 70 });
  index.truncateTo(off(60));
  assert.equal(index.entries, 1);
  index.close();
  const bytes = readFileSync(p);
  assert.equal(bytes.length, 12);
  assert.equal(bytes.readBigInt64BE(0), 1000n);
  assert.equal(bytes.readUInt32BE(8), 2);
  new TimeIndex(p, off(50), 36, false).sanityCheck();
});

test('time index handles timestamps above 2^32 and negative ones exactly', () => {
  const index = new TimeIndex(path('.timeindex'), off(0), 1200, true);
  const stamps = [-5, 0, 2 ** 32 - 1, 2 ** 32, 1_700_000_000_123, 2 ** 52];
  stamps.forEach((t, i) => index.maybeAppend(t, off(i)));
  stamps.forEach((t, i) => assert.deepEqual(index.lookup(t), { timestamp: t, offset: i }));
  index.sanityCheck();
  index.close();
});
