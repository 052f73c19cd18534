/** Kafka record batches (magic 2): zero-copy header view, validation, rewrites, records, encoding. */
export {
  CompressionType,
  TimestampType,
  type BatchAttributes,
  compressionCodecId,
  decodeAttributes,
  encodeAttributes,
  hasDeleteHorizon,
  isControl,
  isKnownCompressionType,
  isTransactional,
  timestampTypeOf,
} from './attributes.js';
export * as BatchLayout from './batch-layout.js';
export { BatchScan, lastOffsetOf, readBatchHeader, readInt64, type BatchHeader } from './batch-header.js';
export { batchEnd, computeBatchCrc, writeBatchCrc } from './batch-crc.js';
export { setBaseOffset, setLogAppendTime, setMaxTimestamp, setPartitionLeaderEpoch } from './batch-rewrite.js';
export {
  checkBatchHeader,
  checkBatchRecords,
  validateBatches,
  validateProduceRecords,
  type AppendOrigin,
  type BatchCheckOptions,
  type BatchesValidation,
  type ProduceValidation,
  type ProduceValidationOptions,
  type RecordCheckOptions,
  type TimestampWindow,
} from './batch-validator.js';
export { RecordErrorCode, RecordValidationError, type RecordError } from './record-error.js';
export {
  DEFAULT_MAX_DECOMPRESSED_BYTES,
  readRecords,
  type DecodedRecord,
  type Decompressor,
  type RecordHeader,
  type RecordReadOptions,
} from './record-reader.js';
export {
  encodeRecordBatch,
  type Compressor,
  type RecordBatchInput,
  type RecordHeaderInput,
  type RecordInput,
} from './record-batch-encoder.js';
export {
  ControlRecordType,
  decodeControlRecordKey,
  decodeEndTxnMarker,
  encodeControlRecordKey,
  encodeEndTxnMarker,
  encodeEndTxnMarkerBatch,
  type ControlRecordKey,
  type EndTxnMarker,
  type EndTxnMarkerBatchInput,
} from './control-record.js';
