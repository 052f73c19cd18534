/**
 * One cleaning job (Kafka's `Cleaner.doClean`), the CPU-heavy half of compaction: build the
 * key → offset map from the dirty section, group the segments below its end into runs that fit
 * one segment (Kafka's `groupSegmentsBySize`: total size <= `segment.bytes`, offsets within 32
 * bits of the first base), and write each run's kept batches into a `.cleaned` segment.
 *
 * Every cleaned segment ends with a batch covering its last replaced segment's last batch (the
 * filtered batch, or an empty header with no producer when nothing of it stays). That keeps a
 * `.swap` file's offset range equal to the range it replaces, which is how recovery after a crash
 * knows which old segments a swap supersedes (see `segment-swap.ts`).
 *
 * Reads leased descriptors, writes only `.cleaned` files; on failure removes what it wrote.
 * Stateless: runs on a piscina thread (`clean-worker.ts`) or, in tests, inline.
 */
import { fstatSync } from 'node:fs';
import { BatchLayout } from '@sluice/protocol/records/index.js';
import { INT32_MAX } from '../offsets.js';
import { AbortedData } from './aborted-data.js';
import { emptyBatch, filterBatch, type FilterContext } from './batch-filter.js';
import { buildOffsetMap } from './build-offset-map.js';
import { CleanedSegmentWriter } from './cleaned-segment-writer.js';
import type { CleanedSegment, CleanResult, CleanSegmentInput, CleanTask } from './clean-task.js';
import { segmentBatches, type SegmentBatch } from './segment-batches.js';

export function cleanSegments(task: CleanTask): CleanResult {
  const started = performance.now();
  const aborted = new AbortedData(task.abortedTransactions);
  const {
    map,
    endOffset,
    bytesRead: mapBytes,
  } = buildOffsetMap(task.segments, task.firstDirtyOffset, task.firstUncleanableOffset, task.maxMapEntries, aborted);
  const ctx: FilterContext = {
    map,
    aborted,
    nowMs: task.nowMs,
    deleteRetentionMs: task.deleteRetentionMs,
    producerLastOffsets: new Map(task.producerLastOffsets),
  };
  const stats = { bytesRead: mapBytes, bytesWritten: 0, recordsRead: 0, recordsKept: 0, batchesRewritten: 0 };
  let nextDeleteHorizonMs: number | null = null;
  const cleaned: CleanedSegment[] = [];
  const writers: CleanedSegmentWriter[] = [];
  try {
    for (const group of groupSegments(
      task.segments.filter((s) => s.baseOffset < endOffset),
      task.segmentBytes,
    )) {
      const writer = new CleanedSegmentWriter(task.dir, group[0]!.baseOffset, task);
      writers.push(writer);
      for (const segment of group) {
        let last: SegmentBatch | null = null;
        let lastWritten = false;
        for (const batch of segmentBatches(segment.fd, segment.size)) {
          last = batch;
          const filtered = filterBatch(batch.bytes, batch.header, ctx);
          stats.recordsRead += filtered.recordsRead;
          stats.recordsKept += filtered.recordsKept;
          if (filtered.rewritten) stats.batchesRewritten++;
          if (filtered.deleteHorizonMs !== null) nextDeleteHorizonMs = Math.min(nextDeleteHorizonMs ?? Infinity, filtered.deleteHorizonMs);
          lastWritten = filtered.bytes !== null;
          if (filtered.bytes !== null) appendBatch(writer, filtered.bytes, batch);
        }
        stats.bytesRead += segment.size;
        if (segment === group[group.length - 1] && last !== null && !lastWritten) appendBatch(writer, emptyBatch(last.header, false), last);
      }
      const size = writer.finish(Math.max(...group.map((s) => fstatSync(s.fd).mtimeMs)));
      stats.bytesWritten += size;
      cleaned.push({ baseOffset: writer.baseOffset, replaces: group.map((s) => s.baseOffset), size });
    }
  } catch (e) {
    for (const writer of writers) writer.abort();
    throw e;
  }
  return {
    cleaned,
    endOffset,
    nextDeleteHorizonMs,
    stats: { ...stats, mapEntries: map.size, durationMs: performance.now() - started },
  };
}

function appendBatch(writer: CleanedSegmentWriter, bytes: Buffer, source: SegmentBatch): void {
  const lastOffset = Number(source.header.baseOffset) + source.header.lastOffsetDelta;
  const rewritten = bytes === source.bytes ? source.header.maxTimestamp : bytes.readBigInt64BE(BatchLayout.MAX_TIMESTAMP_OFFSET);
  writer.append(bytes, lastOffset, Number(rewritten));
}

/** Kafka's `groupSegmentsBySize`, by the sizes before cleaning (a cleaned run is rarely larger: only recompression can grow it). */
export function groupSegments(segments: readonly CleanSegmentInput[], maxBytes: number): CleanSegmentInput[][] {
  const groups: CleanSegmentInput[][] = [];
  let current: CleanSegmentInput[] = [];
  let bytes = 0;
  for (const segment of segments) {
    const first = current[0];
    const fits = first !== undefined && bytes + segment.size <= maxBytes && segment.nextOffset - 1 - first.baseOffset <= INT32_MAX;
    if (!fits && current.length > 0) {
      groups.push(current);
      current = [];
      bytes = 0;
    }
    current.push(segment);
    bytes += segment.size;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}
