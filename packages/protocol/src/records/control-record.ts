/**
 * Control records: the key is `version int16, type int16` (ControlRecordTypeSchema, version 0);
 * a transaction marker's value is `version int16, coordinatorEpoch int32` (EndTxnMarker,
 * version 0), both through the generated schemas. They are written in a batch with the control
 * and transactional bits set.
 *
 * Readers accept versions above 0 and ignore trailing bytes, like Kafka, so that a newer writer
 * does not break an older reader; a negative version or a short buffer is INVALID_RECORD.
 */
// The two schemas only, not the messages barrel: every partition worker loads this module, and the barrel
// would compile all 84 API codecs into each worker's isolate.
import { ControlRecordTypeSchema } from '../messages/schemas/control-record-type-schema.js';
import { EndTxnMarker as EndTxnMarkerSchema } from '../messages/schemas/end-txn-marker.js';
import { DecodeError } from '../primitives/decode-error.js';
import type { MessageCodec } from '../primitives/codec-support.js';
import { readVersioned, writeVersioned } from '../primitives/versioned-schema.js';
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

const CURRENT_VERSION = 0;

/** The generated schema's reading, with bad bytes reported as the record fault they are. */
function readControlValue<T>(
  codec: MessageCodec<T, unknown>,
  bytes: Buffer | null,
  what: string,
  batchStart: number,
): { version: number; data: T } {
  if (bytes === null) throw new RecordValidationError(RecordErrorCode.InvalidRecord, `${what} is null`, batchStart);
  try {
    return readVersioned(codec, bytes);
  } catch (err) {
    if (!(err instanceof DecodeError)) throw err;
    throw new RecordValidationError(RecordErrorCode.InvalidRecord, `${what}: ${err.message}`, batchStart);
  }
}

export interface ControlRecordKey {
  readonly version: number;
  /** Kept as a number: a type this broker does not know must still be skippable. */
  readonly type: number;
}

export function encodeControlRecordKey(type: ControlRecordType): Buffer {
  return writeVersioned(ControlRecordTypeSchema, CURRENT_VERSION, { type });
}

/** `batchStart` only labels the error. */
export function decodeControlRecordKey(key: Buffer | null, batchStart = 0): ControlRecordKey {
  const { version, data } = readControlValue(ControlRecordTypeSchema, key, 'control record key', batchStart);
  return { version, type: data.type };
}

export interface EndTxnMarker {
  readonly version: number;
  readonly coordinatorEpoch: number;
}

export function encodeEndTxnMarker(coordinatorEpoch: number): Buffer {
  return writeVersioned(EndTxnMarkerSchema, CURRENT_VERSION, { coordinatorEpoch });
}

export function decodeEndTxnMarker(value: Buffer | null, batchStart = 0): EndTxnMarker {
  const { version, data } = readControlValue(EndTxnMarkerSchema, value, 'end transaction marker', batchStart);
  return { version, coordinatorEpoch: data.coordinatorEpoch };
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
