/**
 * The native "every record passes" loop against the TypeScript record walk, which stays the
 * reference: the loop may refuse what the walk accepts, never accept what the walk refuses.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordsPass } from '../../../src/native/index.js';
import { RECORDS_OFFSET } from '@sluice/protocol/records/batch-layout.js';
import { encodeRecordBatch, readBatchHeader, readRecords, type RecordInput } from '@sluice/protocol/records/index.js';

const NO_WINDOW = [-Infinity, Infinity] as const;

function encode(records: readonly RecordInput[]): { batch: Buffer; section: Buffer; count: number } {
  const batch = encodeRecordBatch({ records });
  return { batch, section: batch.subarray(RECORDS_OFFSET), count: records.length };
}

const plain = (n: number, base = 1_700_000_000_000n): RecordInput[] =>
  Array.from({ length: n }, (_, i) => ({ key: Buffer.from(`key-${i}`), value: Buffer.alloc(100, i), timestamp: base + BigInt(i) }));

test('well-formed records pass: keys, null keys and values, headers, one record or many', () => {
  const shapes: RecordInput[][] = [
    plain(1),
    plain(500),
    [{ key: null, value: null, timestamp: 5n }],
    [
      {
        key: Buffer.alloc(0),
        value: Buffer.alloc(300_000, 1),
        timestamp: 5n,
        headers: [
          { key: 'h', value: null },
          { key: 'trace', value: Buffer.from('x') },
        ],
      },
      { key: null, value: Buffer.from('v'), timestamp: 5n },
    ],
  ];
  for (const records of shapes) {
    const { section, count } = encode(records);
    assert.equal(recordsPass(section, count, ...NO_WINDOW, false), true);
  }
});

test('a record without a key fails where keys are required; offset deltas that skip fail', () => {
  const keyless = encode([...plain(3), { key: null, value: Buffer.from('v'), timestamp: 1n }]);
  assert.equal(recordsPass(keyless.section, keyless.count, ...NO_WINDOW, false), true);
  assert.equal(recordsPass(keyless.section, keyless.count, ...NO_WINDOW, true), false);
  const gap = encode(plain(3).map((r, i) => ({ ...r, offsetDelta: i === 0 ? 0 : i + 1 })));
  assert.equal(recordsPass(gap.section, gap.count, ...NO_WINDOW, false), false);
});

test('timestamp deltas outside the window, or too large to compare exactly as doubles, fail', () => {
  const { section, count } = encode(plain(10, 1_000n));
  assert.equal(recordsPass(section, count, 0, 9, false), true);
  assert.equal(recordsPass(section, count, 0, 8, false), false);
  assert.equal(recordsPass(section, count, 1, 9, false), false);
  const far = encode([
    { key: null, value: null, timestamp: 0n },
    { key: null, value: null, timestamp: 2n ** 60n },
  ]);
  assert.equal(recordsPass(far.section, far.count, ...NO_WINDOW, false), false);
});

test('the count must match the records exactly, and nothing may follow them', () => {
  const { section, count } = encode(plain(4));
  assert.equal(recordsPass(section, count - 1, ...NO_WINDOW, false), false);
  assert.equal(recordsPass(section, count + 1, ...NO_WINDOW, false), false);
  assert.equal(recordsPass(Buffer.concat([section, Buffer.from([0])]), count, ...NO_WINDOW, false), false);
  assert.equal(recordsPass(section.subarray(0, section.length - 1), count, ...NO_WINDOW, false), false);
  assert.equal(recordsPass(Buffer.alloc(0), 0, ...NO_WINDOW, false), true);
});

test('over thousands of corrupted sections, whatever passes natively is read by the TypeScript walk with the same verdict', () => {
  let seed = 19;
  const random = (n: number): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed % n;
  };
  const original = encode([
    ...plain(6),
    { key: null, value: Buffer.from('tail'), timestamp: 3n, headers: [{ key: 'k', value: Buffer.from('v') }] },
  ]).batch;
  let passed = 0;
  for (let trial = 0; trial < 5000; trial++) {
    const batch = Buffer.from(original);
    for (let flips = 1 + random(3); flips > 0; flips--) batch[RECORDS_OFFSET + random(batch.length - RECORDS_OFFSET)] = random(256);
    const header = readBatchHeader(batch, 0)!;
    if (!recordsPass(batch.subarray(RECORDS_OFFSET), header.recordsCount, ...NO_WINDOW, false)) continue;
    passed++;
    const records = [...readRecords(batch, header)];
    assert.equal(records.length, header.recordsCount, `trial ${trial}`);
    records.forEach((r, i) => assert.equal(r.offset, header.baseOffset + BigInt(i), `trial ${trial} record ${i}`));
  }
  assert.ok(passed > 0, 'some corruptions (inside values) leave the records well formed');
});
