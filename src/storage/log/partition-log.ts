/**
 * The log of one partition: its directory `<log dir>/<topic>-<partition>/`, a sorted array of
 * segments (the last one active), and the offsets that frame them.
 *
 *   logStartOffset <= highWatermark <= logEndOffset
 *   recoveryPoint  <= logEndOffset     (everything below it has been fsynced)
 *
 * Appends validate (records module), assign offsets in place, roll when the active segment is
 * full or old, and write each request with one write call. Reads find the segment by binary
 * search, the batch through the sparse index, and return a leased file range for `sendfile`.
 * Retention, DeleteRecords and truncation rename dropped segments to `.deleted`; they are
 * unlinked after `file.delete.delay.ms` once no lease remains. Idempotent producers are checked
 * against the partition's producer table before offsets are assigned (`producer-state/`); its
 * `.snapshot` files are written at each roll and on clean close, deleted with their segments.
 *
 * Crash behaviour: see `open` (recovery from the recovery point after an unclean shutdown, then
 * the producer table from the newest snapshot at or below the log end plus a scan). An
 * I/O error takes the whole log dir offline (`LogDir`); nothing acknowledged is truncated, and
 * a failed write never moves the log end offset.
 *
 * Single-threaded: owned by the worker that owns the partition. Leases are released on it too.
 */
import { mkdirSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { KafkaError } from '../../common/kafka-error.js';
import { decompress } from '../../native/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import {
  setBaseOffset,
  setLogAppendTime,
  setPartitionLeaderEpoch,
  validateBatches,
  validateProduceRecords,
} from '../../protocol/records/index.js';
import { readPartitionMetadata, writePartitionMetadata } from '../checkpoint/partition-metadata-file.js';
import {
  CLEANED_SUFFIX,
  DELETED_SUFFIX,
  INDEX_SUFFIX,
  LOG_SUFFIX,
  TIME_INDEX_SUFFIX,
  TMP_SUFFIX,
  baseOffsetOfFile,
  type TopicPartition,
} from '../file-names.js';
import { deletesSegments, isCompacted, maxSegmentMs, withOverrides, type LogConfig } from '../log-config.js';
import { offsetOf, type FilePosition, type Offset } from '../offsets.js';
import { isIoError, OffsetOutOfRangeError, StorageError } from '../storage-error.js';
import type { TimestampOffset } from '../index/time-index.js';
import { LogSegment, segmentSettings, type AppendedBatch, type SegmentSettings } from '../segment/log-segment.js';
import { SegmentDeleter } from '../segment/segment-deleter.js';
import { DEFAULT_PRODUCER_ID_EXPIRATION_MS, ProducerStateManager } from '../producer-state/producer-state-manager.js';
import { rebuildProducerState } from '../producer-state/producer-state-loader.js';
import { carriesProducerState, type ProducerState } from '../producer-state/producer-state-entry.js';
import type { CleanedSegment } from '../cleaner/clean-task.js';
import { completeInterruptedSwaps, swapCleanedSegment } from '../cleaner/segment-swap.js';
import { LeaderEpochCache } from './leader-epoch-cache.js';
import { LogDir } from './log-dir.js';

export interface PartitionLogOptions {
  readonly topicPartition: TopicPartition;
  /** The partition directory itself (`<log dir>/<topic>-<partition>`). */
  readonly dir: string;
  readonly logDir: LogDir;
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
  readonly deleter?: SegmentDeleter;
  /** Broker setting `producer.id.expiration.ms` (Kafka's default: one day). */
  readonly producerIdExpirationMs?: number;
}

export interface AppendOptions {
  readonly leaderEpoch: number;
}

export interface AppendResult {
  readonly baseOffset: Offset;
  readonly lastOffset: Offset;
  /** The time written into the batch under LogAppendTime, else -1 (Produce response semantics). */
  readonly logAppendTimeMs: number;
  readonly logStartOffset: Offset;
  readonly recordCount: number;
  /**
   * True when the batch was a retry of one of the producer's last five batches: nothing was
   * written and the offsets (and `logAppendTimeMs`, the original batch's max timestamp, as Kafka
   * answers) are those of the original append. The Produce response is NONE.
   */
  readonly duplicate: boolean;
}

export interface ReadOptions {
  /** Nothing at or past this offset is returned: the high watermark (default: log end offset). */
  readonly maxOffsetExclusive?: number;
  /** KIP-74: return the whole first batch even if it exceeds `maxBytes` (default true). */
  readonly minOneMessage?: boolean;
}

/**
 * A range of a segment file, leased: the descriptor stays open and keeps naming this file until
 * `release()`. Hand `fd`, `position`, `length` to `sendFile`, then release.
 */
export interface LogSlice {
  readonly fd: number;
  readonly path: string;
  readonly position: FilePosition;
  readonly length: number;
  /** Base offset of the first batch in the slice (<= the fetch offset). */
  readonly firstBatchOffset: Offset;
  readonly segmentBaseOffset: Offset;
  release(): void;
}

export interface FlushState {
  readonly unflushedMessages: number;
  readonly lastFlushMs: number;
}

export class PartitionLog {
  readonly topicPartition: TopicPartition;
  readonly dir: string;
  readonly logDir: LogDir;
  readonly topicId: string | null;
  readonly leaderEpochCache: LeaderEpochCache;
  readonly #producers: ProducerStateManager;

  #config: LogConfig;
  #settings: SegmentSettings;
  #segments: LogSegment[];
  #logStartOffset: Offset;
  #logEndOffset: Offset;
  #highWatermark: Offset;
  #recoveryPoint: Offset;
  #unflushedMessages = 0;
  #lastFlushMs: number;
  #clock: () => number;
  #deleter: SegmentDeleter;
  #closed = false;
  /** Bumped by every truncation: a cleaning planned before one must not swap its result in. */
  #truncations = 0;

  private constructor(options: PartitionLogOptions, topicId: string | null, segments: LogSegment[], leaderEpochCache: LeaderEpochCache) {
    this.topicPartition = options.topicPartition;
    this.dir = options.dir;
    this.logDir = options.logDir;
    this.topicId = topicId;
    this.#config = options.config;
    this.#settings = segmentSettings(options.config);
    this.#segments = segments;
    this.#clock = options.clock ?? Date.now;
    this.#deleter = options.deleter ?? new SegmentDeleter();
    this.leaderEpochCache = leaderEpochCache;
    this.#producers = new ProducerStateManager(options.dir, options.producerIdExpirationMs ?? DEFAULT_PRODUCER_ID_EXPIRATION_MS);
    this.#lastFlushMs = this.#clock();
    this.#logEndOffset = 0 as Offset;
    this.#logStartOffset = 0 as Offset;
    this.#highWatermark = 0 as Offset;
    this.#recoveryPoint = 0 as Offset;
  }

  /**
   * Opens (or creates) the partition directory. Kafka's `LogLoader`:
   * - completes compaction swaps a crash interrupted (`.swap` files, see cleaner/segment-swap.ts);
   * - removes leftovers of interrupted work (`.deleted`, `.cleaned`, `.tmp`, index files without
   *   a `.log`);
   * - lists segments with their sizes from `stat`; no index is opened yet;
   * - after a clean shutdown reads nothing else but the tail of the active segment (to find the
   *   log end offset from its last index entry);
   * - after a crash recovers every segment from the one holding the recovery point: CRC scan,
   *   torn tail truncated, indexes rebuilt; a segment cut short drops the segments after it;
   * - loads the producer table: snapshots that start no segment are dropped (but the newest one
   *   above them all), then the newest readable one at or below the log end, then a scan of the
   *   batches after it (none after a clean close).
   */
  static open(options: PartitionLogOptions): PartitionLog {
    const { dir, logDir } = options;
    logDir.checkOnline();
    try {
      return PartitionLog.#load(options);
    } catch (e) {
      if (isIoError(e)) {
        logDir.markOffline(e);
        throw new StorageError(`cannot open ${dir}: ${e.message}`, { cause: e });
      }
      throw e;
    }
  }

  static #load(options: PartitionLogOptions): PartitionLog {
    const { dir } = options;
    mkdirSync(dir, { recursive: true });
    completeInterruptedSwaps(dir);
    const topicId = PartitionLog.#checkTopicId(dir, options.topicId);
    const clock = options.clock ?? Date.now;
    const settings = segmentSettings(options.config);

    const logs = new Map<Offset, { size: number; mtimeMs: number }>();
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
      } else if (name.endsWith(INDEX_SUFFIX) || name.endsWith(TIME_INDEX_SUFFIX)) {
        indexes.add(name);
      }
    }
    for (const name of indexes) {
      const base = baseOffsetOfFile(name, INDEX_SUFFIX) ?? baseOffsetOfFile(name, TIME_INDEX_SUFFIX);
      if (base !== null && !logs.has(base)) unlinkSync(join(dir, name));
    }

    const bases = [...logs.keys()].sort((a, b) => a - b);
    const segments = bases.map((base, i) => {
      const stem = String(base).padStart(20, '0');
      const indexesPresent = indexes.has(stem + INDEX_SUFFIX) && indexes.has(stem + TIME_INDEX_SUFFIX);
      const { size, mtimeMs } = logs.get(base)!;
      return LogSegment.open(dir, base, size, settings, { active: i === bases.length - 1, indexesPresent, mtimeMs });
    });
    const startHint = offsetOf(Math.max(0, options.logStartOffset ?? 0));
    if (segments.length === 0) segments.push(LogSegment.create(dir, startHint, settings, clock()));

    const log = new PartitionLog(options, topicId, segments, new LeaderEpochCache(dir));
    let recoveryPoint = offsetOf(Math.max(0, options.recoveryPoint ?? 0));
    if (options.cleanShutdown !== true) recoveryPoint = log.#recoverFrom(recoveryPoint);
    log.#logEndOffset = log.activeSegment.readNextOffset();
    log.#recoveryPoint = Math.min(recoveryPoint, log.#logEndOffset) as Offset;
    log.#logStartOffset = Math.min(Math.max(startHint, log.#segments[0]!.baseOffset), log.#logEndOffset) as Offset;
    const hw = options.highWatermark ?? log.#logEndOffset;
    log.#highWatermark = Math.min(Math.max(hw, log.#logStartOffset), log.#logEndOffset) as Offset;
    log.leaderEpochCache.truncateFromEnd(log.#logEndOffset);
    log.leaderEpochCache.truncateFromStart(log.#logStartOffset);
    log.#producers.removeStraySnapshots(log.segmentBaseOffsets);
    log.#rebuildProducerState(options.cleanShutdown === true);
    return log;
  }

  /** Producer table from the newest snapshot at or below the log end, plus the batches after it. */
  #rebuildProducerState(reloadFromCleanShutdown: boolean): void {
    rebuildProducerState(this.#producers, {
      segments: this.#segments,
      logStartOffset: this.#logStartOffset,
      logEndOffset: this.#logEndOffset,
      nowMs: this.#clock(),
      reloadFromCleanShutdown,
    });
  }

  static #checkTopicId(dir: string, topicId: string | undefined): string | null {
    const stored = readPartitionMetadata(dir);
    if (topicId === undefined) return stored;
    if (stored !== null && stored !== topicId) {
      throw new KafkaError(ErrorCode.INCONSISTENT_TOPIC_ID, `${dir} belongs to topic id ${stored}, not ${topicId}`);
    }
    if (stored === null) writePartitionMetadata(dir, topicId);
    return topicId;
  }

  /** Recovers the segments holding offsets >= `recoveryPoint`; returns the new recovery point. */
  #recoverFrom(recoveryPoint: Offset): Offset {
    const segments = this.#segments;
    let first = this.#floorIndex(recoveryPoint);
    if (first < 0) first = 0;
    for (let i = first; i < segments.length; i++) {
      const truncated = segments[i]!.recover();
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
    return this.activeSegment.readNextOffset();
  }

  // ---- state -----------------------------------------------------------------------------

  get config(): LogConfig {
    return this.#config;
  }

  get logStartOffset(): Offset {
    return this.#logStartOffset;
  }

  get logEndOffset(): Offset {
    return this.#logEndOffset;
  }

  get highWatermark(): Offset {
    return this.#highWatermark;
  }

  /** Set by the owner (a single broker's leader sets it to `logEndOffset` after each append). */
  set highWatermark(offset: number) {
    if (offset < this.#logStartOffset || offset > this.#logEndOffset) {
      throw new RangeError(`high watermark ${offset} outside [${this.#logStartOffset}, ${this.#logEndOffset}]`);
    }
    this.#highWatermark = offset as Offset;
  }

  get recoveryPoint(): Offset {
    return this.#recoveryPoint;
  }

  get segmentCount(): number {
    return this.#segments.length;
  }

  get segmentBaseOffsets(): Offset[] {
    return this.#segments.map((s) => s.baseOffset);
  }

  /** Bytes in all segments. */
  get size(): number {
    let total = 0;
    for (const segment of this.#segments) total += segment.size;
    return total;
  }

  get activeSegment(): LogSegment {
    return this.#segments[this.#segments.length - 1]!;
  }

  /** The producer table (producer id → epoch, last batches): DescribeProducers, tests. */
  activeProducers(): ReadonlyMap<bigint, ProducerState> {
    return this.#producers.activeProducers();
  }

  /** Offsets of the producer state snapshots on disk, ascending. */
  get producerSnapshotOffsets(): readonly Offset[] {
    return this.#producers.snapshotOffsets;
  }

  get flushState(): FlushState {
    return { unflushedMessages: this.#unflushedMessages, lastFlushMs: this.#lastFlushMs };
  }

  /** Applies changed topic settings; new index sizes and jitter apply to segments created from now on. */
  updateConfig(overrides: Readonly<Record<string, string | number>>): void {
    this.#config = withOverrides(this.#config, overrides);
    this.#settings = segmentSettings(this.#config);
    for (const segment of this.#segments) segment.updateSettings(this.#settings);
  }

  // ---- appends ---------------------------------------------------------------------------

  /**
   * The leader's append of one Produce partition: validates the single batch (magic, CRC,
   * offsets, size against `max.message.bytes`, keys on compacted topics, timestamps against the
   * topic's window → INVALID_TIMESTAMP), assigns offsets and the leader epoch in place (and
   * LogAppendTime if configured), then writes it. `records` is modified. A partial batch after
   * the first is dropped, as Kafka does.
   *
   * A batch with a producer id is checked against the producer table first (before any offset
   * is assigned; nothing is written on failure): a retry of one of the producer's last five
   * batches returns the original offsets with `duplicate: true`; an old epoch throws
   * INVALID_PRODUCER_EPOCH (47); a sequence gap, reordering or a new epoch not starting at 0
   * throws OUT_OF_ORDER_SEQUENCE_NUMBER (45).
   */
  append(records: Buffer, options: AppendOptions): AppendResult {
    this.#checkOpen();
    const now = this.#clock();
    const config = this.#config;
    const createTime = config['message.timestamp.type'] === 'CreateTime';
    const validation = validateProduceRecords(records, {
      maxBatchBytes: config['max.message.bytes'],
      records: {
        decompress,
        requireKeys: isCompacted(config),
        timestampWindow: createTime
          ? {
              now: BigInt(now),
              beforeMaxMs: BigInt(config['message.timestamp.before.max.ms']),
              afterMaxMs: BigInt(config['message.timestamp.after.max.ms']),
            }
          : undefined,
      },
    });
    if (!validation.ok) throw validation.error;
    const header = validation.batch;
    const idempotent = header.producerId >= 0n;
    const duplicate = idempotent ? this.#producers.checkAppend(header) : null;
    if (duplicate !== null) {
      return {
        baseOffset: duplicate.firstOffset,
        lastOffset: duplicate.lastOffset,
        logAppendTimeMs: duplicate.timestamp,
        logStartOffset: this.#logStartOffset,
        recordCount: header.recordsCount,
        duplicate: true,
      };
    }
    const batch = records.subarray(header.start, header.end);
    const baseOffset = this.#logEndOffset;
    const lastOffset = (baseOffset + header.lastOffsetDelta) as Offset;
    setBaseOffset(batch, 0, BigInt(baseOffset));
    setPartitionLeaderEpoch(batch, 0, options.leaderEpoch);
    if (!createTime) setLogAppendTime(batch, 0, BigInt(now));
    const maxTimestamp = createTime ? Number(header.maxTimestamp) : now;
    this.#write(batch, [{ start: 0, size: batch.length, lastOffset, maxTimestamp }], baseOffset, now);
    if (idempotent) this.#producers.update(header, baseOffset, maxTimestamp);
    this.#producers.updateMapEndOffset(this.#logEndOffset);
    this.leaderEpochCache.assign(options.leaderEpoch, baseOffset);
    this.#afterAppend(header.recordsCount);
    return {
      baseOffset,
      lastOffset,
      logAppendTimeMs: createTime ? -1 : now,
      logStartOffset: this.#logStartOffset,
      recordCount: header.recordsCount,
      duplicate: false,
    };
  }

  /**
   * The follower's (and tools') append: whole batches that already carry their offsets, checked
   * for framing and CRC and for offsets increasing from the log end offset. Written as they are,
   * with one write call. A trailing partial batch is ignored.
   */
  appendAsFollower(records: Buffer): { firstOffset: Offset; lastOffset: Offset } | null {
    this.#checkOpen();
    const validation = validateBatches(records);
    if (!validation.ok) throw validation.error;
    if (validation.batches.length === 0) return null;
    const batches: AppendedBatch[] = [];
    let previous = this.#logEndOffset - 1;
    let recordCount = 0;
    for (const header of validation.batches) {
      const base = offsetOf(header.baseOffset);
      const last = (base + header.lastOffsetDelta) as Offset;
      if (base <= previous || last < base) {
        throw new KafkaError(ErrorCode.CORRUPT_MESSAGE, `out of order offsets: batch [${base}, ${last}] after ${previous}`);
      }
      batches.push({ start: header.start, size: header.end - header.start, lastOffset: last, maxTimestamp: Number(header.maxTimestamp) });
      previous = last;
      recordCount += header.recordsCount;
    }
    const firstOffset = offsetOf(validation.batches[0]!.baseOffset);
    const bytes = records.subarray(0, validation.validBytes);
    this.#write(bytes, batches, firstOffset, this.#clock());
    for (const header of validation.batches) {
      this.leaderEpochCache.assign(header.partitionLeaderEpoch, Number(header.baseOffset));
      // Replicated batches are not sequence-checked (the leader did it), only recorded.
      if (carriesProducerState(header.producerId, header.attributes)) {
        this.#producers.update(header, offsetOf(header.baseOffset), Number(header.maxTimestamp));
      }
    }
    this.#producers.updateMapEndOffset(this.#logEndOffset);
    this.#afterAppend(recordCount);
    return { firstOffset, lastOffset: previous as Offset };
  }

  #write(bytes: Buffer, batches: readonly AppendedBatch[], firstOffset: Offset, now: number): void {
    const lastOffset = batches[batches.length - 1]!.lastOffset;
    let maxTimestamp = -1;
    for (const b of batches) maxTimestamp = Math.max(maxTimestamp, b.maxTimestamp);
    this.#io('append', () => {
      this.#maybeRoll(bytes.length, maxTimestamp, firstOffset, lastOffset, now);
      this.activeSegment.append(bytes, batches);
    });
    this.#logEndOffset = (lastOffset + 1) as Offset;
  }

  #afterAppend(records: number): void {
    this.#unflushedMessages += records;
    if (this.#unflushedMessages >= this.#config['flush.messages']) this.flush();
  }

  /** Kafka's `shouldRoll`: full by size, old by `segment.ms` (with jitter), a full index, or an offset too far for 32 bits. */
  #maybeRoll(incomingBytes: number, maxTimestamp: number, firstOffset: Offset, lastOffset: Offset, now: number): void {
    const segment = this.activeSegment;
    if (segment.size === 0) return;
    const config = this.#config;
    const full = segment.size > config['segment.bytes'] - incomingBytes;
    const old = segment.timeWaitedForRoll(now, maxTimestamp) > maxSegmentMs(config) - segment.rollJitterMs;
    if (full || old || segment.indexesFull() || !segment.canHold(lastOffset)) {
      this.#roll(Math.max(firstOffset, this.#logEndOffset) as Offset, now);
    }
  }

  /** Starts a new active segment at `baseOffset`; the previous one is fsynced by the next `maintain`. */
  roll(): void {
    this.#checkOpen();
    if (this.activeSegment.size === 0) return;
    this.#io('roll', () => this.#roll(this.#logEndOffset, this.#clock()));
  }

  /**
   * Also snapshots the producer table at the new base offset (Kafka does the same), so recovery
   * after a crash scans at most the new segment.
   */
  #roll(baseOffset: Offset, now: number): void {
    const next = LogSegment.create(this.dir, baseOffset, this.#settings, now);
    this.activeSegment.becomeInactive();
    this.#segments.push(next);
    this.#producers.updateMapEndOffset(baseOffset);
    this.#producers.takeSnapshot();
  }

  // ---- reads -----------------------------------------------------------------------------

  /**
   * Fetch: the bytes from the batch holding `fetchOffset` (KIP-74: at least that whole batch),
   * at most `maxBytes` otherwise, from one segment, never past `maxOffsetExclusive`. Returns null
   * when there is nothing to send (`fetchOffset` at the bound). Throws OFFSET_OUT_OF_RANGE
   * outside [logStartOffset, logEndOffset]. The caller must `release()` the slice.
   */
  read(fetchOffset: number, maxBytes: number, options: ReadOptions = {}): LogSlice | null {
    this.#checkOpen();
    if (fetchOffset < this.#logStartOffset || fetchOffset > this.#logEndOffset) {
      throw new OffsetOutOfRangeError(
        `offset ${fetchOffset} is outside [${this.#logStartOffset}, ${this.#logEndOffset}] of ${this.dir}`,
      );
    }
    const bound = Math.min(options.maxOffsetExclusive ?? this.#logEndOffset, this.#logEndOffset) as Offset;
    if (fetchOffset >= bound) return null;
    const minOneMessage = options.minOneMessage ?? true;
    return this.#io('read', () => {
      const boundIndex = this.#floorIndex(bound);
      for (let i = Math.max(0, this.#floorIndex(fetchOffset as Offset)); i < this.#segments.length && i <= boundIndex; i++) {
        const segment = this.#segments[i]!;
        const maxPosition = bound >= this.#logEndOffset || i < boundIndex ? segment.size : this.#positionOf(segment, bound);
        const slice = segment.read(Math.max(fetchOffset, segment.baseOffset) as Offset, maxBytes, maxPosition, minOneMessage);
        if (slice === null) continue;
        if (slice.length === 0) return null;
        const lease = segment.lease();
        return {
          fd: lease.fd,
          path: segment.path,
          position: slice.position,
          length: slice.length,
          firstBatchOffset: slice.firstBatch.baseOffset,
          segmentBaseOffset: segment.baseOffset,
          release: lease.release,
        };
      }
      return null;
    });
  }

  /** `read`, copied into memory and released at once (tests, tools, replication over the ring). */
  readBuffer(fetchOffset: number, maxBytes: number, options: ReadOptions = {}): Buffer {
    const slice = this.read(fetchOffset, maxBytes, options);
    if (slice === null) return Buffer.alloc(0);
    try {
      const segment = this.#segments.find((s) => s.baseOffset === slice.segmentBaseOffset);
      if (segment === undefined) throw new Error(`segment ${slice.segmentBaseOffset} vanished during a read`);
      return this.#io('read', () => segment.readBytes(slice.position, slice.length));
    } finally {
      slice.release();
    }
  }

  /** Where the batch holding `offset` starts in `segment` (its size if past the end). */
  #positionOf(segment: LogSegment, offset: Offset): number {
    return segment.translateOffset(offset)?.position ?? segment.size;
  }

  /** Index of the last segment whose base offset is <= `offset`, or -1. */
  #floorIndex(offset: Offset): number {
    const segments = this.#segments;
    let lo = 0;
    let hi = segments.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (segments[mid]!.baseOffset <= offset) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  // ---- ListOffsets -----------------------------------------------------------------------

  /**
   * ListOffsets by time: the first record whose timestamp is >= `timestamp`, at or after the log
   * start offset, with its timestamp; null if every record is older (the handler answers -1).
   */
  offsetForTimestamp(timestamp: number): TimestampOffset | null {
    this.#checkOpen();
    return this.#io('offsetForTimestamp', () => {
      for (const segment of this.#segments) {
        if (segment.size === 0 || segment.maxTimestampSoFar().timestamp < timestamp) continue;
        const found = segment.findOffsetByTimestamp(timestamp, Math.max(this.#logStartOffset, segment.baseOffset) as Offset);
        if (found !== null && found.offset < this.#logEndOffset) return found;
      }
      return null;
    });
  }

  /** ListOffsets -3 (KIP-734): the record with the largest timestamp (the earliest of equals), or null for an empty log. */
  offsetOfMaxTimestamp(): TimestampOffset | null {
    this.#checkOpen();
    return this.#io('offsetOfMaxTimestamp', () => {
      let best: LogSegment | null = null;
      for (const segment of this.#segments) {
        if (segment.size === 0) continue;
        if (best === null || segment.maxTimestampSoFar().timestamp > best.maxTimestampSoFar().timestamp) best = segment;
      }
      const found = best?.offsetOfMaxTimestamp() ?? null;
      return found !== null && found.offset >= this.#logStartOffset ? found : null;
    });
  }

  // ---- retention, DeleteRecords, truncation ----------------------------------------------

  /**
   * Kafka's `deleteOldSegments`, run by the owner periodically: segments wholly before the log
   * start offset, then (for `cleanup.policy=delete`) segments older than `retention.ms` by their
   * largest timestamp, then the oldest segments while the log exceeds `retention.bytes`. Only
   * segments wholly below the high watermark qualify, and an empty active segment never does;
   * when every segment qualifies, the log rolls first so an empty active segment remains.
   * Returns the number of segments deleted.
   */
  deleteOldSegments(): number {
    this.#checkOpen();
    const now = this.#clock();
    let deleted = this.#deleteSegmentsWhile((_segment, next) => next !== null && next.baseOffset <= this.#logStartOffset);
    if (!deletesSegments(this.#config)) return deleted;
    const retentionMs = this.#config['retention.ms'];
    if (retentionMs >= 0) deleted += this.#deleteSegmentsWhile((segment) => now - segment.largestTimestamp() > retentionMs);
    const retentionBytes = this.#config['retention.bytes'];
    if (retentionBytes >= 0) {
      let excess = this.size - retentionBytes;
      deleted += this.#deleteSegmentsWhile((segment) => {
        if (excess - segment.size < 0) return false;
        excess -= segment.size;
        return true;
      });
    }
    return deleted;
  }

  #deleteSegmentsWhile(predicate: (segment: LogSegment, next: LogSegment | null) => boolean): number {
    return this.#io('retention', () => {
      const doomed: LogSegment[] = [];
      for (let i = 0; i < this.#segments.length; i++) {
        const segment = this.#segments[i]!;
        const next = this.#segments[i + 1] ?? null;
        const upper = next?.baseOffset ?? this.#logEndOffset;
        const lastAndEmpty = next === null && segment.size === 0;
        if (this.#highWatermark < upper || lastAndEmpty || !predicate(segment, next)) break;
        doomed.push(segment);
      }
      if (doomed.length === 0) return 0;
      if (doomed.length === this.#segments.length) this.#roll(this.#logEndOffset, this.#clock());
      this.#segments.splice(0, doomed.length);
      for (const segment of doomed) {
        this.#retire(segment);
        this.#producers.deleteSnapshot(segment.baseOffset);
      }
      const newStart = Math.max(this.#logStartOffset, this.#segments[0]!.baseOffset) as Offset;
      if (newStart > this.#logStartOffset) {
        this.#logStartOffset = newStart;
        this.leaderEpochCache.truncateFromStart(newStart);
        this.#producers.onLogStartOffsetIncremented(newStart);
      }
      return doomed.length;
    });
  }

  // ---- compaction (cleaner/) -------------------------------------------------------------

  /** What the cleaner plans from: the inactive segments, oldest first, and the truncation count. */
  cleanableSegments(): { readonly segments: readonly LogSegment[]; readonly truncations: number } {
    this.#checkOpen();
    return { segments: this.#segments.slice(0, -1), truncations: this.#truncations };
  }

  /**
   * Swaps cleaned segments in for the ones they replace (Kafka's `replaceSegments`, renames in
   * cleaner/segment-swap.ts). `planned` is what `cleanableSegments` returned when the job
   * started: if a truncation happened since, or any planned segment is gone (retention,
   * DeleteRecords) or active again, nothing is swapped and false is returned — the caller then
   * deletes the `.cleaned` files. Reads holding leases on replaced segments keep their files.
   */
  replaceWithCleaned(cleaned: readonly CleanedSegment[], planned: { readonly segments: readonly LogSegment[]; readonly truncations: number }): boolean {
    this.#checkOpen();
    const inactive = new Set(this.#segments.slice(0, -1));
    if (planned.truncations !== this.#truncations || !planned.segments.every((s) => inactive.has(s))) return false;
    const byBase = new Map(planned.segments.map((s) => [s.baseOffset as number, s]));
    this.#io('compaction swap', () => {
      for (const c of cleaned) {
        const replaced = c.replaces.map((base) => byBase.get(base)!);
        const fresh = swapCleanedSegment(this.dir, c.baseOffset, c.size, replaced, this.#settings, (segment) => this.#retire(segment));
        this.#segments.splice(this.#segments.indexOf(replaced[0]!), replaced.length, fresh);
      }
    });
    return true;
  }

  /** Renames a dropped segment to `.deleted` and schedules the unlink. */
  #retire(segment: LogSegment): void {
    segment.markDeleted();
    this.#deleter.schedule(segment, this.#clock() + this.#config['file.delete.delay.ms']);
  }

  /**
   * DeleteRecords: moves the log start offset to `offset` (which may fall inside a batch; reads
   * then start with that whole batch and clients skip the earlier records) and drops segments
   * wholly before it. OFFSET_OUT_OF_RANGE above the high watermark. Returns the new log start
   * offset (the response's low watermark).
   */
  deleteRecordsTo(offset: number): Offset {
    this.#checkOpen();
    if (offset > this.#highWatermark || offset < 0) {
      throw new OffsetOutOfRangeError(`cannot delete records up to ${offset}: high watermark is ${this.#highWatermark}`);
    }
    if (offset > this.#logStartOffset) {
      this.#logStartOffset = offset as Offset;
      this.leaderEpochCache.truncateFromStart(offset);
      this.#producers.onLogStartOffsetIncremented(this.#logStartOffset);
      this.#deleteSegmentsWhile((_segment, next) => next !== null && next.baseOffset <= this.#logStartOffset);
    }
    return this.#logStartOffset;
  }

  /**
   * Follower truncation (Kafka's `truncateTo`): drops every record at or after `offset`.
   * Segments starting above it are deleted; the one holding it is cut and becomes active.
   * Returns true if anything was removed.
   */
  truncateTo(offset: number): boolean {
    this.#checkOpen();
    if (offset < 0) throw new RangeError(`cannot truncate to ${offset}`);
    if (offset >= this.#logEndOffset) return false;
    const target = offset as Offset;
    this.#truncations++;
    this.#io('truncate', () => {
      if (target < this.#segments[0]!.baseOffset) {
        this.#truncateFullyAndStartAt(target);
        return;
      }
      const keep = this.#floorIndex(target);
      const dropped = this.#segments.splice(keep + 1);
      for (const segment of dropped) this.#retire(segment);
      const segment = this.activeSegment;
      if (dropped.length > 0) segment.becomeActive();
      segment.truncateTo(target);
    });
    // A batch is kept or dropped whole, so the end may fall below `target` when it was not a
    // batch boundary.
    const end = this.#io('truncate', () => this.activeSegment.readNextOffset());
    this.#logEndOffset = end;
    this.#highWatermark = Math.min(this.#highWatermark, end) as Offset;
    this.#recoveryPoint = Math.min(this.#recoveryPoint, end) as Offset;
    this.#logStartOffset = Math.min(this.#logStartOffset, end) as Offset;
    this.leaderEpochCache.truncateFromEnd(end);
    this.#io('truncate', () => this.#rebuildProducerState(false));
    return true;
  }

  #truncateFullyAndStartAt(offset: Offset): void {
    const now = this.#clock();
    const fresh = LogSegment.create(this.dir, offset, this.#settings, now);
    const old = this.#segments;
    this.#segments = [fresh];
    for (const segment of old) this.#retire(segment);
    this.#logStartOffset = offset;
    this.#producers.truncateFullyAndStartAt(offset);
  }

  // ---- durability and life cycle ---------------------------------------------------------

  /** fsyncs every segment holding offsets in [recoveryPoint, upTo) and moves the recovery point. */
  flush(upTo: number = this.#logEndOffset): void {
    this.#checkOpen();
    const target = Math.min(upTo, this.#logEndOffset) as Offset;
    if (target <= this.#recoveryPoint && this.#unflushedMessages === 0) return;
    this.#io('flush', () => {
      const first = Math.max(0, this.#floorIndex(this.#recoveryPoint));
      for (let i = first; i < this.#segments.length && this.#segments[i]!.baseOffset < target; i++) this.#segments[i]!.flush();
    });
    this.#recoveryPoint = Math.max(this.#recoveryPoint, target) as Offset;
    if (target === this.#logEndOffset) this.#unflushedMessages = 0;
    this.#lastFlushMs = this.#clock();
  }

  /**
   * Periodic duties, called by the owner (e.g. once a second): fsync segments that rolled since
   * the last call (Kafka flushes a rolled segment in the background), apply `flush.ms`, run
   * retention, unlink `.deleted` files that are due, expire producers idle for
   * `producer.id.expiration.ms`. Returns the segments deleted by retention.
   */
  maintain(): number {
    this.#checkOpen();
    const now = this.#clock();
    if (this.#recoveryPoint < this.activeSegment.baseOffset) this.flush(this.activeSegment.baseOffset);
    if (this.#unflushedMessages > 0 && now - this.#lastFlushMs >= this.#config['flush.ms']) this.flush();
    const deleted = this.deleteOldSegments();
    this.#deleter.run(now);
    this.#producers.removeExpiredProducers(now);
    return deleted;
  }

  /** Unlinks due `.deleted` files (also part of `maintain`). */
  runDeletions(): number {
    return this.#deleter.run(this.#clock());
  }

  get pendingDeletions(): number {
    return this.#deleter.pending;
  }

  /**
   * Clean close: flush, final index entries, indexes trimmed, leader epochs written durably, a
   * producer snapshot at the log end (so the next open scans nothing).
   */
  close(): void {
    if (this.#closed) return;
    if (this.logDir.online) {
      this.flush();
      this.#io('close', () => {
        this.leaderEpochCache.flush();
        this.#producers.takeSnapshot();
        for (const segment of this.#segments) segment.close();
      });
    } else {
      for (const segment of this.#segments) segment.abandon();
    }
    this.#closed = true;
  }

  /** Drops everything in memory without flushing or trimming, as a crash would (tests). */
  abandon(): void {
    if (this.#closed) return;
    for (const segment of this.#segments) segment.abandon();
    this.#closed = true;
  }

  get closed(): boolean {
    return this.#closed;
  }

  #checkOpen(): void {
    if (this.#closed) throw new StorageError(`log ${this.dir} is closed`);
    this.logDir.checkOnline();
  }

  /** Runs file work; an OS-level I/O error takes the log dir offline and becomes KAFKA_STORAGE_ERROR. */
  #io<T>(operation: string, work: () => T): T {
    try {
      return work();
    } catch (e) {
      if (!isIoError(e)) throw e;
      this.logDir.markOffline(e);
      throw new StorageError(`${operation} failed in ${this.dir}: ${e.message}`, { cause: e });
    }
  }
}
