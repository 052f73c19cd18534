/**
 * One segment of a partition log: `<base offset>.log` plus its `.index` and `.timeindex`, and
 * its `.txnindex` once a transaction aborted in it (`TransactionIndex`).
 *
 * `.log` holds magic-2 record batches exactly as produced, with offsets assigned, back to back;
 * a fetch sends its bytes unchanged. Appends go at the end with one positional write per
 * request; `size` moves only after the write succeeded, so a failed or torn write is never
 * counted and the next write (or recovery) overwrites it.
 *
 * Indexes are opened lazily and sanity-checked at first use; one that fails the check, or is
 * missing, is rebuilt from the `.log` (never trusted). After a crash, `recover` rescans the
 * `.log` with CRC checks, truncates the torn tail and rebuilds both indexes; the log loader then
 * empties the transaction index, which its producer state scan rebuilds from the markers.
 *
 * Reads hand out leases on the `.log` descriptor (`SegmentFile`); a truncation while leases are
 * outstanding writes a new file and swaps it in, so a send in progress keeps its bytes.
 *
 * Owned by one thread (the partition's worker); not safe to share.
 */
import {
  closeSync,
  constants,
  copyFileSync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { decompress } from '../../native/index.js';
import { readBatchHeader, readRecords } from '@sluice/protocol/records/index.js';
import { faultPoint } from '../fault-injection.js';
import { CLEANED_SUFFIX, DELETED_SUFFIX, logFilePath, offsetIndexPath, timeIndexPath, txnIndexPath } from '../file-names.js';
import type { LogConfig } from '../log-config.js';
import { fitsRelative, type FilePosition } from '../offsets.js';
import { type Offset } from '@sluice/protocol/common/offsets.js';
import { CorruptIndexError } from '../storage-error.js';
import { OffsetIndex } from '../index/offset-index.js';
import { NO_TIMESTAMP, TimeIndex, type TimestampOffset } from '../index/time-index.js';
import { TransactionIndex } from '../index/transaction-index.js';
import { findBatchContaining, readFully, walkBatchHeaders, type BatchLocation } from './batch-headers.js';
import { scanValidBatches } from './batch-validation-scan.js';
import { SegmentFile, type FileLease } from './segment-file.js';

/** One batch of an append, located inside the appended buffer. */
export interface AppendedBatch {
  readonly start: number;
  readonly size: number;
  readonly lastOffset: Offset;
  readonly maxTimestamp: number;
}

export interface SegmentSlice {
  readonly position: FilePosition;
  readonly length: number;
  /** The batch the slice starts with. */
  readonly firstBatch: BatchLocation;
}

export interface SegmentSettings {
  readonly indexIntervalBytes: number;
  readonly maxIndexBytes: number;
  /** Kafka's per-segment random jitter on `segment.ms`, fixed when the segment is created. */
  readonly rollJitterMs: number;
}

export function segmentSettings(config: LogConfig): SegmentSettings {
  const jitterMax = Math.min(config['segment.jitter.ms'], config['segment.ms']);
  return {
    indexIntervalBytes: config['index.interval.bytes'],
    maxIndexBytes: config['segment.index.bytes'],
    rollJitterMs: jitterMax > 0 ? Math.floor(Math.random() * jitterMax) : 0,
  };
}

export class LogSegment {
  readonly baseOffset: Offset;
  readonly offsetIndex: OffsetIndex;
  readonly timeIndex: TimeIndex;
  readonly txnIndex: TransactionIndex;
  readonly rollJitterMs: number;

  #dir: string;
  #file: SegmentFile;
  #size: number;
  #settings: SegmentSettings;
  /** Indexes need their first-use check (or a rebuild, when a file was missing). */
  #indexState: 'unchecked' | 'missing' | 'ready';
  #bytesSinceLastIndexEntry = 0;
  /** Largest batch timestamp and the last offset of its batch; null until first needed. */
  #maxTimestamp: TimestampOffset | null = null;
  /** Max timestamp of the first batch: `segment.ms` counts from it (Kafka's rollingBasedTimestamp). */
  #rollingBasedTimestamp: number | null | undefined;
  #createdMs: number;
  #deleted = false;

  private constructor(
    dir: string,
    baseOffset: Offset,
    file: SegmentFile,
    size: number,
    settings: SegmentSettings,
    active: boolean,
    indexesPresent: boolean,
    createdMs: number,
  ) {
    this.#dir = dir;
    this.baseOffset = baseOffset;
    this.#file = file;
    this.#size = size;
    this.#settings = settings;
    this.rollJitterMs = settings.rollJitterMs;
    this.offsetIndex = new OffsetIndex(offsetIndexPath(dir, baseOffset), baseOffset, settings.maxIndexBytes, active);
    this.timeIndex = new TimeIndex(timeIndexPath(dir, baseOffset), baseOffset, settings.maxIndexBytes, active);
    this.txnIndex = new TransactionIndex(txnIndexPath(dir, baseOffset));
    this.#indexState = indexesPresent ? 'unchecked' : 'missing';
    this.#createdMs = createdMs;
    this.#rollingBasedTimestamp = size === 0 ? null : undefined;
  }

  /** A new, empty, active segment. */
  static create(dir: string, baseOffset: Offset, settings: SegmentSettings, nowMs: number): LogSegment {
    faultPoint('segment.roll');
    const file = SegmentFile.open(logFilePath(dir, baseOffset), true);
    try {
      ftruncateSync(file.fd, 0);
      const segment = new LogSegment(dir, baseOffset, file, 0, settings, true, true, nowMs);
      segment.offsetIndex.reset();
      segment.timeIndex.reset();
      segment.txnIndex.reset();
      segment.#indexState = 'ready';
      return segment;
    } catch (e) {
      file.close();
      throw e;
    }
  }

  /** An existing segment; `size` comes from the directory listing's stat, nothing is read. */
  static open(
    dir: string,
    baseOffset: Offset,
    size: number,
    settings: SegmentSettings,
    options: { active: boolean; indexesPresent: boolean; mtimeMs: number },
  ): LogSegment {
    const file = SegmentFile.open(logFilePath(dir, baseOffset), false);
    return new LogSegment(dir, baseOffset, file, size, settings, options.active, options.indexesPresent, options.mtimeMs);
  }

  get size(): number {
    return this.#size;
  }

  get path(): string {
    return this.#file.path;
  }

  get leases(): number {
    return this.#file.leases;
  }

  get isDeleted(): boolean {
    return this.#deleted;
  }

  updateSettings(settings: SegmentSettings): void {
    this.#settings = { ...settings, rollJitterMs: this.rollJitterMs };
  }

  // ---- appends ---------------------------------------------------------------------------

  /**
   * Writes `bytes` (whole batches, offsets assigned) at the end with one write call, then indexes
   * them as Kafka does: an offset index entry (last offset of the batch, its position) once more
   * than `index.interval.bytes` were appended since the previous entry, with a time index entry
   * when the largest timestamp has grown.
   */
  append(bytes: Buffer, batches: readonly AppendedBatch[]): void {
    this.#readyIndexes();
    const position = this.#size;
    faultPoint('append.beforeWrite');
    try {
      writeFully(this.#file.fd, bytes, position);
      faultPoint('append.afterWrite');
    } catch (e) {
      // Best effort: drop a partial write now. If this fails too, recovery drops it, since
      // `size` never counted it.
      try {
        ftruncateSync(this.#file.fd, position);
      } catch {
        // the log dir is going offline anyway
      }
      throw e;
    }
    this.maxTimestampSoFar();
    for (const batch of batches)
      this.#indexBatch((position + batch.start) as FilePosition, batch.size, batch.lastOffset, batch.maxTimestamp);
    this.#size = position + bytes.length;
  }

  /** Kafka's `shouldRoll` minus the size test, which the log makes against the incoming bytes. */
  indexesFull(): boolean {
    this.#readyIndexes();
    return this.offsetIndex.isFull || this.timeIndex.isFull;
  }

  canHold(lastOffset: Offset): boolean {
    return fitsRelative(this.baseOffset, lastOffset);
  }

  /** Time since the segment's first batch (by that batch's timestamp) or since it was created. */
  timeWaitedForRoll(nowMs: number, incomingMaxTimestamp: number): number {
    const first = this.#firstBatchTimestamp();
    if (first !== null && first >= 0) return incomingMaxTimestamp - first;
    return Math.max(0, nowMs - this.#createdMs);
  }

  // ---- reads -----------------------------------------------------------------------------

  /** The batch holding `offset` (or the first one after it), searching from the index entry below it. */
  translateOffset(offset: Offset, startingPosition = 0): BatchLocation | null {
    this.#readyIndexes();
    const entry = this.offsetIndex.lookup(offset);
    return findBatchContaining(this.#file.fd, Math.max(entry.position, startingPosition), this.#size, offset);
  }

  /**
   * Kafka's `LogSegment.read`: from the batch holding `offset`, up to `maxBytes` (but a whole
   * first batch when `minOneMessage`, KIP-74), never past `maxPosition`. The slice may end inside
   * a batch; clients skip a partial batch at the end of a fetch.
   */
  read(offset: Offset, maxBytes: number, maxPosition: number, minOneMessage: boolean): SegmentSlice | null {
    const first = this.translateOffset(offset);
    if (first === null) return null;
    const limit = Math.min(maxPosition, this.#size);
    if (first.position >= limit) return { position: first.position, length: 0, firstBatch: first };
    const wanted = minOneMessage ? Math.max(maxBytes, first.size) : maxBytes;
    return { position: first.position, length: Math.min(limit - first.position, wanted), firstBatch: first };
  }

  /** A lease on the `.log` descriptor for a read; released by whoever finishes the send. */
  lease(): FileLease {
    return this.#file.lease();
  }

  /** Copies `length` bytes at `position` into memory. */
  readBytes(position: number, length: number): Buffer {
    const buf = Buffer.allocUnsafe(length);
    const n = readFully(this.#file.fd, buf, length, position);
    return n === length ? buf : buf.subarray(0, n);
  }

  /**
   * Kafka's `findOffsetByTimestamp`: the first record at or after `startingOffset` whose timestamp
   * is >= `timestamp`, found through the time index, the offset index, a scan of batch headers
   * and a walk of the records of the one batch that qualifies.
   */
  findOffsetByTimestamp(timestamp: number, startingOffset: Offset): TimestampOffset | null {
    this.#readyIndexes();
    const indexed = this.timeIndex.lookup(timestamp);
    const from = this.offsetIndex.lookup(Math.max(indexed.offset, startingOffset) as Offset).position;
    let candidate: BatchLocation | null = null;
    walkBatchHeaders(this.#file.fd, from, this.#size, (batch) => {
      if (batch.maxTimestamp < timestamp || batch.lastOffset < startingOffset) return true;
      candidate = batch;
      return false;
    });
    if (candidate === null) return null;
    return this.#firstRecordAtOrAfter(candidate, timestamp, startingOffset);
  }

  /** The record holding the segment's largest timestamp (ListOffsets -3), or null if empty. */
  offsetOfMaxTimestamp(): TimestampOffset | null {
    const max = this.maxTimestampSoFar();
    if (max.timestamp === NO_TIMESTAMP || this.#size === 0) return null;
    const batch = this.translateOffset(max.offset);
    if (batch === null) return null;
    return this.#firstRecordAtOrAfter(batch, max.timestamp, this.baseOffset);
  }

  #firstRecordAtOrAfter(batch: BatchLocation, timestamp: number, startingOffset: Offset): TimestampOffset | null {
    const bytes = this.readBytes(batch.position, batch.size);
    const header = readBatchHeader(bytes, 0);
    if (header === null) return null;
    for (const record of readRecords(bytes, header, { decompress })) {
      const recordTimestamp = Number(record.timestamp);
      const recordOffset = Number(record.offset) as Offset;
      if (recordTimestamp >= timestamp && recordOffset >= startingOffset) return { timestamp: recordTimestamp, offset: recordOffset };
    }
    return null;
  }

  /**
   * Largest batch timestamp and its offset. After a clean close the time index's last entry holds
   * it (written at roll and close); the batches after the last offset index entry are scanned in
   * case they are newer (after a truncation, or for an index written by another broker).
   */
  maxTimestampSoFar(): TimestampOffset {
    if (this.#maxTimestamp !== null) return this.#maxTimestamp;
    this.#readyIndexes();
    let max = this.timeIndex.lastEntry();
    walkBatchHeaders(this.#file.fd, this.offsetIndex.lastEntry().position, this.#size, (batch) => {
      if (batch.maxTimestamp > max.timestamp) max = { timestamp: batch.maxTimestamp, offset: batch.lastOffset };
      return true;
    });
    this.#maxTimestamp = max;
    return max;
  }

  /** For retention: the largest timestamp, or the file's mtime when no batch carries one (Kafka). */
  largestTimestamp(): number {
    const max = this.maxTimestampSoFar().timestamp;
    return max >= 0 ? max : fstatSync(this.#file.fd).mtimeMs;
  }

  /** Offset after the last batch (the active segment's part of the log end offset). */
  readNextOffset(): Offset {
    this.#readyIndexes();
    let next = this.baseOffset;
    walkBatchHeaders(this.#file.fd, this.offsetIndex.lastEntry().position, this.#size, (batch) => {
      next = (batch.lastOffset + 1) as Offset;
      return true;
    });
    return next;
  }

  /** Max timestamp of the first batch, or null when empty (compaction's `max.compaction.lag.ms` reads it). */
  firstBatchTimestamp(): number | null {
    return this.#firstBatchTimestamp();
  }

  #firstBatchTimestamp(): number | null {
    if (this.#rollingBasedTimestamp === undefined) {
      let first: number | null = null;
      walkBatchHeaders(this.#file.fd, 0, this.#size, (batch) => {
        first = batch.maxTimestamp;
        return false;
      });
      this.#rollingBasedTimestamp = first;
    }
    return this.#rollingBasedTimestamp;
  }

  // ---- recovery --------------------------------------------------------------------------

  /**
   * Rescans the whole `.log`: checks framing and CRC of every batch and that offsets increase
   * inside this segment's range, rebuilds both indexes, truncates everything after the last valid
   * batch. Returns the number of bytes truncated.
   */
  recover(): number {
    const active = this.offsetIndex.writable;
    this.offsetIndex.becomeWritable(this.#settings.maxIndexBytes);
    this.timeIndex.becomeWritable(this.#settings.maxIndexBytes);
    this.offsetIndex.reset();
    this.timeIndex.reset();
    this.#bytesSinceLastIndexEntry = 0;
    this.#maxTimestamp = { timestamp: NO_TIMESTAMP, offset: this.baseOffset };
    this.#rollingBasedTimestamp = null;
    let previousLast = this.baseOffset - 1;
    const validBytes = scanValidBatches(this.#file.fd, this.#size, (header, position) => {
      const baseOffset = Number(header.baseOffset) as Offset;
      const lastOffset = (baseOffset + header.lastOffsetDelta) as Offset;
      if (baseOffset <= previousLast || lastOffset < baseOffset || !this.canHold(lastOffset)) return false;
      if (this.offsetIndex.isFull || this.timeIndex.isFull) return false;
      this.#indexBatch(position, header.end - header.start, lastOffset, Number(header.maxTimestamp));
      previousLast = lastOffset;
      return true;
    });
    const truncated = this.#size - validBytes;
    if (truncated > 0) ftruncateSync(this.#file.fd, validBytes);
    this.#size = validBytes;
    this.#indexState = 'ready';
    if (!active) this.becomeInactive();
    return truncated;
  }

  /** Index bookkeeping for one batch already in the file; `#maxTimestamp` must be loaded. */
  #indexBatch(position: FilePosition, size: number, lastOffset: Offset, maxTimestamp: number): void {
    if (this.#rollingBasedTimestamp === null) this.#rollingBasedTimestamp = maxTimestamp;
    const max = this.#maxTimestamp!;
    if (maxTimestamp > max.timestamp) this.#maxTimestamp = { timestamp: maxTimestamp, offset: lastOffset };
    if (this.#bytesSinceLastIndexEntry > this.#settings.indexIntervalBytes) {
      this.offsetIndex.append(lastOffset, position);
      this.timeIndex.maybeAppend(this.#maxTimestamp!.timestamp, this.#maxTimestamp!.offset);
      this.#bytesSinceLastIndexEntry = 0;
    }
    this.#bytesSinceLastIndexEntry += size;
  }

  /** First use of the indexes: sanity-check them, rebuild them if they fail or are missing. */
  #readyIndexes(): void {
    if (this.#indexState === 'ready') return;
    if (this.#indexState === 'unchecked') {
      try {
        this.offsetIndex.sanityCheck(this.#size);
        this.timeIndex.sanityCheck();
        this.#indexState = 'ready';
        return;
      } catch (e) {
        if (!(e instanceof CorruptIndexError)) throw e;
      }
    }
    this.recover();
  }

  /** Forces the first-use check now (tests, tools). */
  checkIndexes(): void {
    this.#readyIndexes();
  }

  // ---- life cycle ------------------------------------------------------------------------

  /** The segment rolled: record the final time index entry, trim both indexes, map them read-only. */
  becomeInactive(): void {
    this.#readyIndexes();
    const max = this.maxTimestampSoFar();
    if (max.timestamp !== NO_TIMESTAMP) this.timeIndex.maybeAppend(max.timestamp, max.offset, true);
    this.offsetIndex.becomeReadOnly();
    this.timeIndex.becomeReadOnly();
  }

  /** A truncation made this segment the last one again. */
  becomeActive(): void {
    this.#readyIndexes();
    this.offsetIndex.becomeWritable(this.#settings.maxIndexBytes);
    this.timeIndex.becomeWritable(this.#settings.maxIndexBytes);
  }

  /** Writes the file and index pages to the device. */
  flush(): void {
    faultPoint('segment.flush');
    fdatasyncSync(this.#file.fd);
    this.offsetIndex.flush();
    this.timeIndex.flush();
    this.txnIndex.flush();
  }

  /**
   * Drops every batch from the one holding `offset` on (Kafka's truncateTo; the follower path).
   * If reads hold leases on the file, the kept prefix is copied to a new file that replaces the
   * old name, so the bytes being sent do not change under the sender. Returns bytes removed.
   */
  truncateTo(offset: Offset): number {
    const batch = this.translateOffset(offset);
    if (batch === null) return 0;
    this.offsetIndex.truncateTo(offset);
    this.timeIndex.truncateTo(offset);
    this.txnIndex.truncateTo(offset);
    const removed = this.#size - batch.position;
    if (this.#file.leases > 0) this.#replaceWithPrefix(batch.position);
    else ftruncateSync(this.#file.fd, batch.position);
    this.#size = batch.position;
    this.#bytesSinceLastIndexEntry = 0;
    this.#maxTimestamp = null;
    if (this.#size === 0) this.#rollingBasedTimestamp = null;
    return removed;
  }

  #replaceWithPrefix(length: number): void {
    const path = logFilePath(this.#dir, this.baseOffset);
    const tmp = path + CLEANED_SUFFIX;
    copyFileSync(path, tmp);
    const fd = openSync(tmp, constants.O_RDWR);
    try {
      ftruncateSync(fd, length);
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
    this.#file.close();
    this.#file = SegmentFile.open(path, false);
  }

  /** Clean close: final time index entry, indexes trimmed, descriptor released (or left to the leases). */
  close(): void {
    if (this.offsetIndex.writable && this.#indexState === 'ready') {
      const max = this.maxTimestampSoFar();
      if (max.timestamp !== NO_TIMESTAMP) this.timeIndex.maybeAppend(max.timestamp, max.offset, true);
    }
    this.offsetIndex.close();
    this.timeIndex.close();
    this.txnIndex.flush();
    this.#file.close();
  }

  /** Closes without trimming or final entries, leaving files as a crash would (tests). */
  abandon(): void {
    this.offsetIndex.unmapOnly();
    this.timeIndex.unmapOnly();
    this.#file.close();
  }

  /**
   * Step one of deletion: rename the three files with `.deleted` and let go of them. Open leases
   * keep reading the renamed file; `deleteFiles` unlinks it later.
   */
  markDeleted(): void {
    faultPoint('segment.delete');
    this.offsetIndex.unmapOnly();
    this.timeIndex.unmapOnly();
    for (const index of [this.offsetIndex, this.timeIndex]) {
      renameIfExists(index.path, index.path + DELETED_SUFFIX);
      index.setPath(index.path + DELETED_SUFFIX);
    }
    this.txnIndex.renameTo(this.txnIndex.path + DELETED_SUFFIX);
    const path = this.#file.path;
    renameSync(path, path + DELETED_SUFFIX);
    this.#file.setPath(path + DELETED_SUFFIX);
    this.#file.close();
    this.#deleted = true;
  }

  /** Step two: unlink the `.deleted` files. */
  deleteFiles(): void {
    for (const path of [this.#file.path, this.offsetIndex.path, this.timeIndex.path, this.txnIndex.path]) unlinkIfExists(path);
  }
}

function writeFully(fd: number, bytes: Buffer, position: number): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}

function renameIfExists(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

function unlinkIfExists(path: string): void {
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}
