/** The storage engine: partition logs in Kafka's on-disk layout. See docs/design/storage.md. */
export { hasCleanShutdownMarker, removeCleanShutdownMarker, writeCleanShutdownMarker } from './log/clean-shutdown-marker.js';
export {
  LogManager,
  writeLogDirCheckpoints,
  type CreateLogOptions,
  type LogDirCheckpoint,
  type LogManagerOptions,
} from './log/log-manager.js';
export {
  PartitionLog,
  type AppendOptions,
  type AppendResult,
  type FlushState,
  type LogSlice,
  type PartitionLogOptions,
  type ReadOptions,
} from './log/partition-log.js';
export { LogDir } from './log/log-dir.js';
export { type LogCleanerOptions } from './cleaner/log-cleaner.js';
export { type CleanRunner } from './cleaner/cleaner-pool.js';
export type { CleanResult, CleanTask } from './cleaner/clean-task.js';
export { DEFAULT_PRODUCER_ID_EXPIRATION_MS } from './producer-state/producer-state-manager.js';
export { NUM_BATCHES_TO_RETAIN, type BatchMetadata, type ProducerState } from './producer-state/producer-state-entry.js';
export type { TxnMarkerRequest } from './producer-state/txn-marker.js';
export type { AppendOrigin } from './producer-state/append-check.js';
export { VerificationRequired } from './producer-state/transaction-verifications.js';
export type { AbortedTxn } from './index/transaction-index.js';
export { LeaderEpochCache, type EpochEndOffset } from './log/leader-epoch-cache.js';
export { DEFAULT_LOG_CONFIG, logConfig, withOverrides, type LogConfig, type TimestampTypeName } from './log-config.js';
export type { FilePosition, RelativeOffset } from './offsets.js';
export { CorruptSegmentError, OffsetOutOfRangeError, StorageError } from './storage-error.js';
export { Faults, type FaultAction, type FaultPoint } from './fault-injection.js';
export { partitionDirName } from './file-names.js';
export type { TimestampOffset } from './index/time-index.js';
export { readMetaProperties, writeMetaProperties, type MetaProperties } from './checkpoint/meta-properties.js';
