/**
 * Kafka's text checkpoint format (`CheckpointFile`), shared by the per-log-dir offset
 * checkpoints and the per-partition leader epoch checkpoint:
 *
 *   0                  version line
 *   2                  number of entries
 *   <entry>            one line per entry, fields separated by single spaces
 *   <entry>
 *
 * Written to `<name>.tmp`, fsynced, renamed over `<name>`, then the directory is fsynced: a crash
 * leaves either the old file or the new one, never a mix. A leftover `.tmp` is ignored on read.
 * Owned by the thread that owns the log dir (or partition) the file belongs to.
 */
import { leaderEpochOf, offsetOf, type LeaderEpoch, type Offset } from '@sluice/protocol/common/offsets.js';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { faultPoint } from '../fault-injection.js';
import { TMP_SUFFIX } from '../file-names.js';

export const CHECKPOINT_VERSION = 0;

export class CorruptCheckpointError extends Error {
  constructor(path: string, reason: string) {
    super(`malformed checkpoint ${path}: ${reason}`);
    this.name = 'CorruptCheckpointError';
  }
}

export interface CheckpointFormat<T> {
  /** Fields of one entry line. */
  format(entry: T): string;
  /** Parses one entry line, or returns null when it is malformed. */
  parse(line: string): T | null;
}

export class CheckpointFile<T> {
  constructor(
    readonly path: string,
    private readonly entryFormat: CheckpointFormat<T>,
  ) {}

  /**
   * `sync: false` skips the fsyncs, for files whose loss a crash recovery repairs anyway (Kafka
   * writes the leader epoch checkpoint that way on every new epoch).
   */
  write(entries: readonly T[], sync = true): void {
    const lines = [String(CHECKPOINT_VERSION), String(entries.length), ...entries.map((e) => this.entryFormat.format(e))];
    const tmp = this.path + TMP_SUFFIX;
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, lines.join('\n') + '\n');
      if (sync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    faultPoint('checkpoint.write');
    renameSync(tmp, this.path);
    if (sync) syncDirectory(dirname(this.path));
  }

  /** The entries, or null when the file does not exist. Throws `CorruptCheckpointError` on a malformed file. */
  read(): T[] | null {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    if (lines.length < 2) throw new CorruptCheckpointError(this.path, 'missing version or count line');
    if (lines[0]!.trim() !== String(CHECKPOINT_VERSION)) throw new CorruptCheckpointError(this.path, `unknown version ${lines[0]}`);
    const count = Number(lines[1]!.trim());
    if (!Number.isSafeInteger(count) || count < 0 || count !== lines.length - 2) {
      throw new CorruptCheckpointError(this.path, `count line says ${lines[1]} but ${lines.length - 2} entries follow`);
    }
    return lines.slice(2).map((line) => {
      const entry = this.entryFormat.parse(line);
      if (entry === null) throw new CorruptCheckpointError(this.path, `bad entry '${line}'`);
      return entry;
    });
  }
}

/** Makes a rename or file creation in `dir` durable. */
export function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function parseNonNegativeInteger(text: string): number | null {
  if (!/^-?\d+$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

export interface PartitionOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
}

/** `topic partition offset` lines: recovery point, log start offset, replication (HW) and cleaner checkpoints. */
export const PARTITION_OFFSET_FORMAT: CheckpointFormat<PartitionOffset> = {
  format: (e) => `${e.topic} ${e.partition} ${e.offset}`,
  parse(line) {
    const fields = line.trim().split(/\s+/);
    if (fields.length !== 3) return null;
    const partition = parseNonNegativeInteger(fields[1]!);
    const offset = parseNonNegativeInteger(fields[2]!);
    if (partition === null || partition < 0 || offset === null) return null;
    return { topic: fields[0]!, partition, offset };
  },
};

export interface EpochEntry {
  readonly epoch: LeaderEpoch;
  readonly startOffset: Offset;
}

/** `epoch startOffset` lines of `leader-epoch-checkpoint`. */
export const EPOCH_ENTRY_FORMAT: CheckpointFormat<EpochEntry> = {
  format: (e) => `${e.epoch} ${e.startOffset}`,
  parse(line) {
    const fields = line.trim().split(/\s+/);
    if (fields.length !== 2) return null;
    const epoch = parseNonNegativeInteger(fields[0]!);
    const startOffset = parseNonNegativeInteger(fields[1]!);
    if (epoch === null || startOffset === null) return null;
    return { epoch: leaderEpochOf(epoch), startOffset: offsetOf(startOffset) };
  },
};
