/**
 * The codec against bytes it did not produce: a batch assembled by hand from the format spec,
 * and batches written by Apache Kafka's own client library.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32cJs } from '../../src/checksum/crc32c-js.js';
import {
  CompressionType,
  ControlRecordType,
  decodeAttributes,
  decodeControlRecordKey,
  decodeEndTxnMarker,
  encodeEndTxnMarkerBatch,
  encodeRecordBatch,
  readBatchHeader,
  readRecords,
  TimestampType,
  validateBatches,
  type DecodedRecord,
  type RecordInput,
} from '../../src/records/index.js';
import { gzipCompressor, gzipDecompressor, kafkaFixture, utf8 } from './record-test-helpers.js';

/** Concatenates `[hex, what it is]` rows, so the spec reading sits next to each field's bytes. */
function bytes(rows: ReadonlyArray<readonly [string, string]>): Buffer {
  return Buffer.concat(rows.map(([hexDigits]) => Buffer.from(hexDigits.replace(/ /g, ''), 'hex')));
}

/** Two records, spelled out field by field from the magic-2 format description. */
function handBuiltBatch(): Buffer {
  const record0 = bytes([
    ['18', 'length 12 (zig-zag varint)'],
    ['00', 'attributes'],
    ['00', 'timestampDelta 0'],
    ['00', 'offsetDelta 0'],
    ['02 6b', 'key "k"'],
    ['04 7676', 'value "vv"'],
    ['02', '1 header'],
    ['02 68', 'header key "h"'],
    ['01', 'header value null (-1)'],
  ]);
  const record1 = bytes([
    ['0e', 'length 7'],
    ['00', 'attributes'],
    ['13', 'timestampDelta -10'],
    ['02', 'offsetDelta 1'],
    ['01', 'key null'],
    ['02 78', 'value "x"'],
    ['00', 'no headers'],
  ]);
  const header = bytes([
    ['0000000000000005', 'baseOffset 5'],
    ['00000046', 'batchLength 70 = 82 - 12'],
    ['00000003', 'partitionLeaderEpoch 3'],
    ['02', 'magic'],
    ['00000000', 'crc, filled in below'],
    ['0000', 'attributes: no compression, CreateTime'],
    ['00000001', 'lastOffsetDelta 1'],
    ['00000000000003e8', 'baseTimestamp 1000'],
    ['00000000000003e8', 'maxTimestamp 1000'],
    ['ffffffffffffffff', 'producerId -1'],
    ['ffff', 'producerEpoch -1'],
    ['ffffffff', 'baseSequence -1'],
    ['00000002', 'records count 2'],
  ]);
  const batch = Buffer.concat([header, record0, record1]);
  batch.writeUInt32BE(crc32cJs(batch.subarray(21)), 17);
  return batch;
}

test('the CRC used for batches is CRC-32C (check value of "123456789")', () => {
  assert.equal(crc32cJs(utf8('123456789')), 0xe3069283);
});

test('encoder reproduces a hand-built batch byte for byte', () => {
  const expected = handBuiltBatch();
  assert.equal(expected.length, 82);
  const encoded = encodeRecordBatch({
    baseOffset: 5n,
    partitionLeaderEpoch: 3,
    records: [
      { key: utf8('k'), value: utf8('vv'), headers: [{ key: 'h', value: null }], timestamp: 1000n },
      { key: null, value: utf8('x'), timestamp: 990n },
    ],
  });
  assert.equal(encoded.toString('hex'), expected.toString('hex'));
});

test('header view and record reader decode the hand-built batch', () => {
  const batch = handBuiltBatch();
  const header = readBatchHeader(batch, 0);
  assert.ok(header);
  assert.deepEqual(
    { ...header },
    {
      start: 0,
      end: 82,
      baseOffset: 5n,
      batchLength: 70,
      partitionLeaderEpoch: 3,
      magic: 2,
      crc: batch.readUInt32BE(17),
      attributes: 0,
      lastOffsetDelta: 1,
      baseTimestamp: 1000n,
      maxTimestamp: 1000n,
      producerId: -1n,
      producerEpoch: -1,
      baseSequence: -1,
      recordsCount: 2,
    },
  );
  const records = [...readRecords(batch, header)];
  assert.deepEqual(records, [
    { offset: 5n, timestamp: 1000n, key: utf8('k'), value: utf8('vv'), headers: [{ key: 'h', value: null }] },
    { offset: 6n, timestamp: 990n, key: null, value: utf8('x'), headers: [] },
  ]);
  // Views, not copies: the value's bytes live inside the batch buffer.
  assert.equal(records[0]!.value.buffer, batch.buffer);
  assert.equal(records[0]!.value.byteOffset, batch.byteOffset + 61 + 7);
});

/** Inputs matching the records in fixtures/KafkaBatchFixtures.java. */
const kafkaSampleRecords: RecordInput[] = [
  {
    key: utf8('key-0'),
    value: utf8('value-0'),
    headers: [
      { key: 'h1', value: utf8('v1') },
      { key: 'empty', value: null },
    ],
    timestamp: 1700000000000n,
  },
  { key: null, value: utf8('no key'), timestamp: 1700000000005n },
  { key: utf8('tombstone'), value: null, timestamp: 1699999999990n },
  { key: Buffer.alloc(0), value: Buffer.alloc(300), timestamp: 1700000000100n },
];

function asInputs(records: DecodedRecord[]): RecordInput[] {
  return records.map((r) => ({ key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp }));
}

/** The inputs as the decoder reports them (absent headers are an empty list). */
function withHeaders(records: RecordInput[]): RecordInput[] {
  return records.map((r) => ({ key: r.key, value: r.value, headers: r.headers ?? [], timestamp: r.timestamp }));
}

test('Kafka-written plain batch: valid, decodes to the records Kafka was given, re-encodes identically', () => {
  const batch = kafkaFixture('plain');
  const result = validateBatches(batch);
  assert.ok(result.ok);
  const header = result.batches[0]!;
  const records = [...readRecords(batch, header)];
  assert.deepEqual(asInputs(records), withHeaders(kafkaSampleRecords));
  assert.deepEqual(
    records.map((r) => r.offset),
    [0n, 1n, 2n, 3n],
  );
  assert.equal(header.maxTimestamp, 1700000000100n);
  assert.equal(header.baseTimestamp, 1700000000000n);
  assert.deepEqual(encodeRecordBatch({ records: kafkaSampleRecords }), batch);
});

test('Kafka-written transactional batch re-encodes identically', () => {
  const batch = kafkaFixture('transactional');
  const header = readBatchHeader(batch, 0)!;
  assert.deepEqual(decodeAttributes(header.attributes), {
    compression: CompressionType.None,
    timestampType: TimestampType.CreateTime,
    isTransactional: true,
    isControl: false,
    hasDeleteHorizon: false,
  });
  const encoded = encodeRecordBatch({
    baseOffset: 1000n,
    partitionLeaderEpoch: 12,
    producerId: 4242n,
    producerEpoch: 7,
    baseSequence: 2147483600,
    isTransactional: true,
    records: kafkaSampleRecords,
  });
  assert.deepEqual(encoded, batch);
});

test('Kafka-written gzip batch decodes through the decompressor; our gzip batch round-trips', () => {
  const batch = kafkaFixture('gzip');
  const result = validateBatches(batch);
  assert.ok(result.ok);
  const header = result.batches[0]!;
  assert.equal(decodeAttributes(header.attributes)?.compression, CompressionType.Gzip);
  assert.deepEqual(asInputs([...readRecords(batch, header, { decompress: gzipDecompressor })]), withHeaders(kafkaSampleRecords));

  const ours = encodeRecordBatch(
    { compression: CompressionType.Gzip, producerId: 55n, producerEpoch: 1, baseSequence: 0, records: kafkaSampleRecords },
    gzipCompressor,
  );
  const oursHeader = readBatchHeader(ours, 0)!;
  assert.ok(validateBatches(ours).ok);
  assert.deepEqual(asInputs([...readRecords(ours, oursHeader, { decompress: gzipDecompressor })]), withHeaders(kafkaSampleRecords));
  // Everything before the compressed payload matches Kafka except the sizes and CRC it covers.
  assert.deepEqual(ours.subarray(43, 61), batch.subarray(43, 61));
});

test('Kafka-written commit marker matches encodeEndTxnMarkerBatch and decodes', () => {
  const batch = kafkaFixture('commitMarker');
  const encoded = encodeEndTxnMarkerBatch({
    baseOffset: 77n,
    partitionLeaderEpoch: 3,
    producerId: 4242n,
    producerEpoch: 7,
    coordinatorEpoch: 9,
    committed: true,
    timestamp: 1700000000200n,
  });
  assert.deepEqual(encoded, batch);
  const header = readBatchHeader(batch, 0)!;
  const attributes = decodeAttributes(header.attributes)!;
  assert.ok(attributes.isControl && attributes.isTransactional);
  const [marker] = [...readRecords(batch, header)];
  assert.deepEqual(decodeControlRecordKey(marker!.key), { version: 0, type: ControlRecordType.Commit });
  assert.deepEqual(decodeEndTxnMarker(marker!.value), { version: 0, coordinatorEpoch: 9 });
});
