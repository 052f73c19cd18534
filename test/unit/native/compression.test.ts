import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import * as lz4napi from 'lz4-napi';
import * as snappyNpm from 'snappy';
import * as zstdNapi from 'zstd-napi';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import {
  CompressionCodec,
  codecAvailable,
  compress,
  compressAsync,
  decompress,
  decompressAsync,
  decompressTransient,
} from '../../../src/native/index.js';
import { jsonRecords } from './json-records-helper.js';

const CORRUPT_MESSAGE = 2;
const UNSUPPORTED_COMPRESSION_TYPE = 76;
const ALL = [CompressionCodec.None, CompressionCodec.Gzip, CompressionCodec.Snappy, CompressionCodec.Lz4, CompressionCodec.Zstd] as const;
const COMPRESSED = ALL.filter((codec) => codec !== CompressionCodec.None);
const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);

function isCorrupt(error: unknown): boolean {
  return error instanceof KafkaError && error.code === CORRUPT_MESSAGE;
}

test('every codec is available in this build', () => {
  for (const codec of ALL) assert.equal(codecAvailable(codec), true, `codec ${codec}`);
});

test('round trip of every codec on empty, tiny, incompressible and multi-block inputs', () => {
  const inputs = [Buffer.alloc(0), Buffer.from('x'), randomBytes(100_000), jsonRecords(600), Buffer.alloc(3 << 20, 7)];
  for (const codec of ALL) {
    for (const input of inputs) {
      const packed = compress(codec, input);
      const unpacked = decompress(codec, packed, input.length);
      assert.ok(unpacked.equals(input), `codec ${codec}, ${input.length} bytes`);
    }
  }
});

test('compression actually compresses', () => {
  const input = jsonRecords(200);
  for (const codec of COMPRESSED) assert.ok(compress(codec, input).length < input.length * 0.9, `codec ${codec}`);
});

test('snappy writes the xerial framing that the Java client reads: header, then 32 KiB blocks', () => {
  const input = jsonRecords(100); // ~100 KiB: four blocks
  const packed = compress(CompressionCodec.Snappy, input);
  assert.ok(packed.subarray(0, 8).equals(XERIAL_MAGIC));
  assert.equal(packed.readInt32BE(8), 1);
  assert.equal(packed.readInt32BE(12), 1);
  let offset = 16;
  const blocks: Buffer[] = [];
  while (offset < packed.length) {
    const length = packed.readInt32BE(offset);
    blocks.push(snappyNpm.uncompressSync(packed.subarray(offset + 4, offset + 4 + length)) as Buffer);
    offset += 4 + length;
  }
  assert.equal(offset, packed.length);
  const full = Math.floor(input.length / 32768);
  assert.deepEqual(
    blocks.map((b) => b.length),
    [...Array<number>(full).fill(32768), input.length - full * 32768],
  );
  assert.ok(Buffer.concat(blocks).equals(input));
});

test('snappy reads raw blocks (librdkafka) and concatenated xerial streams', () => {
  const a = jsonRecords(50);
  const b = jsonRecords(70);
  assert.ok(decompress(CompressionCodec.Snappy, snappyNpm.compressSync(a), a.length).equals(a));
  const concatenated = Buffer.concat([compress(CompressionCodec.Snappy, a), compress(CompressionCodec.Snappy, b)]);
  assert.ok(decompress(CompressionCodec.Snappy, concatenated, a.length + b.length).equals(Buffer.concat([a, b])));
});

test('cross-check against independent implementations in both directions', () => {
  const input = jsonRecords(300);
  const max = input.length;
  // Theirs -> ours
  assert.ok(decompress(CompressionCodec.Gzip, zlib.gzipSync(input, { level: 9 }), max).equals(input));
  assert.ok(decompress(CompressionCodec.Snappy, snappyNpm.compressSync(input), max).equals(input));
  assert.ok(decompress(CompressionCodec.Lz4, lz4napi.compressFrameSync(input), max).equals(input));
  assert.ok(decompress(CompressionCodec.Zstd, zstdNapi.compress(input), max).equals(input));
  // Ours -> theirs
  assert.ok(zlib.gunzipSync(compress(CompressionCodec.Gzip, input)).equals(input));
  assert.ok(lz4napi.decompressFrameSync(compress(CompressionCodec.Lz4, input)).equals(input));
  assert.ok(zstdNapi.decompress(compress(CompressionCodec.Zstd, input)).equals(input));
});

test('lz4 writes independent 64 KiB blocks without content checksum (what the Java reader handles)', () => {
  const frame = compress(CompressionCodec.Lz4, jsonRecords(400));
  assert.equal(frame.readUInt32LE(0), 0x184d2204);
  const flg = frame[4]!;
  assert.equal(flg >> 6, 1, 'version 01');
  assert.equal((flg >> 5) & 1, 1, 'block independence');
  assert.equal((flg >> 2) & 1, 0, 'no content checksum');
  assert.equal((frame[5]! >> 4) & 7, 4, 'block maximum size 64 KiB');
});

test('zstd decodes a frame without a content-size field, as streaming producers write', () => {
  const input = jsonRecords(300);
  const compressor = new zstdNapi.Compressor();
  compressor.setParameters({ compressionLevel: 3, contentSizeFlag: false });
  const frame = compressor.compress(input);
  assert.equal(frame[4]! >> 6, 0, 'frame header carries no content size');
  assert.ok(decompress(CompressionCodec.Zstd, frame, input.length).equals(input));
});

test('output beyond maxDecompressedBytes is CORRUPT_MESSAGE, exactly the limit is fine', () => {
  const bomb = Buffer.alloc(16 << 20); // 16 MiB of zeros compresses to a few KiB
  for (const codec of ALL) {
    const packed = compress(codec, bomb);
    assert.throws(() => decompress(codec, packed, bomb.length - 1), isCorrupt, `codec ${codec}`);
    assert.throws(() => decompress(codec, packed, 1000), isCorrupt, `codec ${codec}`);
    assert.equal(decompress(codec, packed, bomb.length).length, bomb.length);
  }
});

test('a snappy block that declares a huge size is refused before anything is allocated', () => {
  // Raw snappy starts with the uncompressed length as a varint: claim 4 GiB - 1.
  const liar = Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x00]);
  assert.throws(
    () => decompress(CompressionCodec.Snappy, liar, 1 << 20),
    (error: unknown) => isCorrupt(error) && /exceeds the limit/.test((error as Error).message),
  );
});

test('corrupt and truncated input is CORRUPT_MESSAGE for every codec', () => {
  const input = jsonRecords(100);
  for (const codec of COMPRESSED) {
    const packed = compress(codec, input);
    assert.throws(() => decompress(codec, packed.subarray(0, packed.length - 7), input.length), isCorrupt, `truncated, codec ${codec}`);
    assert.throws(() => decompress(codec, Buffer.from('definitely not compressed'), input.length), isCorrupt, `garbage, codec ${codec}`);
    assert.throws(() => decompress(codec, Buffer.alloc(0), input.length), isCorrupt, `empty, codec ${codec}`);
  }
});

test('async variants produce the same bytes and the same errors', async () => {
  const input = jsonRecords(300);
  for (const codec of ALL) {
    const packed = await compressAsync(codec, input);
    assert.ok((await decompressAsync(codec, packed, input.length)).equals(input), `codec ${codec}`);
    if (codec !== CompressionCodec.None) {
      assert.ok(packed.equals(compress(codec, input)) || codec === CompressionCodec.Gzip, `codec ${codec} deterministic`);
      await assert.rejects(decompressAsync(codec, Buffer.from('garbage!'), 100), isCorrupt);
    }
    await assert.rejects(decompressAsync(codec, packed, input.length - 1), isCorrupt);
  }
});

test('bad arguments are typed errors, unknown codecs UNSUPPORTED_COMPRESSION_TYPE', () => {
  const loose = decompress as unknown as (...args: unknown[]) => Buffer;
  assert.throws(
    () => loose(7, Buffer.alloc(1), 10),
    (e: unknown) => e instanceof KafkaError && e.code === UNSUPPORTED_COMPRESSION_TYPE,
  );
  assert.throws(() => loose(CompressionCodec.Zstd, 'text', 10), TypeError);
  assert.throws(() => loose(CompressionCodec.Zstd, Buffer.alloc(1), -1), RangeError);
  assert.throws(() => loose(CompressionCodec.Zstd, Buffer.alloc(1), 2 ** 32), RangeError);
  assert.throws(() => loose(CompressionCodec.Lz4, Buffer.alloc(1), 1.5), RangeError);
});

test('decompressTransient gives the bytes decompress gives, growing its memory for large outputs', () => {
  // Larger than the first scratch (512 KiB) and than what is kept afterwards (4 MiB).
  const inputs = [
    Buffer.alloc(0),
    Buffer.from('x'),
    randomBytes(100_000),
    jsonRecords(600),
    Buffer.alloc(3 << 20, 7),
    Buffer.alloc(9 << 20, 3),
  ];
  for (const codec of ALL) {
    for (const input of inputs) {
      const packed = compress(codec, input);
      assert.ok(decompressTransient(codec, packed, input.length).equals(input), `codec ${codec}, ${input.length} bytes`);
    }
  }
});

test('decompressTransient reuses its memory: the next call overwrites the previous result', () => {
  for (const codec of COMPRESSED) {
    const first = decompressTransient(codec, compress(codec, Buffer.alloc(1000, 1)), 1000);
    const second = decompressTransient(codec, compress(codec, Buffer.alloc(1000, 2)), 1000);
    assert.equal(first.buffer, second.buffer, `codec ${codec}`);
    assert.equal(first[0], 2, `codec ${codec}`);
  }
});

test('decompressTransient: output beyond the limit and corrupt input are CORRUPT_MESSAGE, exactly the limit is fine', () => {
  const bomb = Buffer.alloc(16 << 20);
  const input = jsonRecords(100);
  for (const codec of COMPRESSED) {
    const packed = compress(codec, bomb);
    assert.throws(() => decompressTransient(codec, packed, bomb.length - 1), isCorrupt, `codec ${codec}`);
    assert.throws(() => decompressTransient(codec, packed, 1000), isCorrupt, `codec ${codec}`);
    assert.equal(decompressTransient(codec, packed, bomb.length).length, bomb.length);
    const good = compress(codec, input);
    assert.throws(
      () => decompressTransient(codec, good.subarray(0, good.length - 7), input.length),
      isCorrupt,
      `truncated, codec ${codec}`,
    );
    assert.throws(
      () => decompressTransient(codec, Buffer.from('definitely not compressed'), input.length),
      isCorrupt,
      `garbage, codec ${codec}`,
    );
    assert.throws(() => decompressTransient(codec, Buffer.alloc(0), input.length), isCorrupt, `empty, codec ${codec}`);
  }
});

test('decompressTransient reads every gzip member and ignores what follows the last', () => {
  const one = jsonRecords(50);
  const two = jsonRecords(70);
  const members = Buffer.concat([zlib.gzipSync(one), zlib.gzipSync(two)]);
  const both = Buffer.concat([one, two]);
  assert.ok(decompressTransient(CompressionCodec.Gzip, members, both.length).equals(both));
  assert.ok(decompressTransient(CompressionCodec.Gzip, Buffer.concat([members, Buffer.from('trailing junk')]), both.length).equals(both));
  assert.throws(() => decompressTransient(CompressionCodec.Gzip, members, both.length - 1), isCorrupt);
});

test('gzip members are checked by their CRC-32 and length at every size, across the folding boundaries', () => {
  const data = randomBytes(4096);
  const sizes = [...Array.from({ length: 200 }, (_, n) => n), 255, 256, 257, 1023, 1024, 1025, 4095, 4096];
  for (const size of sizes) {
    for (const start of [0, 1, 7]) {
      const input = data.subarray(start, start + size);
      const member = zlib.gzipSync(input, { level: 1 });
      assert.ok(decompressTransient(CompressionCodec.Gzip, member, input.length).equals(input), `${size} bytes from ${start}`);
      if (size === 0) continue;
      const badCrc = Buffer.from(member);
      badCrc[badCrc.length - 8]! ^= 0x01;
      assert.throws(() => decompressTransient(CompressionCodec.Gzip, badCrc, input.length), /incorrect data check/, `CRC, ${size} bytes`);
    }
  }
  const long = Buffer.alloc(1 << 20, 'ab');
  assert.ok(decompressTransient(CompressionCodec.Gzip, zlib.gzipSync(long), long.length).equals(long));
});

test('a gzip member with a wrong length in its trailer is refused, in any member, as node:zlib refuses it', () => {
  const one = jsonRecords(50);
  const two = jsonRecords(70);
  const first = zlib.gzipSync(one);
  const second = Buffer.from(zlib.gzipSync(two));
  second[second.length - 4]! ^= 0x01;
  const members = Buffer.concat([first, second]);
  assert.throws(() => zlib.gunzipSync(members), /incorrect length check/);
  assert.throws(() => decompressTransient(CompressionCodec.Gzip, members, one.length + two.length), /incorrect length check/);
});

test('a gzip member whose header carries its own CRC (FHCRC) is checked whole, header included', () => {
  const input = jsonRecords(20);
  const plain = zlib.gzipSync(input);
  // RFC 1952: FHCRC adds the low 16 bits of the header's CRC-32 after the 10-byte header.
  const header = Buffer.from(plain.subarray(0, 10));
  header[3]! |= 0x02;
  const headerCrc = Buffer.alloc(2);
  headerCrc.writeUInt16LE(zlib.crc32(header) & 0xffff);
  const withHeaderCrc = Buffer.concat([header, headerCrc, plain.subarray(10)]);
  assert.ok(decompressTransient(CompressionCodec.Gzip, withHeaderCrc, input.length).equals(input));
  const badHeaderCrc = Buffer.from(withHeaderCrc);
  badHeaderCrc[10]! ^= 0x01;
  assert.throws(() => zlib.gunzipSync(badHeaderCrc), /header crc mismatch/);
  assert.throws(() => decompressTransient(CompressionCodec.Gzip, badHeaderCrc, input.length), /header crc mismatch/);
  const badDataCrc = Buffer.from(withHeaderCrc);
  badDataCrc[badDataCrc.length - 8]! ^= 0x01;
  assert.throws(() => decompressTransient(CompressionCodec.Gzip, badDataCrc, input.length), /incorrect data check/);
});
