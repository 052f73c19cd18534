/**
 * Opening a partition directory (Kafka's `LogLoader`), which PartitionLog.open runs once:
 * - completes compaction swaps a crash interrupted (`.swap` files, see cleaner/segment-swap.ts);
 * - removes leftovers of interrupted work (`.deleted`, `.cleaned`, `.tmp`, index files without
 *   a `.log`);
 * - lists segments with their sizes from `stat`; no index is opened yet;
 * - after a clean shutdown reads nothing else but the tail of the active segment (to find the
 *   log end offset from its last index entry);
 * - after a crash recovers every segment from the one holding the recovery point: CRC scan,
 *   torn tail truncated, indexes rebuilt; a segment cut short drops the segments after it; their
 *   transaction indexes are emptied and the snapshots above the first of them dropped, so that
 *   the producer table's scan passes every recovered marker and rebuilds those indexes;
 * - loads the producer table: snapshots that start no segment are dropped (but the newest one
 *   above them all), then the newest readable one at or below the log end, then a scan of the
 *   batches after it (none after a clean close), which also reopens the open transactions.
 *
 * Runs on the partition's worker thread. I/O errors propagate: PartitionLog.open takes the log
 * dir offline for them.
 */
import { mkdirSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { readPartitionMetadata, writePartitionMetadata } from '../checkpoint/partition-metadata-file.js';
import { completeInterruptedSwaps } from '../cleaner/segment-swap.js';
import {
  CLEANED_SUFFIX,
  DELETED_SUFFIX,
  INDEX_SUFFIX,
  LOG_SUFFIX,
  TIME_INDEX_SUFFIX,
  TMP_SUFFIX,
  TXN_INDEX_SUFFIX,
  baseOffsetOfFile,
} from '../file-names.js';
import type { LogConfig } from '../log-config.js';
import { offsetOf, type Offset } from '@sluice/protocol/common/offsets.js';
import { rebuildProducerState } from '../producer-state/producer-state-loader.js';
import { DEFAULT_PRODUCER_ID_EXPIRATION_MS, ProducerStateManager } from '../producer-state/producer-state-manager.js';
import { LogSegment, type SegmentSettings, segmentSettings } from '../segment/log-segment.js';
import { LeaderEpochCache } from './leader-epoch-cache.js';
import { floorIndex } from './segment-list.js';

/** What a partition is opened with besides its files: the checkpointed offsets and how the last run ended. */
export interface LoadOptions {
  /** The partition directory itself (`<log dir>/<topic>-<partition>`). */
  readonly dir: string;
  readonly config: LogConfig;
  readonly topicId?: string;
  /** From `recovery-point-offset-checkpoint`; 0 when unknown (everything is recovered after a crash). */
  readonly recoveryPoint?: number;
  /** From `log-start-offset-checkpoint`. */
  readonly logStartOffset?: number;
  /** From `replication-offset-checkpoint`; defaults to the log end offset (a single broker's leader). */
  readonly highWatermark?: number;
  /** The log dir had `.kafka_cleanshutdown`: indexes and sizes are trusted, no data is read. */
  readonly cleanShutdown?: boolean;
  readonly clock?: () => number;
  /** Broker setting `producer.id.expiration.ms` (Kafka's default: one day). */
  readonly producerIdExpirationMs?: number;
}

export interface LoadedLog {
  readonly topicId: string | null;
  /** Sorted by base offset, never empty, the last one active. */
  readonly segments: LogSegment[];
  readonly leaderEpochCache: LeaderEpochCache;
  readonly producers: ProducerStateManager;
  readonly logStartOffset: Offset;
  readonly logEndOffset: Offset;
  readonly recoveryPoint: Offset;
  readonly highWatermark: Offset;
}

interface SegmentFile {
  readonly size: number;
  readonly mtimeMs: number;
}

export function loadLog(options: LoadOptions): LoadedLog {
  const { dir } = options;
  mkdirSync(dir, { recursive: true });
  completeInterruptedSwaps(dir);
  const topicId = checkTopicId(dir, options.topicId);
  const clock = options.clock ?? Date.now;
  const settings = segmentSettings(options.config);
  const segments = openSegments(dir, settings);
  const startHint = offsetOf(Math.max(0, options.logStartOffset ?? 0));
  if (segments.length === 0) segments.push(LogSegment.create(dir, startHint, settings, clock()));

  const leaderEpochCache = new LeaderEpochCache(dir);
  const producers = new ProducerStateManager(dir, options.producerIdExpirationMs ?? DEFAULT_PRODUCER_ID_EXPIRATION_MS);
  let recoveryPoint = offsetOf(Math.max(0, options.recoveryPoint ?? 0));
  if (options.cleanShutdown !== true) {
    const firstRecovered = segments[Math.max(0, floorIndex(segments, recoveryPoint))]!.baseOffset;
    for (const offset of [...producers.snapshotOffsets]) if (offset > firstRecovered) producers.deleteSnapshot(offset);
    recoveryPoint = recoverFrom(segments, recoveryPoint);
  }
  const logEndOffset = segments[segments.length - 1]!.readNextOffset();
  const logStartOffset = Math.min(Math.max(startHint, segments[0]!.baseOffset), logEndOffset) as Offset;
  const hw = options.highWatermark ?? logEndOffset;
  const highWatermark = Math.min(Math.max(hw, logStartOffset), logEndOffset) as Offset;
  leaderEpochCache.truncateFromEnd(logEndOffset);
  leaderEpochCache.truncateFromStart(logStartOffset);
  producers.removeStraySnapshots(segments.map((s) => s.baseOffset));
  rebuildProducerState(producers, {
    segments,
    logStartOffset,
    logEndOffset,
    nowMs: clock(),
    reloadFromCleanShutdown: options.cleanShutdown === true,
  });
  return {
    topicId,
    segments,
    leaderEpochCache,
    producers,
    logStartOffset,
    logEndOffset,
    recoveryPoint: Math.min(recoveryPoint, logEndOffset) as Offset,
    highWatermark,
  };
}

/** Removes what interrupted work left behind and opens the segments that remain, oldest first. */
function openSegments(dir: string, settings: SegmentSettings): LogSegment[] {
  const logs = new Map<Offset, SegmentFile>();
  const indexes = new Set<string>();
  for (const name of readdirSync(dir)) {
    if (name.endsWith(DELETED_SUFFIX) || name.endsWith(CLEANED_SUFFIX) || name.endsWith(TMP_SUFFIX)) {
      unlinkSync(join(dir, name));
      continue;
    }
    const base = baseOffsetOfFile(name, LOG_SUFFIX);
    if (base !== null) {
      const stat = statSync(join(dir, name));
      logs.set(base, { size: stat.size, mtimeMs: stat.mtimeMs });
    } else if (name.endsWith(INDEX_SUFFIX) || name.endsWith(TIME_INDEX_SUFFIX) || name.endsWith(TXN_INDEX_SUFFIX)) {
      indexes.add(name);
    }
  }
  for (const name of indexes) {
    const base =
      baseOffsetOfFile(name, INDEX_SUFFIX) ?? baseOffsetOfFile(name, TIME_INDEX_SUFFIX) ?? baseOffsetOfFile(name, TXN_INDEX_SUFFIX);
    if (base !== null && !logs.has(base)) unlinkSync(join(dir, name));
  }

  const bases = [...logs.keys()].sort((a, b) => a - b);
  return bases.map((base, i) => {
    const stem = String(base).padStart(20, '0');
    const indexesPresent = indexes.has(stem + INDEX_SUFFIX) && indexes.has(stem + TIME_INDEX_SUFFIX);
    const { size, mtimeMs } = logs.get(base)!;
    return LogSegment.open(dir, base, size, settings, { active: i === bases.length - 1, indexesPresent, mtimeMs });
  });
}

/** The stored topic id, written on first open; a directory of another topic is refused. */
function checkTopicId(dir: string, topicId: string | undefined): string | null {
  const stored = readPartitionMetadata(dir);
  if (topicId === undefined) return stored;
  if (stored !== null && stored !== topicId) {
    throw new KafkaError(ErrorCode.INCONSISTENT_TOPIC_ID, `${dir} belongs to topic id ${stored}, not ${topicId}`);
  }
  if (stored === null) writePartitionMetadata(dir, topicId);
  return topicId;
}

/**
 * Recovers the segments holding offsets >= `recoveryPoint` and empties their transaction indexes
 * (the producer state scan rebuilds them); returns the new recovery point.
 */
function recoverFrom(segments: LogSegment[], recoveryPoint: Offset): Offset {
  for (let i = Math.max(0, floorIndex(segments, recoveryPoint)); i < segments.length; i++) {
    const truncated = segments[i]!.recover();
    segments[i]!.txnIndex.reset();
    if (truncated > 0 && i < segments.length - 1) {
      // Kafka: data after a corrupt point cannot be trusted to follow on; drop later segments.
      for (const later of segments.splice(i + 1)) {
        later.markDeleted();
        later.deleteFiles();
      }
      segments[i]!.becomeActive();
    }
    segments[i]!.flush();
  }
  return segments[segments.length - 1]!.readNextOffset();
}
