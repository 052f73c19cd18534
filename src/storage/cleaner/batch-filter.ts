/**
 * Kafka's `MemoryRecords.filterTo` with the cleaner's record and batch policies, for one magic-2
 * batch of the cleanable range:
 *
 * - a record of an aborted transaction is dropped;
 * - a record is kept when it lies past the map's range, or holds its key's latest offset and
 *   either has a value or is a tombstone whose batch has no delete horizon yet / one still in
 *   the future (KIP-534); a record without a key is dropped (Kafka: "invalid message");
 * - a batch whose records all stay, and which needs no delete horizon, is copied byte for byte;
 * - otherwise the kept records are re-encoded under the same base offset, producer fields,
 *   leader epoch, timestamp type and codec (recompressed), with the original `lastOffsetDelta`
 *   (so the producer's last sequence survives, as Kafka's `overrideLastOffset`) and, if it holds
 *   a tombstone and had none, the delete horizon `now + delete.retention.ms`;
 * - a batch left empty is dropped, unless it is its producer's last data batch: then Kafka's
 *   empty header (no records, same offsets and producer fields) is written in its place;
 * - control batches (transaction markers) are copied as they are: Kafka drops a marker once its
 *   transaction has no data left, which Sluice does not do yet.
 *
 * Pure function of its inputs; runs on a cleaner thread.
 */
import { compress, decompress } from '../../native/index.js';
import {
  BatchLayout,
  compressionCodecId,
  CompressionType,
  encodeAttributes,
  encodeRecordBatch,
  hasDeleteHorizon,
  isControl,
  isKnownCompressionType,
  isTransactional,
  readRecords,
  timestampTypeOf,
  TimestampType,
  writeBatchCrc,
  type BatchHeader,
  type DecodedRecord,
} from '@sluice/protocol/records/index.js';
import { CorruptSegmentError } from '../storage-error.js';
import type { AbortedData } from './aborted-data.js';
import type { KeyOffsetMap } from './offset-map.js';

export interface FilterContext {
  readonly map: KeyOffsetMap;
  readonly aborted: AbortedData;
  readonly nowMs: number;
  readonly deleteRetentionMs: number;
  /** Producer id → last offset of its last data batch (Kafka's `lastRecordsOfActiveProducers`). */
  readonly producerLastOffsets: ReadonlyMap<bigint, number>;
}

export interface FilteredBatch {
  /** The bytes to write (the input view when kept as is), or null when the batch goes. */
  readonly bytes: Buffer | null;
  readonly recordsRead: number;
  readonly recordsKept: number;
  readonly rewritten: boolean;
  /** The batch's delete horizon if it still holds tombstones, else null. */
  readonly deleteHorizonMs: number | null;
}

export function filterBatch(bytes: Buffer, header: BatchHeader, ctx: FilterContext): FilteredBatch {
  if (isControl(header.attributes)) return { bytes, recordsRead: 0, recordsKept: 0, rewritten: false, deleteHorizonMs: null };
  const horizon = hasDeleteHorizon(header.attributes) ? Number(header.baseTimestamp) : null;
  const retainDeletes = horizon === null || ctx.nowMs < horizon;
  const abortedData = ctx.aborted.holds(header);
  const kept: DecodedRecord[] = [];
  let recordsRead = 0;
  let tombstones = false;
  for (const record of readRecords(bytes, header, { decompress })) {
    recordsRead++;
    if (abortedData || !shouldRetain(record, ctx.map, retainDeletes)) continue;
    kept.push(record);
    if (record.value === null) tombstones = true;
  }
  const needsHorizon = tombstones && horizon === null;
  const batchHorizon = tombstones ? (horizon ?? ctx.nowMs + ctx.deleteRetentionMs) : null;
  const result = (out: Buffer | null, rewritten: boolean): FilteredBatch => ({
    bytes: out,
    recordsRead,
    recordsKept: kept.length,
    rewritten,
    deleteHorizonMs: batchHorizon,
  });
  if (kept.length === recordsRead && !needsHorizon) return result(bytes, false);
  if (kept.length === 0) {
    const lastOffset = Number(header.baseOffset) + header.lastOffsetDelta;
    const last = header.producerId >= 0n && ctx.producerLastOffsets.get(header.producerId) === lastOffset;
    return result(last ? emptyBatch(header) : null, last);
  }
  return result(rewrite(header, kept, batchHorizon), true);
}

function shouldRetain(record: DecodedRecord, map: KeyOffsetMap, retainDeletes: boolean): boolean {
  if (Number(record.offset) > map.latestOffset) return true;
  if (record.key === null) return false;
  const latest = Number(record.offset) >= map.get(record.key);
  return latest && (record.value !== null || retainDeletes);
}

function rewrite(header: BatchHeader, kept: readonly DecodedRecord[], deleteHorizonMs: number | null): Buffer {
  const codec = compressionCodecId(header.attributes);
  if (!isKnownCompressionType(codec)) throw new CorruptSegmentError(`batch at offset ${header.baseOffset} has codec ${codec}`);
  const logAppendTime = timestampTypeOf(header.attributes) === TimestampType.LogAppendTime;
  const batch = encodeRecordBatch(
    {
      baseOffset: header.baseOffset,
      partitionLeaderEpoch: header.partitionLeaderEpoch,
      compression: codec,
      logAppendTime: logAppendTime ? header.maxTimestamp : undefined,
      producerId: header.producerId,
      producerEpoch: header.producerEpoch,
      baseSequence: header.baseSequence,
      isTransactional: isTransactional(header.attributes),
      deleteHorizonMs: deleteHorizonMs === null ? undefined : BigInt(deleteHorizonMs),
      records: kept.map((r) => ({
        key: r.key,
        value: r.value,
        headers: r.headers,
        timestamp: r.timestamp,
        offsetDelta: Number(r.offset - header.baseOffset),
      })),
    },
    compress,
  );
  return withLastOffsetDelta(batch, header.lastOffsetDelta);
}

/** Kafka's `overrideLastOffset`: the batch keeps the offset range (and so the sequence range) it had. */
function withLastOffsetDelta(batch: Buffer, lastOffsetDelta: number): Buffer {
  if (batch.readInt32BE(BatchLayout.LAST_OFFSET_DELTA_OFFSET) === lastOffsetDelta) return batch;
  batch.writeInt32BE(lastOffsetDelta, BatchLayout.LAST_OFFSET_DELTA_OFFSET);
  writeBatchCrc(batch, 0);
  return batch;
}

/**
 * Kafka's `DefaultRecordBatch.writeEmptyHeader`: a 61-byte batch with no records, the original
 * offsets, producer fields and leader epoch, uncompressed, both timestamps the batch's max.
 * `withProducer: false` clears the producer fields (an offset marker that updates no producer).
 */
export function emptyBatch(header: BatchHeader, withProducer = true): Buffer {
  const b = Buffer.alloc(BatchLayout.RECORD_BATCH_OVERHEAD);
  b.writeBigInt64BE(header.baseOffset, BatchLayout.BASE_OFFSET_OFFSET);
  b.writeInt32BE(BatchLayout.RECORD_BATCH_OVERHEAD - BatchLayout.LOG_OVERHEAD, BatchLayout.BATCH_LENGTH_OFFSET);
  b.writeInt32BE(header.partitionLeaderEpoch, BatchLayout.PARTITION_LEADER_EPOCH_OFFSET);
  b.writeInt8(BatchLayout.MAGIC_V2, BatchLayout.MAGIC_OFFSET);
  const attributes = encodeAttributes({
    compression: CompressionType.None,
    timestampType: timestampTypeOf(header.attributes),
    isTransactional: withProducer && isTransactional(header.attributes),
    isControl: false,
    hasDeleteHorizon: false,
  });
  b.writeInt16BE(attributes, BatchLayout.ATTRIBUTES_OFFSET);
  b.writeInt32BE(header.lastOffsetDelta, BatchLayout.LAST_OFFSET_DELTA_OFFSET);
  b.writeBigInt64BE(header.maxTimestamp, BatchLayout.BASE_TIMESTAMP_OFFSET);
  b.writeBigInt64BE(header.maxTimestamp, BatchLayout.MAX_TIMESTAMP_OFFSET);
  b.writeBigInt64BE(withProducer ? header.producerId : BatchLayout.NO_PRODUCER_ID, BatchLayout.PRODUCER_ID_OFFSET);
  b.writeInt16BE(withProducer ? header.producerEpoch : BatchLayout.NO_PRODUCER_EPOCH, BatchLayout.PRODUCER_EPOCH_OFFSET);
  b.writeInt32BE(withProducer ? header.baseSequence : BatchLayout.NO_SEQUENCE, BatchLayout.BASE_SEQUENCE_OFFSET);
  b.writeInt32BE(0, BatchLayout.RECORDS_COUNT_OFFSET);
  writeBatchCrc(b, 0);
  return b;
}
