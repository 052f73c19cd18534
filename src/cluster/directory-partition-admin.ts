/**
 * A `PartitionAdmin` over Kafka's on-disk layout only: each partition is a directory
 * `<log dir>/<topic>-<partition>/` holding `partition.metadata` (`version: 0`, `topic_id: <id>`),
 * exactly as Kafka lays it out, so tools that list log dirs see real partitions. It owns no open
 * logs; the worker-backed admin replaces it once partition workers exist. Main thread only.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statfsSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../common/logger.js';
import { ErrorCode } from '../protocol/errors.js';
import type { LogDirDescription, PartitionAdmin, PartitionLogDescription, TopicConfigValues, TopicRef } from '../router/partition-admin.js';
import { writeFileAtomically } from '../common/atomic-file.js';

export const PARTITION_METADATA_FILE = 'partition.metadata';
/** `<topic>-<partition>`; directories being deleted or moved carry a suffix after a '.'. */
const PARTITION_DIR = /^(.+)-(\d+)$/;

function partitionMetadataText(topicId: string): string {
  return `version: 0\ntopic_id: ${topicId}\n`;
}

function storedTopicId(dir: string): string | null {
  const path = join(dir, PARTITION_METADATA_FILE);
  if (!existsSync(path)) return null;
  return /^topic_id: (\S+)$/m.exec(readFileSync(path, 'utf8'))?.[1] ?? null;
}

function directorySize(dir: string): bigint {
  let total = 0n;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile()) total += BigInt(statSync(join(dir, entry.name)).size);
  }
  return total;
}

export class DirectoryPartitionAdmin implements PartitionAdmin {
  private readonly removals = new Set<Promise<void>>();

  constructor(
    private readonly logDirs: readonly string[],
    private readonly log: Logger,
  ) {
    for (const dir of logDirs) mkdirSync(dir, { recursive: true });
  }

  private findPartitionDir(topic: string, partition: number): string | null {
    for (const logDir of this.logDirs) {
      const dir = join(logDir, `${topic}-${partition}`);
      if (existsSync(dir)) return dir;
    }
    return null;
  }

  /** Kafka places a new partition in the log dir holding the fewest partitions. */
  private leastLoadedDir(): string {
    let best = this.logDirs[0]!;
    let bestCount = Infinity;
    for (const logDir of this.logDirs) {
      const count = readdirSync(logDir).filter((n) => PARTITION_DIR.test(n)).length;
      if (count < bestCount) [best, bestCount] = [logDir, count];
    }
    return best;
  }

  async createPartitions(topic: TopicRef, partitions: readonly number[], _config: TopicConfigValues): Promise<void> {
    for (const p of partitions) {
      const existing = this.findPartitionDir(topic.name, p);
      if (existing !== null) {
        const id = storedTopicId(existing);
        if (id !== null && id !== topic.topicId) throw new Error(`${existing} belongs to topic id ${id}, not ${topic.topicId}`);
        if (id === null) writeFileAtomically(join(existing, PARTITION_METADATA_FILE), partitionMetadataText(topic.topicId));
        continue;
      }
      const dir = join(this.leastLoadedDir(), `${topic.name}-${p}`);
      mkdirSync(dir);
      writeFileAtomically(join(dir, PARTITION_METADATA_FILE), partitionMetadataText(topic.topicId));
    }
  }

  async deleteTopic(topic: TopicRef, partitionCount: number): Promise<void> {
    for (let p = 0; p < partitionCount; p++) {
      const dir = this.findPartitionDir(topic.name, p);
      if (dir === null) continue;
      // As Kafka: rename first so the name is free at once, remove the files in the background.
      const doomed = `${dir}.${randomUUID().replaceAll('-', '')}-delete`;
      renameSync(dir, doomed);
      const removal = rm(doomed, { recursive: true, force: true }).catch((err: unknown) =>
        this.log.error('removing a deleted partition failed', { dir: doomed, error: String(err) }),
      );
      this.removals.add(removal);
      void removal.finally(() => this.removals.delete(removal));
    }
  }

  /** No logs are open here, so there is nothing to reconfigure; the partitions must exist. */
  async updateTopicConfig(topic: TopicRef, partitionCount: number, _config: TopicConfigValues): Promise<void> {
    for (let p = 0; p < partitionCount; p++) {
      if (this.findPartitionDir(topic.name, p) === null) throw new Error(`partition ${topic.name}-${p} has no directory`);
    }
  }

  async describeLogDirs(): Promise<LogDirDescription[]> {
    return this.logDirs.map((path) => {
      try {
        const fs = statfsSync(path, { bigint: true });
        const partitions: PartitionLogDescription[] = [];
        for (const name of readdirSync(path)) {
          const m = PARTITION_DIR.exec(name);
          if (m === null || !statSync(join(path, name)).isDirectory()) continue;
          partitions.push({ topic: m[1]!, partition: Number(m[2]), sizeBytes: directorySize(join(path, name)), offsetLag: 0n });
        }
        return { path, errorCode: ErrorCode.NONE, totalBytes: fs.blocks * fs.bsize, usableBytes: fs.bavail * fs.bsize, partitions };
      } catch (err) {
        this.log.error('log dir unreadable', { path, error: String(err) });
        return { path, errorCode: ErrorCode.KAFKA_STORAGE_ERROR, totalBytes: -1n, usableBytes: -1n, partitions: [] };
      }
    });
  }

  /** Waits for background removals of deleted partitions (at shutdown, so none is cut short). */
  async close(): Promise<void> {
    await Promise.all(this.removals);
  }
}
