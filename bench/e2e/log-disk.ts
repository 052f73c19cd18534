/**
 * A topic's footprint in a broker's log directory, read from outside the broker the same way
 * for Sluice and Kafka (both lay partitions out as `<topic>-<partition>/<base offset>.log`, and
 * a deleted partition as `<topic>-<partition>.<uuid>-delete` until its files are removed).
 */
import { readdirSync, statfsSync, statSync } from 'node:fs';
import { join } from 'node:path';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Partition directories of topics whose name matches `topicPattern` (a RegExp source). */
function partitionDirs(logDir: string, topicPattern: string, includeDeleted: boolean): string[] {
  const own = new RegExp(`^${topicPattern}-\\d+${includeDeleted ? '(\\.[0-9a-f]{32}-delete)?' : ''}$`);
  return readdirSync(logDir).filter((name) => own.test(name));
}

/** Bytes in the segment files (`.log`) of the topic's live partitions: the records, no indexes. */
export function topicLogBytes(logDir: string, topic: string): number {
  let bytes = 0;
  for (const dir of partitionDirs(logDir, escapeRegExp(topic), false)) {
    for (const file of readdirSync(join(logDir, dir))) {
      if (file.endsWith('.log')) bytes += statSync(join(logDir, dir, file)).size;
    }
  }
  return bytes;
}

/**
 * Waits until none of the topic's directories is left (brokers delete asynchronously, after
 * log.segment.delete.delay.ms), so the next broker does not write while this one's files remain.
 */
export async function waitUntilRemoved(logDir: string, topic: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = partitionDirs(logDir, escapeRegExp(topic), true);
    if (left.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(`${left.length} directories of deleted topic ${topic} still in ${logDir} after ${timeoutMs / 1000} s`);
    await sleep(500);
  }
}

/** Throws if a topic whose name starts with `topicPrefix` still has files in one of `logDirs`. */
export function assertNoTopicFiles(logDirs: readonly string[], topicPrefix: string): void {
  for (const logDir of logDirs) {
    const left = partitionDirs(logDir, `${escapeRegExp(topicPrefix)}.*`, true);
    if (left.length > 0)
      throw new Error(`${left.length} directories of an earlier ${topicPrefix}* topic are still in ${logDir}, e.g. ${left[0]}`);
  }
}

export function freeBytes(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}
