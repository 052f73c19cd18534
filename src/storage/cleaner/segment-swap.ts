/**
 * The owner's half of compaction: replacing old segments by a cleaned one with Kafka's rename
 * discipline (`LocalLog.replaceSegments`), and finishing a swap a crash interrupted (`LogLoader`).
 *
 *   0. the replaced segments' aborted transactions, concatenated, are written to
 *      `<base>.txnindex.cleaned` (none: no file) — the cleaner keeps every marker, so they stay
 *      true of the cleaned segment;
 *   1. `<base>.{index,timeindex,txnindex,log}.cleaned` → `.swap` (the `.log` last), directory
 *      synced: from here on the swap wins over the old segments.
 *   2. each replaced segment → `.deleted` (open read leases keep their descriptors; the files are
 *      unlinked after `file.delete.delay.ms` once unleased).
 *   3. `.swap` → final names (the `.log` last), directory synced.
 *
 * Recovery at open, before the directory is listed: for each `<base>.log.swap`, every live
 * segment whose base offset lies in [base, swap's next offset) is deleted with its indexes, the
 * swap files are renamed to final names; index swaps (`.index`, `.timeindex`, `.txnindex`) without a `.log.swap`
 * (a crash inside step 1) are deleted, and the loader deletes the `.cleaned` files. So a crash at
 * any point leaves each replaced range wholly old or wholly cleaned. The cleaner guarantees that
 * a swap's last batch covers its last replaced segment (`clean-segments.ts`), so the range test
 * finds every replaced segment.
 *
 * Runs on the partition's owning thread (both at swap time and inside `PartitionLog.open`).
 */
import { closeSync, fsyncSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { syncDirectory } from '../checkpoint/checkpoint-file.js';
import {
  CLEANED_SUFFIX,
  INDEX_SUFFIX,
  LOG_SUFFIX,
  SWAP_SUFFIX,
  TIME_INDEX_SUFFIX,
  TXN_INDEX_SUFFIX,
  baseOffsetOfFile,
  segmentFileStem,
  txnIndexPath,
} from '../file-names.js';
import { encodeAbortedTxn } from '../index/transaction-index.js';
import type { Offset } from '@sluice/protocol/common/offsets.js';
import { walkBatchHeaders } from '../segment/batch-headers.js';
import { LogSegment, type SegmentSettings } from '../segment/log-segment.js';

/** The `.log` goes last in both renames: its presence under a name decides what recovery does. */
const SUFFIXES = [INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX, LOG_SUFFIX] as const;

/** Step 0: the cleaned segment's transaction index, from the segments it replaces. */
export function writeCleanedTxnIndex(dir: string, baseOffset: number, replaced: readonly LogSegment[]): void {
  const entries = replaced.flatMap((segment) => segment.txnIndex.entries);
  if (entries.length === 0) return;
  const fd = openSync(txnIndexPath(dir, baseOffset as Offset) + CLEANED_SUFFIX, 'w');
  try {
    writeSync(fd, Buffer.concat(entries.map(encodeAbortedTxn)));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Step 1 (the transaction index only if there is one). */
export function renameCleanedToSwap(dir: string, baseOffset: number): void {
  const stem = join(dir, segmentFileStem(baseOffset as Offset));
  for (const suffix of SUFFIXES) {
    const rename = (): void => renameSync(stem + suffix + CLEANED_SUFFIX, stem + suffix + SWAP_SUFFIX);
    if (suffix === TXN_INDEX_SUFFIX) ignoreMissing(rename);
    else rename();
  }
  syncDirectory(dir);
}

/** Step 3 (an index whose swap is already renamed, or missing and to be rebuilt, is skipped). */
export function renameSwapToFinal(dir: string, baseOffset: number): void {
  const stem = join(dir, segmentFileStem(baseOffset as Offset));
  for (const suffix of SUFFIXES) {
    if (suffix === LOG_SUFFIX) renameSync(stem + suffix + SWAP_SUFFIX, stem + suffix);
    else ignoreMissing(() => renameSync(stem + suffix + SWAP_SUFFIX, stem + suffix));
  }
  syncDirectory(dir);
}

/**
 * Steps 1-3 for one cleaned segment; `retire` renames a replaced segment to `.deleted` and
 * schedules its unlink (step 2). Returns the new, inactive segment.
 */
export function swapCleanedSegment(
  dir: string,
  baseOffset: number,
  size: number,
  replaced: readonly LogSegment[],
  settings: SegmentSettings,
  retire: (segment: LogSegment) => void,
): LogSegment {
  writeCleanedTxnIndex(dir, baseOffset, replaced);
  renameCleanedToSwap(dir, baseOffset);
  for (const segment of replaced) retire(segment);
  renameSwapToFinal(dir, baseOffset);
  const mtimeMs = statSync(join(dir, segmentFileStem(baseOffset as Offset) + LOG_SUFFIX)).mtimeMs;
  return LogSegment.open(dir, baseOffset as Offset, size, settings, { active: false, indexesPresent: true, mtimeMs });
}

/** Recovery of interrupted swaps; returns how many were completed. */
export function completeInterruptedSwaps(dir: string): number {
  const names = readdirSync(dir);
  const swaps = names.map((n) => baseOffsetOfFile(n, LOG_SUFFIX + SWAP_SUFFIX)).filter((b): b is Offset => b !== null);
  const swapBases = new Set<number>(swaps);
  for (const name of names) {
    const orphan =
      baseOffsetOfFile(name, INDEX_SUFFIX + SWAP_SUFFIX) ??
      baseOffsetOfFile(name, TIME_INDEX_SUFFIX + SWAP_SUFFIX) ??
      baseOffsetOfFile(name, TXN_INDEX_SUFFIX + SWAP_SUFFIX);
    if (orphan !== null && !swapBases.has(orphan)) unlinkSync(join(dir, name));
  }
  for (const base of swaps.sort((a, b) => a - b)) {
    const next = nextOffsetOf(join(dir, segmentFileStem(base) + LOG_SUFFIX + SWAP_SUFFIX), base);
    for (const name of names) {
      const live = baseOffsetOfFile(name, LOG_SUFFIX);
      if (live === null || live < base || live >= next) continue;
      for (const suffix of SUFFIXES) ignoreMissing(() => unlinkSync(join(dir, segmentFileStem(live) + suffix)));
    }
    renameSwapToFinal(dir, base);
  }
  return swaps.length;
}

/** One past the last offset of the batches in a `.swap` file (its base offset when empty). */
function nextOffsetOf(path: string, baseOffset: Offset): number {
  const fd = openSync(path, 'r');
  try {
    let next: number = baseOffset;
    walkBatchHeaders(fd, 0, statSync(path).size, (batch) => {
      next = batch.lastOffset + 1;
      return true;
    });
    return next;
  } finally {
    closeSync(fd);
  }
}

function ignoreMissing(action: () => void): void {
  try {
    action();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}
