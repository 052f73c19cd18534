import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomFillSync } from 'node:crypto';
import { copyBytes } from '../../../src/native/index.js';

test('copies land whole at any alignment, into shared and into ordinary memory, large and small', () => {
  const source = randomFillSync(Buffer.alloc(70_000));
  for (const shared of [true, false]) {
    for (const [from, length, at] of [
      [0, 65_536, 0],
      [1, 65_536, 4],
      [4, 60_001, 3],
      [7, 100, 9],
      [0, 0, 70_000],
    ] as const) {
      const target = shared ? Buffer.from(new SharedArrayBuffer(70_000)) : Buffer.alloc(70_000);
      copyBytes(source.subarray(from, from + length), target, at);
      assert.ok(
        target.subarray(at, at + length).equals(source.subarray(from, from + length)),
        `${shared ? 'shared' : 'ordinary'} ${from}+${length}@${at}`,
      );
      assert.ok(target.subarray(0, at).every((b) => b === 0) && target.subarray(at + length).every((b) => b === 0), 'nothing else written');
    }
  }
});

test('a source that does not fit the target at that position is refused, whatever the path', () => {
  const source = Buffer.alloc(8192, 1);
  for (const target of [Buffer.from(new SharedArrayBuffer(10_000)), Buffer.alloc(10_000)]) {
    assert.throws(() => copyBytes(source, target, 1809), RangeError);
    assert.throws(() => copyBytes(source.subarray(0, 10), target.subarray(0, 5), 0), RangeError);
    copyBytes(source, target, 1808);
    assert.equal(target[9999], 1);
  }
});
