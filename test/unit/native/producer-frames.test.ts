/**
 * Record batches compressed by real producers (librdkafka via kcat, the Java client) and frames
 * from the lz4 and zstd command-line tools; see fixtures/capture-*.{mjs,sh} for how each was made.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CompressionCodec, compress, crc32c, decompress } from '../../../src/native/index.js';
import {
  BATCH_ATTRIBUTES_OFFSET,
  BATCH_COUNT_OFFSET,
  BATCH_RECORDS_OFFSET,
  readKeyValues,
  type KeyValue,
} from './records-section-helper.js';

// Compiled to dist/test/unit/native/; the fixtures stay in the source tree.
const FIXTURES = fileURLToPath(new URL('../../../../test/unit/native/fixtures/', import.meta.url));
const fixture = (name: string): Buffer => readFileSync(FIXTURES + name);
const expected = JSON.parse(fixture('fixture-records.json').toString('utf8')) as KeyValue[];
const LIMIT = 1 << 20;
const BATCH_CRC_OFFSET = 17;

const CODECS = [
  ['gzip', CompressionCodec.Gzip],
  ['snappy', CompressionCodec.Snappy],
  ['lz4', CompressionCodec.Lz4],
  ['zstd', CompressionCodec.Zstd],
] as const;

for (const producer of ['kcat', 'java'] as const) {
  for (const [name, codec] of CODECS) {
    test(`${producer} ${name} batch: CRC32C, codec and every record decode`, () => {
      const batch = fixture(`${producer}-${name}.batch`);
      assert.equal(crc32c(batch.subarray(BATCH_ATTRIBUTES_OFFSET)), batch.readUInt32BE(BATCH_CRC_OFFSET));
      assert.equal(batch.readInt16BE(BATCH_ATTRIBUTES_OFFSET) & 0x07, codec);
      const count = batch.readInt32BE(BATCH_COUNT_OFFSET);
      assert.equal(count, expected.length);
      const section = decompress(codec, batch.subarray(BATCH_RECORDS_OFFSET), LIMIT);
      assert.deepEqual(
        readKeyValues(section, count),
        expected.map(({ key, value }) => ({ key, value })),
      );
      // What we write reads back, and the bound holds for real frames too.
      assert.ok(decompress(codec, compress(codec, section), section.length).equals(section));
      assert.throws(() => decompress(codec, batch.subarray(BATCH_RECORDS_OFFSET), section.length - 1), { code: 2 });
    });
  }
}

test('the Java client writes xerial-framed snappy and librdkafka raw snappy', () => {
  const magic = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
  assert.ok(
    fixture('java-snappy.batch')
      .subarray(BATCH_RECORDS_OFFSET, BATCH_RECORDS_OFFSET + 8)
      .equals(magic),
  );
  assert.ok(
    !fixture('kcat-snappy.batch')
      .subarray(BATCH_RECORDS_OFFSET, BATCH_RECORDS_OFFSET + 8)
      .equals(magic),
  );
});

const cliInput = Buffer.concat(Array.from({ length: 20 }, () => fixture('fixture-records.json')));

test('lz4 frame with linked blocks, content size and content checksum (lz4 CLI)', () => {
  const frame = fixture('lz4cli-linked.lz4');
  assert.equal((frame[4]! >> 5) & 1, 0, 'blocks are linked');
  assert.equal((frame[4]! >> 2) & 1, 1, 'content checksum present');
  assert.ok(decompress(CompressionCodec.Lz4, frame, cliInput.length).equals(cliInput));
  const damaged = Buffer.from(frame);
  damaged[damaged.length - 1]! ^= 0x01; // the content checksum
  assert.throws(() => decompress(CompressionCodec.Lz4, damaged, cliInput.length), { code: 2 });
});

test('two zstd frames without content size, back to back (zstd CLI from a pipe)', () => {
  const frames = fixture('zstdcli-stream.zst');
  assert.equal(frames[4]! >> 6, 0, 'no content-size field');
  assert.ok(decompress(CompressionCodec.Zstd, frames, cliInput.length).equals(cliInput));
  assert.throws(() => decompress(CompressionCodec.Zstd, frames, cliInput.length - 1), { code: 2 });
});
