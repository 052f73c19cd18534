/**
 * What the partition owner hands a cleaner thread, and what comes back. Plain data (numbers,
 * strings, bigints, arrays), so it crosses `postMessage` by structured clone.
 *
 * The segments are named by file descriptor, not path: worker threads share the process's
 * descriptor table, and the owner holds a read lease on each one until the job settles, so the
 * bytes stay readable even if retention renames the file meanwhile (PITFALLS: fd reuse).
 */
import type { AbortedRange } from './aborted-data.js';

export interface CleanSegmentInput {
  readonly baseOffset: number;
  /** One past the segment's last offset: the next segment's base offset. */
  readonly nextOffset: number;
  /** A leased descriptor of the `.log`, valid until the job settles. */
  readonly fd: number;
  readonly size: number;
}

export interface CleanTask {
  /** The partition directory, where `<base>.log.cleaned` and its indexes are written. */
  readonly dir: string;
  /** Every segment below the first uncleanable offset, oldest first (the log's inactive prefix). */
  readonly segments: readonly CleanSegmentInput[];
  /** The key → offset map is built from [firstDirtyOffset, firstUncleanableOffset). */
  readonly firstDirtyOffset: number;
  readonly firstUncleanableOffset: number;
  readonly nowMs: number;
  readonly deleteRetentionMs: number;
  /** Target size of a cleaned segment (`segment.bytes`): small neighbours are merged up to it. */
  readonly segmentBytes: number;
  readonly indexIntervalBytes: number;
  readonly maxIndexBytes: number;
  /** Soft bound on distinct keys: the map stops growing at the first segment end past it. */
  readonly maxMapEntries: number;
  /** Producer id → last offset of its last data batch: that batch is kept, empty if need be (Kafka's RETAIN_EMPTY). */
  readonly producerLastOffsets: ReadonlyArray<readonly [bigint, number]>;
  /** The aborted transactions of the cleaned range (from the transaction indexes): their data is dropped. */
  readonly abortedTransactions: readonly AbortedRange[];
}

export interface CleanedSegment {
  /** Written as `<baseOffset>.log.cleaned` (+ `.index.cleaned`, `.timeindex.cleaned`), synced. */
  readonly baseOffset: number;
  /** Base offsets of the segments it replaces, the first equal to `baseOffset`. */
  readonly replaces: readonly number[];
  readonly size: number;
}

export interface CleanStats {
  readonly bytesRead: number;
  readonly bytesWritten: number;
  readonly recordsRead: number;
  readonly recordsKept: number;
  readonly batchesRewritten: number;
  readonly mapEntries: number;
  readonly durationMs: number;
}

export interface CleanResult {
  readonly cleaned: readonly CleanedSegment[];
  /** The new first dirty offset (`cleaner-offset-checkpoint`): where the map stopped. */
  readonly endOffset: number;
  /** Earliest delete horizon of a batch still holding tombstones, or null: when the next cleaning can drop them. */
  readonly nextDeleteHorizonMs: number | null;
  readonly stats: CleanStats;
}
