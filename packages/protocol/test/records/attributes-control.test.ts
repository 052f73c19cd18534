import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  compressionCodecId,
  CompressionType,
  ControlRecordType,
  decodeAttributes,
  decodeControlRecordKey,
  decodeEndTxnMarker,
  encodeAttributes,
  encodeControlRecordKey,
  encodeEndTxnMarker,
  hasDeleteHorizon,
  isControl,
  isTransactional,
  RecordErrorCode,
  RecordValidationError,
  timestampTypeOf,
  TimestampType,
} from '../../src/records/index.js';

test('attribute bits: codec 0-2, timestamp type 3, transactional 4, control 5, delete horizon 6', () => {
  assert.equal(
    encodeAttributes({
      compression: CompressionType.Zstd,
      timestampType: TimestampType.CreateTime,
      isTransactional: false,
      isControl: false,
      hasDeleteHorizon: false,
    }),
    0x04,
  );
  assert.equal(
    encodeAttributes({
      compression: CompressionType.None,
      timestampType: TimestampType.LogAppendTime,
      isTransactional: false,
      isControl: false,
      hasDeleteHorizon: false,
    }),
    0x08,
  );
  assert.equal(
    encodeAttributes({
      compression: CompressionType.Snappy,
      timestampType: TimestampType.CreateTime,
      isTransactional: true,
      isControl: true,
      hasDeleteHorizon: true,
    }),
    0x72,
  );
  assert.equal(compressionCodecId(0x7b), 3);
  assert.equal(timestampTypeOf(0x08), TimestampType.LogAppendTime);
  assert.ok(isTransactional(0x10) && !isTransactional(0x20));
  assert.ok(isControl(0x20) && !isControl(0x40));
  assert.ok(hasDeleteHorizon(0x40) && !hasDeleteHorizon(0x3f));
  assert.equal(decodeAttributes(0x05), null);
});

test('attributes round-trip for every combination', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...Object.values(CompressionType)),
      fc.constantFrom(...Object.values(TimestampType)),
      fc.boolean(),
      fc.boolean(),
      fc.boolean(),
      (compression, timestampType, transactional, control, deleteHorizon) => {
        const a = { compression, timestampType, isTransactional: transactional, isControl: control, hasDeleteHorizon: deleteHorizon };
        assert.deepEqual(decodeAttributes(encodeAttributes(a)), a);
      },
    ),
  );
});

test('control record key and end-transaction marker follow ControlRecordTypeSchema / EndTxnMarker v0', () => {
  assert.equal(encodeControlRecordKey(ControlRecordType.Commit).toString('hex'), '00000001');
  assert.equal(encodeControlRecordKey(ControlRecordType.Abort).toString('hex'), '00000000');
  assert.equal(encodeEndTxnMarker(0x01020304).toString('hex'), '000001020304');
  assert.deepEqual(decodeControlRecordKey(Buffer.from('00010002ff', 'hex')), { version: 1, type: ControlRecordType.LeaderChange });
  assert.deepEqual(decodeEndTxnMarker(Buffer.from('0000fffffffe', 'hex')), { version: 0, coordinatorEpoch: -2 });
  for (const bad of [null, Buffer.from('000000', 'hex'), Buffer.from('ffff0001', 'hex')]) {
    assert.throws(
      () => decodeControlRecordKey(bad),
      (e: unknown) => e instanceof RecordValidationError && e.code === RecordErrorCode.InvalidRecord,
    );
  }
  for (const bad of [null, Buffer.from('00000000', 'hex'), Buffer.from('ffff00000001', 'hex')]) {
    assert.throws(
      () => decodeEndTxnMarker(bad),
      (e: unknown) => e instanceof RecordValidationError && e.code === RecordErrorCode.InvalidRecord,
    );
  }
});
