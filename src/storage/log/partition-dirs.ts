/**
 * Which partition a directory in a log dir belongs to. The log manager loads by it; the main
 * thread lists the partitions on disk with it at start-up (their owners start at once, to load
 * and recover them) without loading the storage engine.
 */
import { readdirSync } from 'node:fs';
import { parsePartitionDirName } from '../file-names.js';
import { type TopicPartition } from '@sluice/protocol/common/topic-partition.js';

/** Kafka names a partition directory being deleted `<topic>-<partition>.<uuid>-delete`; a future or stray one likewise. */
export const DIRECTORY_TO_SKIP = /(\.[0-9a-f]{32}-(delete|future|stray))$/;
/** KRaft's own log, managed by the controller, not by the log manager. */
export const METADATA_LOG_DIR = '__cluster_metadata-0';

/** The partition whose directory (current, future, being deleted or stray) `name` is; null for any other name. */
export function partitionOfDir(name: string): TopicPartition | null {
  return name === METADATA_LOG_DIR ? null : parsePartitionDirName(name.replace(DIRECTORY_TO_SKIP, ''));
}

/** Every partition with a directory of any kind in `logDir`. Throws what listing it throws. */
export function partitionsInLogDir(logDir: string): TopicPartition[] {
  const found: TopicPartition[] = [];
  for (const entry of readdirSync(logDir, { withFileTypes: true })) {
    const tp = entry.isDirectory() ? partitionOfDir(entry.name) : null;
    if (tp !== null) found.push(tp);
  }
  return found;
}
