import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32cJs } from '@sluice/protocol/checksum/crc32c-js.js';

test('crc32cJs matches the CRC-32C check value and is incremental', () => {
  const data = Buffer.from('123456789');
  assert.equal(crc32cJs(data), 0xe3069283);
  assert.equal(crc32cJs(data.subarray(4), crc32cJs(data.subarray(0, 4))), 0xe3069283);
  assert.equal(crc32cJs(Buffer.alloc(32)), 0x8a9136aa);
});
