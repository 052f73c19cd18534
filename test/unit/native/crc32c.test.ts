import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { crc32c as nodeRsCrc32c } from '@node-rs/crc32';
import { native } from '../../../src/native/binding.js';
import { crc32cJs } from '@sluice/protocol/checksum/crc32c-js.js';
import { crc32c, crc32cImplementation } from '../../../src/native/index.js';

const CHECK = Buffer.from('123456789');
const CHECK_VALUE = 0xe3069283;

test('crc32c gives the CRC-32C check value on both paths', () => {
  assert.equal(crc32c(CHECK), CHECK_VALUE);
  assert.equal(native().crc32cPortable(CHECK), CHECK_VALUE);
  assert.equal(crc32c(new Uint8Array(0)), 0);
  assert.equal(crc32c(Buffer.alloc(32)), 0x8a9136aa);
  assert.equal(crc32c(Buffer.alloc(32, 0xff)), 0x62a8ab43);
});

test('the hardware path is chosen on a CPU with SSE4.2', async () => {
  const { readFile } = await import('node:fs/promises');
  const cpuinfo = await readFile('/proc/cpuinfo', 'utf8').catch(() => '');
  const expected = /\bsse4_2\b/.test(cpuinfo) ? 'sse4.2' : 'portable';
  assert.equal(crc32cImplementation(), expected);
});

test('crc32c is incremental across every split point', () => {
  const data = randomBytes(300);
  const whole = crc32c(data);
  for (let split = 0; split <= data.length; split++) {
    assert.equal(crc32c(data.subarray(split), crc32c(data.subarray(0, split))), whole);
    assert.equal(native().crc32cPortable(data.subarray(split), native().crc32cPortable(data.subarray(0, split))), whole);
  }
});

test('crc32c matches the TS reference and @node-rs/crc32 on random data, sizes and alignments', () => {
  const pool = randomBytes(1 << 20);
  // Around the 3 x 256 and 3 x 8192 byte thresholds of the interleaved hardware path.
  const sizes = [1, 7, 8, 9, 31, 32, 33, 63, 255, 767, 768, 769, 1024, 4099, 24575, 24576, 24577, 49157, 65536, 1 << 20];
  for (const size of sizes) {
    for (const start of [0, 1, 3, 5]) {
      const slice = pool.subarray(start, Math.min(pool.length, start + size));
      const seed = slice.length % 2 ? 0 : 0xdeadbeef;
      const expected = crc32cJs(slice, seed);
      assert.equal(crc32c(slice, seed), expected, `size ${size} offset ${start}`);
      assert.equal(native().crc32cPortable(slice, seed), expected, `portable size ${size} offset ${start}`);
      assert.equal(nodeRsCrc32c(slice, seed), expected, `@node-rs size ${size} offset ${start}`);
    }
  }
});

test('crc32c accepts any Uint8Array view, not only Buffers', () => {
  const bytes = new Uint8Array(new ArrayBuffer(20), 5, 9);
  bytes.set(CHECK);
  assert.equal(crc32c(bytes), CHECK_VALUE);
});

test('crc32c rejects bad arguments with a TypeError or RangeError', () => {
  const call = native().crc32c as unknown as (...args: unknown[]) => number;
  assert.throws(() => call('123456789'), TypeError);
  assert.throws(() => call(new Uint16Array(4)), TypeError);
  assert.throws(() => call(), TypeError);
  assert.throws(() => call(CHECK, -1), TypeError);
  assert.throws(() => call(CHECK, 1.5), TypeError);
  assert.throws(() => call(CHECK, 2 ** 32), RangeError);
  assert.throws(() => call(CHECK, '1'), TypeError);
});
