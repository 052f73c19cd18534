/**
 * Writes one cleaned segment beside the live ones, under Kafka's temporary names:
 *
 *   <base>.log.cleaned        the kept batches, back to back, offsets unchanged
 *   <base>.index.cleaned      (u32 relative offset, u32 position) of a batch's last offset
 *   <base>.timeindex.cleaned  (i64 timestamp, u32 relative offset), then the final max entry
 *
 * Index entries follow `LogSegment`'s rule (an entry once more than `index.interval.bytes` were
 * written since the last one; a time entry with it when the max timestamp grew; a final time
 * entry holding the segment's max), so the result is what the live code would have written.
 * A full index simply stops taking entries: lookups then walk further, nothing breaks. Files are
 * fdatasynced and the index files trimmed before `finish` returns; the mtime of the `.log` is set
 * to the newest replaced segment's (Kafka does the same, so time-based retention is not reset).
 *
 * Crash behaviour: until the owner renames them, these files are garbage that the next open
 * deletes (`.cleaned`). Runs on a cleaner thread; one writer per cleaned segment.
 */
import { closeSync, fdatasyncSync, openSync, unlinkSync, utimesSync, writeSync } from 'node:fs';
import { CLEANED_SUFFIX, logFilePath, offsetIndexPath, timeIndexPath } from '../file-names.js';
import type { Offset } from '@sluice/protocol/common/offsets.js';

const OFFSET_ENTRY = 8;
const TIME_ENTRY = 12;
const WRITE_BUFFER_BYTES = 1024 * 1024;

export interface IndexSettings {
  readonly indexIntervalBytes: number;
  readonly maxIndexBytes: number;
}

export function cleanedPaths(dir: string, baseOffset: number): { log: string; index: string; timeIndex: string } {
  const base = baseOffset as Offset;
  return {
    log: logFilePath(dir, base) + CLEANED_SUFFIX,
    index: offsetIndexPath(dir, base) + CLEANED_SUFFIX,
    timeIndex: timeIndexPath(dir, base) + CLEANED_SUFFIX,
  };
}

export class CleanedSegmentWriter {
  readonly baseOffset: number;
  readonly #paths: ReturnType<typeof cleanedPaths>;
  readonly #settings: IndexSettings;
  readonly #fd: number;
  readonly #pending = Buffer.allocUnsafe(WRITE_BUFFER_BYTES);
  #pendingBytes = 0;
  #size = 0;
  #bytesSinceLastEntry = 0;
  #maxTimestamp = -1;
  #maxTimestampOffset: number;
  readonly #offsetEntries: Buffer;
  #offsetCount = 0;
  readonly #timeEntries: Buffer;
  #timeCount = 0;

  constructor(dir: string, baseOffset: number, settings: IndexSettings) {
    this.baseOffset = baseOffset;
    this.#paths = cleanedPaths(dir, baseOffset);
    this.#settings = settings;
    this.#maxTimestampOffset = baseOffset;
    this.#offsetEntries = Buffer.alloc(Math.floor(settings.maxIndexBytes / OFFSET_ENTRY) * OFFSET_ENTRY);
    this.#timeEntries = Buffer.alloc(Math.floor(settings.maxIndexBytes / TIME_ENTRY) * TIME_ENTRY);
    this.#fd = openSync(this.#paths.log, 'w', 0o644);
  }

  get size(): number {
    return this.#size;
  }

  /** Appends one batch (offsets already in it) and indexes it. */
  append(batch: Buffer, lastOffset: number, maxTimestamp: number): void {
    const position = this.#size;
    if (maxTimestamp > this.#maxTimestamp) {
      this.#maxTimestamp = maxTimestamp;
      this.#maxTimestampOffset = lastOffset;
    }
    if (this.#bytesSinceLastEntry > this.#settings.indexIntervalBytes) {
      this.#appendOffsetEntry(lastOffset, position);
      this.#appendTimeEntry(false);
      this.#bytesSinceLastEntry = 0;
    }
    this.#bytesSinceLastEntry += batch.length;
    this.#write(batch);
    this.#size += batch.length;
  }

  /** Flushes, syncs and closes the `.log`, writes both indexes; returns the `.log` size. */
  finish(mtimeMs: number): number {
    try {
      this.#flushPending();
      fdatasyncSync(this.#fd);
    } finally {
      closeSync(this.#fd);
    }
    this.#appendTimeEntry(true);
    writeSynced(this.#paths.index, this.#offsetEntries.subarray(0, this.#offsetCount * OFFSET_ENTRY));
    writeSynced(this.#paths.timeIndex, this.#timeEntries.subarray(0, this.#timeCount * TIME_ENTRY));
    const seconds = mtimeMs / 1000;
    utimesSync(this.#paths.log, seconds, seconds);
    return this.#size;
  }

  /** Closes if still open and deletes whatever was written. */
  abort(): void {
    try {
      closeSync(this.#fd);
    } catch {
      // already closed by finish
    }
    removeCleanedFiles(this.#paths);
  }

  #appendOffsetEntry(lastOffset: number, position: number): void {
    if ((this.#offsetCount + 1) * OFFSET_ENTRY > this.#offsetEntries.length) return;
    const at = this.#offsetCount++ * OFFSET_ENTRY;
    this.#offsetEntries.writeUInt32BE(lastOffset - this.baseOffset, at);
    this.#offsetEntries.writeUInt32BE(position, at + 4);
  }

  /** TimeIndex.maybeAppend: only a larger timestamp; one slot is kept for the final entry. */
  #appendTimeEntry(final: boolean): void {
    if (this.#maxTimestamp < 0) return;
    const capacity = this.#timeEntries.length / TIME_ENTRY;
    if (this.#timeCount >= (final ? capacity : capacity - 1)) return;
    if (this.#timeCount > 0 && this.#maxTimestamp <= this.#timeEntries.readBigInt64BE((this.#timeCount - 1) * TIME_ENTRY)) return;
    const at = this.#timeCount++ * TIME_ENTRY;
    this.#timeEntries.writeBigInt64BE(BigInt(this.#maxTimestamp), at);
    this.#timeEntries.writeUInt32BE(this.#maxTimestampOffset - this.baseOffset, at + 8);
  }

  #write(batch: Buffer): void {
    if (this.#pendingBytes + batch.length > this.#pending.length) this.#flushPending();
    if (batch.length > this.#pending.length) {
      writeAll(this.#fd, batch);
      return;
    }
    batch.copy(this.#pending, this.#pendingBytes);
    this.#pendingBytes += batch.length;
  }

  #flushPending(): void {
    writeAll(this.#fd, this.#pending.subarray(0, this.#pendingBytes));
    this.#pendingBytes = 0;
  }
}

/** Deletes a cleaned segment's three files, those that exist. */
export function removeCleanedFiles(paths: ReturnType<typeof cleanedPaths>): void {
  for (const path of [paths.log, paths.index, paths.timeIndex]) {
    try {
      unlinkSync(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}

function writeSynced(path: string, bytes: Buffer): void {
  const fd = openSync(path, 'w', 0o644);
  try {
    writeAll(fd, bytes);
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
