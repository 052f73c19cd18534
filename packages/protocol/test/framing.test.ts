import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FrameDecoder, FrameSizeError } from '../src/framing.js';
import { decodeRequestHeader, encodeRequest, requestHeaderVersion, responseHeaderVersion } from '../src/envelope.js';

function framed(payload: Buffer): Buffer {
  const prefix = Buffer.alloc(4);
  prefix.writeInt32BE(payload.length);
  return Buffer.concat([prefix, payload]);
}

test('frames are recovered whatever the chunk boundaries', () => {
  fc.assert(
    fc.property(
      fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 8 }),
      fc.array(fc.integer({ min: 1, max: 17 }), { minLength: 1, maxLength: 10 }),
      (payloads, cuts) => {
        const stream = Buffer.concat(payloads.map((p) => framed(Buffer.from(p))));
        const decoder = new FrameDecoder(1024);
        const got: Buffer[] = [];
        let pos = 0;
        let i = 0;
        while (pos < stream.length) {
          const n = cuts[i++ % cuts.length]!;
          decoder.push(stream.subarray(pos, pos + n), (f) => got.push(Buffer.from(f)));
          pos += n;
        }
        assert.deepEqual(
          got.map((b) => [...b]),
          payloads.map((p) => [...p]),
        );
        assert.equal(decoder.hasPartialFrame, false);
      },
    ),
  );
});

test('an oversized or negative size is refused from the prefix alone', () => {
  const decoder = new FrameDecoder(100);
  assert.throws(() => decoder.push(Buffer.from([0x7f, 0xff, 0xff, 0xff]), () => undefined), FrameSizeError);
  const split = new FrameDecoder(100);
  split.push(Buffer.from([0, 0]), () => undefined);
  assert.throws(() => split.push(Buffer.from([0, 101]), () => undefined), FrameSizeError);
  assert.throws(() => new FrameDecoder(100).push(Buffer.from([0xff, 0xff, 0xff, 0xff]), () => undefined), FrameSizeError);
});

test('a frame inside one chunk is a view, not a copy', () => {
  const stream = framed(Buffer.from([1, 2, 3]));
  let frame: Buffer | null = null;
  new FrameDecoder(10).push(stream, (f) => (frame = f));
  assert.equal(frame!.buffer, stream.buffer);
});

test('header versions follow the API and version, with ApiVersions responses always v0', () => {
  assert.equal(requestHeaderVersion(0, 8), 1);
  assert.equal(requestHeaderVersion(0, 9), 2);
  assert.equal(requestHeaderVersion(18, 2), 1);
  assert.equal(requestHeaderVersion(18, 3), 2);
  assert.equal(requestHeaderVersion(18, 77), 2, 'a future ApiVersions version is flexible too');
  assert.equal(responseHeaderVersion(18, 4), 0);
  assert.equal(responseHeaderVersion(3, 9), 1);
  assert.equal(responseHeaderVersion(3, 8), 0);
});

test('request headers round-trip, including the non-compact client id in v2', () => {
  const frame = encodeRequest(3, 12, 77, 'my-client', (w) => w.int8(5)).subarray(4);
  const { header, headerVersion, bodyOffset } = decodeRequestHeader(frame);
  assert.equal(headerVersion, 2);
  assert.deepEqual({ ...header }, { requestApiKey: 3, requestApiVersion: 12, correlationId: 77, clientId: 'my-client' });
  // api key, version, correlation id, int16-length client id, empty tag section, then the body.
  assert.equal(bodyOffset, 2 + 2 + 4 + 2 + 9 + 1);
  assert.equal(frame[bodyOffset], 5);
});
