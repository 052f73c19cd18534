import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Reader } from '../src/primitives/reader.js';
import { Writer, unsignedVarintSize } from '../src/primitives/writer.js';
import { DecodeError } from '../src/primitives/decode-error.js';

const bytes = (f: (w: Writer) => void): number[] => {
  const w = new Writer(1);
  f(w);
  return [...w.finish()];
};

test("varints use Kafka's zig-zag and base-128 layout", () => {
  assert.deepEqual(
    bytes((w) => w.unsignedVarint(300)),
    [0xac, 0x02],
  );
  assert.deepEqual(
    bytes((w) => w.varint(-1)),
    [0x01],
  );
  assert.deepEqual(
    bytes((w) => w.varint(1)),
    [0x02],
  );
  assert.deepEqual(
    bytes((w) => w.varint(-2147483648)),
    [0xff, 0xff, 0xff, 0xff, 0x0f],
  );
  assert.deepEqual(
    bytes((w) => w.varlong(-1n)),
    [0x01],
  );
  assert.deepEqual(
    bytes((w) => w.varlong(-(1n << 63n))),
    [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
  );
  assert.equal(unsignedVarintSize(300), 2);
});

test('varints round-trip over their whole range', () => {
  fc.assert(
    fc.property(fc.integer({ min: -2147483648, max: 2147483647 }), fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), (i, l) => {
      const w = new Writer(1);
      w.varint(i);
      w.varlong(l);
      w.unsignedVarint(i >>> 0);
      const r = new Reader(w.finish());
      assert.equal(r.varint(), i);
      assert.equal(r.varlong(), l);
      assert.equal(r.unsignedVarint(), i >>> 0);
      assert.equal(r.remaining(), 0);
    }),
  );
});

test('strings, bytes and uuids in classic and compact forms', () => {
  assert.deepEqual(
    bytes((w) => w.string('ab')),
    [0, 2, 0x61, 0x62],
  );
  assert.deepEqual(
    bytes((w) => w.nullableString(null)),
    [0xff, 0xff],
  );
  assert.deepEqual(
    bytes((w) => w.compactString('ab')),
    [3, 0x61, 0x62],
  );
  assert.deepEqual(
    bytes((w) => w.compactNullableString(null)),
    [0],
  );
  assert.deepEqual(
    bytes((w) => w.nullableBytes(null)),
    [0xff, 0xff, 0xff, 0xff],
  );
  const uuid = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex').toString('base64url');
  assert.deepEqual(
    bytes((w) => w.uuid(uuid)),
    [...Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex')],
  );
  assert.equal(new Reader(Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex')).uuid(), uuid);
  assert.throws(() => new Writer().uuid('not-a-uuid'));
});

test('lengths from the wire are checked against the bytes left before any allocation', () => {
  const hugeArray = Buffer.from([0x7f, 0xff, 0xff, 0xff, 0x00]);
  assert.throws(() => new Reader(hugeArray).arrayLength(), DecodeError);
  const hugeBytes = Buffer.from([0x7f, 0xff, 0xff, 0xff]);
  assert.throws(() => new Reader(hugeBytes).bytes(), DecodeError);
  const hugeCompact = Buffer.from([0xff, 0xff, 0xff, 0xff, 0x07]);
  assert.throws(() => new Reader(hugeCompact).compactString(), DecodeError);
  const endlessVarint = Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
  assert.throws(() => new Reader(endlessVarint).unsignedVarint(), DecodeError);
  assert.throws(() => new Reader(Buffer.from([0, 5, 0x61])).string(), DecodeError);
  assert.throws(() => new Reader(Buffer.from([0xff, 0xff])).string(), DecodeError);
});

test('bytes are returned as views on the frame, not copies', () => {
  const frame = Buffer.from([0, 0, 0, 3, 1, 2, 3]);
  const view = new Reader(frame).bytes();
  frame[4] = 9;
  assert.equal(view[0], 9);
});
