/**
 * Control records: the key is `version int16, type int16` (ControlRecordTypeSchema, version 0);
 * a transaction marker's value is `version int16, coordinatorEpoch int32` (EndTxnMarker,
 * version 0). Both are written in a batch with the control and transactional bits set.
 *
 * Readers accept versions above 0 and ignore trailing bytes, like Kafka, so that a newer writer
 * does not break an older reader; a negative version or a short buffer is INVALID_RECORD.
 */
import { CompressionType } from './attributes.js';
import { RecordErrorCode, RecordValidationError } from './record-error.js';
import { encodeRecordBatch } from './record-batch-encoder.js';

export const ControlRecordType = {
  Abort: 0,
  Commit: 1,
  LeaderChange: 2,
  SnapshotHeader: 3,
  SnapshotFooter: 4,
  KRaftVersion: 5,
  KRaftVoters: 6,
} as const;
export type ControlRecordType = (typeof ControlRecordType)[keyof typeof ControlRecordType];

const CURRENT_CONTROL_KEY_VERSION = 0;
const CURRENT_END_TXN_MARKER_VERSION = 0;
const CONTROL_KEY_SIZE = 4;
const END_TXN_MARKER_SIZE = 6;

export interface ControlRecordKey {
  readonly version: number;
  /** Kept as a number: a type this broker does not know must still be skippable. */
  readonly type: number;
}

export function encodeControlRecordKey(type: ControlRecordType): Buffer {
  const buf = Buffer.allocUnsafe(CONTROL_KEY_SIZE);
  buf.writeInt16BE(CURRENT_CONTROL_KEY_VERSION, 0);
  buf.writeInt16BE(type, 2);
  return buf;
}

/** `batchStart` only labels the error. */
export function decodeControlRecordKey(key: Buffer | null, batchStart = 0): ControlRecordKey {
  if (key === null || key.length < CONTROL_KEY_SIZE) {
    throw new RecordValidationError(RecordErrorCode.InvalidRecord, `control record key of ${key?.length ?? 'null'} bytes`, batchStart);
  }
  const version = key.readInt16BE(0);
  if (version < 0) {
    throw new RecordValidationError(RecordErrorCode.InvalidRecord, `control record key version ${version}`, batchStart);
  }
  return { version, type: key.readInt16BE(2) };
}

export interface EndTxnMarker {
  readonly version: number;
  readonly coordinatorEpoch: number;
}

export function encodeEndTxnMarker(coordinatorEpoch: number): Buffer {
  const buf = Buffer.allocUnsafe(END_TXN_MARKER_SIZE);
  buf.writeInt16BE(CURRENT_END_TXN_MARKER_VERSION, 0);
  buf.writeInt32BE(coordinatorEpoch, 2);
  return buf;
}

export function decodeEndTxnMarker(value: Buffer | null, batchStart = 0): EndTxnMarker {
  if (value === null || value.length < END_TXN_MARKER_SIZE) {
    throw new RecordValidationError(RecordErrorCode.InvalidRecord, `end transaction marker of ${value?.length ?? 'null'} bytes`, batchStart);
  }
  const version = value.readInt16BE(0);
  if (version < 0) {
    throw new RecordValidationError(RecordErrorCode.InvalidRecord, `end transaction marker version ${version}`, batchStart);
  }
  return { version, coordinatorEpoch: value.readInt32BE(2) };
}

export interface EndTxnMarkerBatchInput {
  readonly baseOffset?: bigint;
  readonly partitionLeaderEpoch?: number;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly coordinatorEpoch: number;
  readonly committed: boolean;
  readonly timestamp: bigint;
}

/** The one-record control batch a transaction coordinator writes to each partition at commit or abort. */
export function encodeEndTxnMarkerBatch(input: EndTxnMarkerBatchInput): Buffer {
  return encodeRecordBatch({
    baseOffset: input.baseOffset,
    partitionLeaderEpoch: input.partitionLeaderEpoch,
    compression: CompressionType.None,
    producerId: input.producerId,
    producerEpoch: input.producerEpoch,
    isTransactional: true,
    isControl: true,
    records: [
      {
        key: encodeControlRecordKey(input.committed ? ControlRecordType.Commit : ControlRecordType.Abort),
        value: encodeEndTxnMarker(input.coordinatorEpoch),
        timestamp: input.timestamp,
      },
    ],
  });
}
