/**
 * The addon's codecs plug straight into the batch codec as `Compressor` / `Decompressor`
 * (the assignments below are the type check), and every Kafka codec round-trips a batch.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codecAvailable, compress, decompress } from '../../../../src/native/index.js';
import {
  CompressionType,
  encodeRecordBatch,
  readRecords,
  RecordErrorCode,
  validateProduceRecords,
  type Compressor,
  type Decompressor,
} from '@sluice/protocol/records/index.js';

const nativeCompressor: Compressor = compress;
const nativeDecompressor: Decompressor = decompress;

const records = Array.from({ length: 200 }, (_, i) => ({
  key: Buffer.from(`key-${i}`),
  value: Buffer.alloc(100 + i, i & 0xff),
  headers: i % 3 === 0 ? [{ key: 'h', value: Buffer.from([i & 0xff]) }] : [],
  timestamp: 1_700_000_000_000n + BigInt(i),
}));

for (const [name, codec] of Object.entries(CompressionType)) {
  if (codec === CompressionType.None) continue;
  test(`${name} batch round-trips through the native codecs`, { skip: !codecAvailable(codec) && `${name} not built` }, () => {
    const batch = encodeRecordBatch({ compression: codec, records }, nativeCompressor);
    assert.ok(batch.length < 61 + records.reduce((n, r) => n + r.value.length, 0));
    const result = validateProduceRecords(batch, { records: { decompress: nativeDecompressor } });
    assert.ok(result.ok, result.ok ? '' : result.error.message);
    assert.deepEqual(
      [...readRecords(batch, result.batch, { decompress: nativeDecompressor })].map((r) => r.value),
      records.map((r) => r.value),
    );

    const bounded = validateProduceRecords(batch, { records: { decompress: nativeDecompressor, maxDecompressedBytes: 1000 } });
    assert.equal(bounded.ok, false);
    if (!bounded.ok) assert.equal(bounded.error.code, RecordErrorCode.CorruptMessage);
  });
}
