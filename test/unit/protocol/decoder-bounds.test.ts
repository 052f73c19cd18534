// The caps Kafka 4.4's decoders put on array elements, tagged fields and compact string lengths,
// in the Reader and through the generated codecs: exactly at a cap is accepted, one over is a
// DecodeLimitError, and a claimed count is refused before anything is sized or looped by it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeRequestHeader } from '@sluice/protocol/envelope.js';
import { SIZE_PREFIX_BYTES } from '@sluice/protocol/framing.js';
import * as M from '@sluice/protocol/messages/index.js';
import { readArray } from '@sluice/protocol/primitives/codec-support.js';
import { DecodeError, DecodeLimitError, type DecodeBound } from '@sluice/protocol/primitives/decode-error.js';
import { MAX_ARRAY_ELEMENTS, MAX_STRING_BYTES, MAX_TAGGED_FIELDS, Reader } from '@sluice/protocol/primitives/reader.js';
import { Writer } from '@sluice/protocol/primitives/writer.js';
import { BOUND_FRAMES, hollowClassicMetadata } from '../../helpers/bound-frames.js';

function written(f: (w: Writer) => void): Buffer {
  const w = new Writer(64);
  f(w);
  return w.finish();
}

/** A count followed by `count` bytes of padding, so only the cap (not the bytes left) can refuse it. */
function countThenPadding(writeCount: (w: Writer) => void, count: number): Reader {
  const head = written(writeCount);
  return new Reader(Buffer.concat([head, Buffer.alloc(count)]));
}

function isLimit(bound: DecodeBound, claimed: number, limit: number): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof DecodeLimitError, `expected a DecodeLimitError, got ${String(err)}`);
    assert.ok(err instanceof DecodeError, 'a DecodeError, so the network layer closes the connection');
    assert.deepEqual([err.bound, err.claimed, err.limit], [bound, claimed, limit]);
    return true;
  };
}

test('array counts: exactly the cap is read, one over is refused though the bytes are there', () => {
  assert.equal(countThenPadding((w) => w.int32(MAX_ARRAY_ELEMENTS), MAX_ARRAY_ELEMENTS).arrayLength(), MAX_ARRAY_ELEMENTS);
  assert.equal(
    countThenPadding((w) => w.unsignedVarint(MAX_ARRAY_ELEMENTS + 1), MAX_ARRAY_ELEMENTS).compactArrayLength(),
    MAX_ARRAY_ELEMENTS,
  );
  const over = MAX_ARRAY_ELEMENTS + 1;
  assert.throws(() => countThenPadding((w) => w.int32(over), over).arrayLength(), isLimit('array elements', over, MAX_ARRAY_ELEMENTS));
  assert.throws(
    () => countThenPadding((w) => w.unsignedVarint(over + 1), over).compactArrayLength(),
    isLimit('array elements', over, MAX_ARRAY_ELEMENTS),
  );
  assert.equal(new Reader(written((w) => w.int32(-1))).arrayLength(), -1, 'null is still null');
  assert.equal(new Reader(written((w) => w.unsignedVarint(0))).compactArrayLength(), -1);
});

test('under the cap, a count larger than the bytes left is still refused (as a plain DecodeError)', () => {
  const r = new Reader(written((w) => w.int32(10)));
  assert.throws(
    () => r.arrayLength(),
    (err: unknown) => err instanceof DecodeError && !(err instanceof DecodeLimitError),
  );
});

test('tagged-field counts: exactly the cap is read, one over is refused though the bytes are there', () => {
  assert.equal(countThenPadding((w) => w.unsignedVarint(MAX_TAGGED_FIELDS), MAX_TAGGED_FIELDS).taggedFieldCount(), MAX_TAGGED_FIELDS);
  const over = MAX_TAGGED_FIELDS + 1;
  assert.throws(
    () => countThenPadding((w) => w.unsignedVarint(over), 2 * over).taggedFieldCount(),
    isLimit('tagged fields', over, MAX_TAGGED_FIELDS),
  );
  // Java reads 0xffffffff as -1 and refuses it as negative; here it is 2^32-1, over the cap.
  assert.throws(
    () => new Reader(written((w) => w.unsignedVarint(0xffffffff))).taggedFieldCount(),
    isLimit('tagged fields', 0xffffffff, MAX_TAGGED_FIELDS),
  );
});

test('a claim of 2,000,000,000 elements in a tiny buffer is refused at once, with no element read or allocated', () => {
  const heapBefore = process.memoryUsage().heapUsed;
  const started = process.hrtime.bigint();
  let elementsRead = 0;
  for (const flexible of [false, true]) {
    const r = new Reader(written((w) => (flexible ? w.unsignedVarint(2_000_000_001) : w.int32(2_000_000_000))));
    assert.throws(
      () => readArray(r, flexible, false, 'huge', () => ++elementsRead),
      isLimit('array elements', 2_000_000_000, MAX_ARRAY_ELEMENTS),
    );
  }
  const frame = hollowClassicMetadata(2_000_000_000).subarray(SIZE_PREFIX_BYTES);
  const { bodyOffset } = decodeRequestHeader(frame);
  assert.throws(
    () => M.MetadataRequest.read(new Reader(frame, bodyOffset), 1),
    isLimit('array elements', 2_000_000_000, MAX_ARRAY_ELEMENTS),
  );
  const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
  assert.equal(elementsRead, 0);
  assert.ok(elapsedMs < 1000, `took ${elapsedMs} ms`);
  // Sizing anything by the claim would take gigabytes; allow for ordinary garbage only.
  assert.ok(process.memoryUsage().heapUsed - heapBefore < 64 << 20, 'no allocation proportional to the claim');
});

test('compact strings in message fields: exactly 32767 bytes are read, one more is refused before decoding', () => {
  const at = written((w) => w.compactString('a'.repeat(MAX_STRING_BYTES)));
  assert.equal(new Reader(at).compactNullableString(MAX_STRING_BYTES)?.length, MAX_STRING_BYTES);
  const over = written((w) => w.compactString('a'.repeat(MAX_STRING_BYTES + 1)));
  assert.throws(
    () => new Reader(over).compactNullableString(MAX_STRING_BYTES),
    isLimit('string bytes', MAX_STRING_BYTES + 1, MAX_STRING_BYTES),
  );
  assert.equal(
    new Reader(over).compactNullableString()?.length,
    MAX_STRING_BYTES + 1,
    'uncapped when no cap is asked for (worker protocol)',
  );
});

/** Decodes a size-prefixed request frame's header and body with the generated codecs. */
function decodeFrame(sized: Buffer): unknown {
  const frame = sized.subarray(SIZE_PREFIX_BYTES);
  const { header, bodyOffset } = decodeRequestHeader(frame);
  const api = M.API_MESSAGES.find((a) => a.apiKey === header.requestApiKey);
  assert.ok(api !== undefined);
  const r = new Reader(frame, bodyOffset);
  const body = api.request.read(r, header.requestApiVersion);
  assert.equal(r.remaining(), 0, 'the whole body was read');
  return body;
}

for (const c of BOUND_FRAMES) {
  test(`generated codecs: ${c.name} is ${c.overLimit ? 'refused with a DecodeLimitError' : 'decoded'}`, () => {
    const frame = c.frame();
    if (c.overLimit) assert.throws(() => decodeFrame(frame), DecodeLimitError);
    else assert.doesNotThrow(() => decodeFrame(frame));
  });
}

test('generated codecs keep all 10,000 unknown tagged fields at the cap', () => {
  const tags = Array.from({ length: MAX_TAGGED_FIELDS }, (_, i) => ({ tag: 100 + i, data: Buffer.from([i & 0xff]) }));
  const bytes = written((w) => M.MetadataRequest.write(w, { topics: null, _unknownTaggedFields: tags }, 12));
  const read = M.MetadataRequest.read(new Reader(bytes), 12);
  assert.equal(read._unknownTaggedFields?.length, MAX_TAGGED_FIELDS);
  assert.deepEqual(read._unknownTaggedFields?.at(-1), tags.at(-1));
});
