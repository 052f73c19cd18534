/**
 * Rebuilds a partition's producer table from its snapshots and its segments (Kafka's
 * `UnifiedLog.rebuildProducerState` / `loadProducersFromRecords`), at open and after truncation:
 *
 * - no snapshot at all after a clean shutdown (a log written before producer state existed):
 *   empty snapshots at the last two segment bases and the log end, no scan — Kafka's upgrade
 *   shortcut;
 * - otherwise: the newest snapshot at or below the log end, then every batch from there to the
 *   log end, walking batch headers only (no payload is read); snapshots are taken at the last two
 *   segment bases on the way and at the log end, so the next open scans little.
 *
 * After a clean close there is a snapshot at the log end and nothing is scanned. Batches are
 * applied as the follower's are: no sequence check, the epoch of the newest batch wins. A
 * transaction marker (read whole: one small record) ends its producer's transaction; an abort is
 * added to its segment's `.txnindex` unless the index holds it already, so a scan after a
 * truncation adds nothing and one over segments whose index recovery emptied rebuilds it
 * (Kafka's `LogSegment.recover` with producer state).
 */
import { BatchLayout, readBatchHeader } from '@sluice/protocol/records/index.js';
import type { Offset } from '@sluice/protocol/common/offsets.js';
import { readFully, walkBatchHeaders, type BatchLocation } from '../segment/batch-headers.js';
import type { LogSegment } from '../segment/log-segment.js';
import { carriesProducerState, isProducerControl } from './producer-state-entry.js';
import type { ProducerStateManager } from './producer-state-manager.js';
import { abortedTxnEntry, readTxnMarker } from './txn-marker.js';

/** From `attributes` through `baseSequence`: the header fields the walk does not return. */
const FIELDS_START = BatchLayout.ATTRIBUTES_OFFSET;
const FIELDS_BYTES = BatchLayout.RECORDS_COUNT_OFFSET - FIELDS_START;
const fields = Buffer.alloc(FIELDS_BYTES);

export interface ProducerStateRebuild {
  readonly segments: readonly LogSegment[];
  readonly logStartOffset: Offset;
  readonly logEndOffset: Offset;
  readonly nowMs: number;
  readonly reloadFromCleanShutdown: boolean;
}

export function rebuildProducerState(state: ProducerStateManager, rebuild: ProducerStateRebuild): void {
  const { segments, logStartOffset, logEndOffset, nowMs } = rebuild;
  const snapshotAt = new Set<Offset>([...segments.slice(-2).map((s) => s.baseOffset), logEndOffset]);
  if (state.latestSnapshotOffset === null && rebuild.reloadFromCleanShutdown) {
    for (const offset of [...snapshotAt].sort((a, b) => a - b)) {
      state.updateMapEndOffset(offset);
      state.takeSnapshot();
    }
    return;
  }
  // A table that was already empty at this end stays empty: skip the scan (Kafka's shortcut for
  // partitions nobody writes to idempotently).
  const emptyBefore = state.isEmpty && state.mapEndOffset >= logEndOffset;
  state.truncateAndReload(logStartOffset, logEndOffset, nowMs);
  if (logEndOffset > state.mapEndOffset && !emptyBefore) {
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i]!;
      const segmentEnd = segments[i + 1]?.baseOffset ?? Infinity;
      if (segmentEnd <= state.mapEndOffset) continue;
      if (segment.baseOffset >= logEndOffset) break;
      const from = Math.max(segment.baseOffset, state.mapEndOffset, logStartOffset) as Offset;
      state.updateMapEndOffset(from);
      if (snapshotAt.has(segment.baseOffset)) state.takeSnapshot();
      scanSegment(state, segment, from, logEndOffset);
    }
  }
  state.updateMapEndOffset(logEndOffset);
  state.takeSnapshot();
}

/** Applies the producer batches of `segment` from the one holding `from` to the last before `to`. */
function scanSegment(state: ProducerStateManager, segment: LogSegment, from: Offset, to: Offset): void {
  const first = segment.translateOffset(from);
  if (first === null) return;
  const lease = segment.lease();
  try {
    walkBatchHeaders(lease.fd, first.position, segment.size, (batch) => {
      if (batch.baseOffset >= to) return false;
      // One positional read per batch for the producer fields: a scan normally covers only the
      // batches after the newest snapshot (a segment at most, as one starts each segment).
      readFully(lease.fd, fields, FIELDS_BYTES, batch.position + FIELDS_START);
      const producerId = fields.readBigInt64BE(BatchLayout.PRODUCER_ID_OFFSET - FIELDS_START);
      const attributes = fields.readInt16BE(0);
      if (isProducerControl(producerId, attributes)) {
        replayMarker(state, segment, batch);
        return true;
      }
      if (!carriesProducerState(producerId, attributes)) return true;
      const producerBatch = {
        producerId,
        producerEpoch: fields.readInt16BE(BatchLayout.PRODUCER_EPOCH_OFFSET - FIELDS_START),
        baseSequence: fields.readInt32BE(BatchLayout.BASE_SEQUENCE_OFFSET - FIELDS_START),
        lastOffsetDelta: batch.lastOffset - batch.baseOffset,
        attributes,
      };
      state.update(producerBatch, batch.baseOffset, batch.maxTimestamp);
      return true;
    });
  } finally {
    lease.release();
  }
}

/** Applies the marker of a control batch; an abort goes to the segment's transaction index unless it is there. */
function replayMarker(state: ProducerStateManager, segment: LogSegment, batch: BatchLocation): void {
  const bytes = segment.readBytes(batch.position, batch.size);
  const header = readBatchHeader(bytes, 0);
  const marker = header === null ? null : readTxnMarker(bytes, header);
  if (marker === null) return;
  state.applyMarker(marker, (txn, lastStableOffset) => {
    if (!segment.txnIndex.holdsMarker(txn.lastOffset)) segment.txnIndex.append(abortedTxnEntry(txn, lastStableOffset));
  });
}
