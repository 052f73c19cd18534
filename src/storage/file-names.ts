/**
 * Kafka's names for the files of a partition directory. A segment is named by its base offset
 * as 20 zero-padded digits; files being deleted carry `.deleted`; checkpoint writes go through
 * `.tmp` files that a crash may leave behind.
 */
import { join } from 'node:path';
import { offsetOf, type Offset } from '@sluice/protocol/common/offsets.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

export const LOG_SUFFIX = '.log';
export const INDEX_SUFFIX = '.index';
export const TIME_INDEX_SUFFIX = '.timeindex';
export const TXN_INDEX_SUFFIX = '.txnindex';
export const DELETED_SUFFIX = '.deleted';
export const TMP_SUFFIX = '.tmp';
/** Left by Kafka's compactor mid-swap; Sluice never writes them but cleans them up. */
export const CLEANED_SUFFIX = '.cleaned';
export const SWAP_SUFFIX = '.swap';

export const PARTITION_METADATA_FILE = 'partition.metadata';
export const LEADER_EPOCH_CHECKPOINT_FILE = 'leader-epoch-checkpoint';
export const META_PROPERTIES_FILE = 'meta.properties';
export const CLEAN_SHUTDOWN_FILE = '.kafka_cleanshutdown';
export const RECOVERY_POINT_CHECKPOINT_FILE = 'recovery-point-offset-checkpoint';
export const LOG_START_OFFSET_CHECKPOINT_FILE = 'log-start-offset-checkpoint';
export const REPLICATION_OFFSET_CHECKPOINT_FILE = 'replication-offset-checkpoint';
export const CLEANER_OFFSET_CHECKPOINT_FILE = 'cleaner-offset-checkpoint';
/** Suffix Kafka gives a partition directory scheduled for deletion. */
export const DELETE_DIR_SUFFIX = '-delete';
/** Suffix of a partition's future log: the copy being filled in another log dir (AlterReplicaLogDirs). */
export const FUTURE_DIR_SUFFIX = '-future';

export function segmentFileStem(baseOffset: Offset): string {
  return String(baseOffset).padStart(20, '0');
}

export function logFilePath(dir: string, baseOffset: Offset): string {
  return join(dir, segmentFileStem(baseOffset) + LOG_SUFFIX);
}

export function offsetIndexPath(dir: string, baseOffset: Offset): string {
  return join(dir, segmentFileStem(baseOffset) + INDEX_SUFFIX);
}

export function timeIndexPath(dir: string, baseOffset: Offset): string {
  return join(dir, segmentFileStem(baseOffset) + TIME_INDEX_SUFFIX);
}

export function txnIndexPath(dir: string, baseOffset: Offset): string {
  return join(dir, segmentFileStem(baseOffset) + TXN_INDEX_SUFFIX);
}

/** The base offset a segment file name stands for, or null if `name` is not `<20 digits><suffix>`. */
export function baseOffsetOfFile(name: string, suffix: string): Offset | null {
  if (!name.endsWith(suffix)) return null;
  const stem = name.slice(0, -suffix.length);
  return /^\d{20}$/.test(stem) ? offsetOf(Number(stem)) : null;
}

export function partitionDirName(tp: TopicPartition): string {
  return `${tp.topic}-${tp.partition}`;
}

/** Kafka splits a directory name at its last '-': topics may contain dashes, partitions may not. */
export function parsePartitionDirName(name: string): TopicPartition | null {
  const dash = name.lastIndexOf('-');
  if (dash <= 0) return null;
  const partitionText = name.slice(dash + 1);
  if (!/^\d+$/.test(partitionText)) return null;
  return { topic: name.slice(0, dash), partition: Number(partitionText) };
}
