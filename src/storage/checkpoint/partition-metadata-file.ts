/**
 * `partition.metadata` in a partition directory, Kafka's text format (no trailing newline):
 *
 *   version: 0
 *   topic_id: <topic id, 16 bytes as unpadded base64url>
 *
 * Written once when the topic id is known (tmp, fsync, rename), read at load to detect a
 * directory left over from an older topic of the same name. Owned by the partition's thread.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { PARTITION_METADATA_FILE, TMP_SUFFIX } from '../file-names.js';
import { CorruptCheckpointError } from './checkpoint-file.js';

export function writePartitionMetadata(dir: string, topicId: string): void {
  const path = join(dir, PARTITION_METADATA_FILE);
  const tmp = path + TMP_SUFFIX;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, `version: 0\ntopic_id: ${topicId}`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/** The topic id, or null if the file is absent. */
export function readPartitionMetadata(dir: string): string | null {
  const path = join(dir, PARTITION_METADATA_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  const fields = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+):\s+(\S+)\s*$/.exec(line);
    if (match !== null) fields.set(match[1]!, match[2]!);
  }
  if (fields.get('version') !== '0') throw new CorruptCheckpointError(path, `unsupported version ${fields.get('version')}`);
  const topicId = fields.get('topic_id');
  if (topicId === undefined) throw new CorruptCheckpointError(path, 'no topic_id');
  return topicId;
}
