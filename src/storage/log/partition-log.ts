/**
 * The log of one partition: its directory `<log dir>/<topic>-<partition>/`, its segments
 * (sorted, the last one active) and the offsets that frame them.
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
 * Transactions: data batches open them, markers (`appendTxnMarker` as leader, replicated ones as
 * follower) end them; an abort is recorded in the active segment's `.txnindex`; the open and
 * not-yet-replicated ones hold the last stable offset below the high watermark.
 *
 * This module owns those offsets, appends, reads, truncation and the producer table; opening
 * and crash recovery are log-loader.ts's, the segment list and its deletions segment-list.ts's,
 * and which segments retention deletes log-retention.ts's.
 *
 * Crash behaviour: see log-loader.ts (recovery from the recovery point after an unclean
 * shutdown, then the producer table from the newest snapshot at or below the log end plus a
 * scan). An I/O error takes the whole log dir offline (`LogDir`); nothing acknowledged is
 * truncated, and a failed write never moves the log end offset.
 *
 * Single-threaded: owned by the partition's worker thread. Leases are released on it too.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { decompressTransient } from '../../native/index.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  encodeEndTxnMarkerBatch,
  setBaseOffset,
  setLogAppendTime,
  setPartitionLeaderEpoch,
  validateBatches,
  validateProduceRecords,
} from '@sluice/protocol/records/index.js';
import { deletesSegments, isCompacted, maxSegmentMs, withOverrides, type LogConfig } from '../log-config.js';
import { type FilePosition } from '../offsets.js';
import { offsetOf, type Offset } from '@sluice/protocol/common/offsets.js';
import { isIoError, OffsetOutOfRangeError, StorageError } from '../storage-error.js';
import type { TimestampOffset } from '../index/time-index.js';
import type { AppendedBatch, LogSegment } from '../segment/log-segment.js';
import { SegmentDeleter } from '../segment/segment-deleter.js';
import type { AppendOrigin } from '../producer-state/append-check.js';
import type { ProducerStateManager } from '../producer-state/producer-state-manager.js';
import { rebuildProducerState } from '../producer-state/producer-state-loader.js';
import { carriesProducerState, isProducerControl, type ProducerState } from '../producer-state/producer-state-entry.js';
import { abortedTxnEntry, readTxnMarker, type TxnMarker, type TxnMarkerRequest } from '../producer-state/txn-marker.js';
import type { AbortedTxn } from '../index/transaction-index.js';
import type { CleanedSegment } from '../cleaner/clean-task.js';
import type { LeaderEpochCache } from './leader-epoch-cache.js';
import type { LogDir } from './log-dir.js';
import { loadLog, type LoadedLog, type LoadOptions } from './log-loader.js';
import { belowLogStart, deletableCount, pastRetentionSize, pastRetentionTime, type Breach } from './log-retention.js';
import { SegmentList } from './segment-list.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

export interface PartitionLogOptions extends LoadOptions {
  readonly topicPartition: TopicPartition;
  readonly logDir: LogDir;
  readonly deleter?: SegmentDeleter;
}

export interface AppendOptions {
  readonly leaderEpoch: number;
  /** Who wrote the batch (default a client): a coordinator's transactional batches skip the sequence checks. */
  readonly origin?: AppendOrigin;
  /**
   * The transaction coordinator confirmed that a client's transactional batch belongs to the
   * producer's open transaction (KIP-890): without it, a batch that would open a transaction here
   * throws `VerificationRequired`.
   */
  readonly txnVerified?: boolean;
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

/**
 * Told of each truncation once it is done: the new log end offset, and with `restartedAt` the
 * offset an emptied log restarts at (`truncateFullyAndStartAt`).
 */
export type TruncationListener = (logEndOffset: Offset, restartedAt: Offset | null) => void;

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
  readonly #segments: SegmentList;
  #logStartOffset: Offset;
  #logEndOffset: Offset;
  #highWatermark: Offset;
  #recoveryPoint: Offset;
  #unflushedMessages = 0;
  #lastFlushMs: number;
  #clock: () => number;
  #closed = false;
  /** Bumped by every truncation: a cleaning planned before one must not swap its result in. */
  #truncations = 0;
  readonly #truncationListeners = new Set<TruncationListener>();

  private constructor(options: PartitionLogOptions, loaded: LoadedLog) {
    this.topicPartition = options.topicPartition;
    this.dir = options.dir;
    this.logDir = options.logDir;
    this.topicId = loaded.topicId;
    this.leaderEpochCache = loaded.leaderEpochCache;
    this.#producers = loaded.producers;
    this.#config = options.config;
    this.#clock = options.clock ?? Date.now;
    this.#segments = new SegmentList(options.dir, loaded.segments, options.config, options.deleter ?? new SegmentDeleter(), this.#clock);
    this.#lastFlushMs = this.#clock();
    this.#logStartOffset = loaded.logStartOffset;
    this.#logEndOffset = loaded.logEndOffset;
    this.#highWatermark = loaded.highWatermark;
    this.#recoveryPoint = loaded.recoveryPoint;
    // The scan completed transactions without knowing the high watermark: those below it are stable.
    this.#producers.onHighWatermarkUpdated(this.#highWatermark);
  }

  /** Opens (or creates) the partition directory, recovering it after a crash: see log-loader.ts. */
  static open(options: PartitionLogOptions): PartitionLog {
    const { dir, logDir } = options;
    logDir.checkOnline();
    try {
      return new PartitionLog(options, loadLog(options));
    } catch (e) {
      if (isIoError(e)) {
        logDir.markOffline(e);
        throw new StorageError(`cannot open ${dir}: ${e.message}`, { cause: e });
      }
      throw e;
    }
  }

  /** After a truncation: the producer table from the newest snapshot at or below the new log end, plus the batches after it. */
  #rebuildProducerState(): void {
    rebuildProducerState(this.#producers, {
      segments: this.#segments.all,
      logStartOffset: this.#logStartOffset,
      logEndOffset: this.#logEndOffset,
      nowMs: this.#clock(),
      reloadFromCleanShutdown: false,
    });
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

  /**
   * Set by the owner (a single broker's leader sets it to `logEndOffset` after each append).
   * Transactions whose marker it passes become stable (Kafka's `onHighWatermarkUpdated`).
   */
  set highWatermark(offset: Offset) {
    if (offset < this.#logStartOffset || offset > this.#logEndOffset) {
      throw new RangeError(`high watermark ${offset} outside [${this.#logStartOffset}, ${this.#logEndOffset}]`);
    }
    this.#highWatermark = offset;
    this.#producers.onHighWatermarkUpdated(this.#highWatermark);
  }

  /**
   * What a read_committed consumer may read up to: the first offset of the earliest transaction
   * that is open or whose marker is not yet replicated, never above the high watermark nor below
   * the log start.
   */
  get lastStableOffset(): Offset {
    const firstUnstable = this.#producers.firstUnstableOffset;
    if (firstUnstable === null) return this.#highWatermark;
    return Math.min(Math.max(firstUnstable, this.#logStartOffset), this.#highWatermark) as Offset;
  }

  get recoveryPoint(): Offset {
    return this.#recoveryPoint;
  }

  get segmentCount(): number {
    return this.#segments.count;
  }

  get segmentBaseOffsets(): Offset[] {
    return this.#segments.baseOffsets;
  }

  /** Bytes in all segments. */
  get size(): number {
    return this.#segments.size;
  }

  get activeSegment(): LogSegment {
    return this.#segments.active;
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
    this.#segments.updateConfig(this.#config);
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
        // The check keeps nothing of the records, so they are inflated into reused memory.
        decompress: decompressTransient,
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
    const duplicate = idempotent
      ? this.#producers.checkAppend(header, options.origin ?? 'client', options.txnVerified ?? false, now)
      : null;
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
   * The leader's append of a transaction marker for a WriteTxnMarkers entry: checked against the
   * producer's state first (see `checkTxnMarker`: INVALID_PRODUCER_EPOCH,
   * TRANSACTION_COORDINATOR_FENCED; nothing written on failure), then written as a one-record
   * control batch (control and transactional bits, the producer's id and the marker's epoch, no
   * sequence) at the log end, stamped with the leader epoch and the current time. It ends the
   * producer's open transaction; an abort is recorded in the transaction index.
   */
  appendTxnMarker(request: TxnMarkerRequest, options: AppendOptions): AppendResult {
    this.#checkOpen();
    this.#producers.checkMarker(request);
    const now = this.#clock();
    const offset = this.#logEndOffset;
    const batch = encodeEndTxnMarkerBatch({
      baseOffset: BigInt(offset),
      partitionLeaderEpoch: options.leaderEpoch,
      producerId: request.producerId,
      producerEpoch: request.producerEpoch,
      coordinatorEpoch: request.coordinatorEpoch,
      committed: request.commit,
      timestamp: BigInt(now),
    });
    this.#write(batch, [{ start: 0, size: batch.length, lastOffset: offset, maxTimestamp: now }], offset, now);
    this.#applyMarker({ ...request, offset, timestamp: now });
    this.#producers.endVerifications(request);
    this.#producers.updateMapEndOffset(this.#logEndOffset);
    this.leaderEpochCache.assign(options.leaderEpoch, offset);
    this.#afterAppend(1);
    return {
      baseOffset: offset,
      lastOffset: offset,
      logAppendTimeMs: -1,
      logStartOffset: this.#logStartOffset,
      recordCount: 1,
      duplicate: false,
    };
  }

  /** A written marker ends its producer's transaction; an abort goes to the active segment's (the marker's) transaction index. */
  #applyMarker(marker: TxnMarker): void {
    const txnIndex = this.activeSegment.txnIndex;
    this.#io('transaction index', () =>
      this.#producers.applyMarker(marker, (txn, lastStableOffset) => txnIndex.append(abortedTxnEntry(txn, lastStableOffset))),
    );
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
      this.leaderEpochCache.assign(header.partitionLeaderEpoch, offsetOf(header.baseOffset));
      // Replicated batches are not sequence-checked (the leader did it), only recorded.
      if (carriesProducerState(header.producerId, header.attributes)) {
        this.#producers.update(header, offsetOf(header.baseOffset), Number(header.maxTimestamp));
      } else if (isProducerControl(header.producerId, header.attributes)) {
        const marker = readTxnMarker(records, header);
        if (marker !== null) this.#applyMarker(marker);
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
    this.#segments.roll(baseOffset, now);
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
  read(fetchOffset: Offset, maxBytes: number, options: ReadOptions = {}): LogSlice | null {
    this.#checkOpen();
    if (fetchOffset < this.#logStartOffset || fetchOffset > this.#logEndOffset) {
      throw new OffsetOutOfRangeError(`offset ${fetchOffset} is outside [${this.#logStartOffset}, ${this.#logEndOffset}] of ${this.dir}`);
    }
    const bound = Math.min(options.maxOffsetExclusive ?? this.#logEndOffset, this.#logEndOffset) as Offset;
    if (fetchOffset >= bound) return null;
    const minOneMessage = options.minOneMessage ?? true;
    return this.#io('read', () => {
      const segments = this.#segments.all;
      const boundIndex = this.#segments.floorIndex(bound);
      for (let i = Math.max(0, this.#segments.floorIndex(fetchOffset)); i < segments.length && i <= boundIndex; i++) {
        const segment = segments[i]!;
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
  readBuffer(fetchOffset: Offset, maxBytes: number, options: ReadOptions = {}): Buffer {
    const slice = this.read(fetchOffset, maxBytes, options);
    if (slice === null) return Buffer.alloc(0);
    try {
      const segment = this.#segments.find(slice.segmentBaseOffset);
      if (segment === undefined) throw new Error(`segment ${slice.segmentBaseOffset} vanished during a read`);
      return this.#io('read', () => segment.readBytes(slice.position, slice.length));
    } finally {
      slice.release();
    }
  }

  /**
   * Kafka's `collectAbortedTransactions` for a read_committed fetch: the aborted transactions that
   * end at or after `fetchOffset` and start before `upperBoundOffset`, from the transaction index
   * of the segment holding `fetchOffset` onward, until one segment's search is complete.
   */
  collectAbortedTransactions(fetchOffset: number, upperBoundOffset: number): AbortedTxn[] {
    this.#checkOpen();
    return this.#io('read', () => {
      const aborted: AbortedTxn[] = [];
      const segments = this.#segments.all;
      for (let i = Math.max(0, this.#segments.floorIndex(fetchOffset as Offset)); i < segments.length; i++) {
        const search = segments[i]!.txnIndex.collect(fetchOffset, upperBoundOffset);
        aborted.push(...search.aborted);
        if (search.complete) break;
      }
      return aborted;
    });
  }

  /** Where the batch holding `offset` starts in `segment` (its size if past the end). */
  #positionOf(segment: LogSegment, offset: Offset): number {
    return segment.translateOffset(offset)?.position ?? segment.size;
  }

  // ---- ListOffsets -----------------------------------------------------------------------

  /**
   * ListOffsets by time: the first record whose timestamp is >= `timestamp`, at or after the log
   * start offset, with its timestamp; null if every record is older (the handler answers -1).
   */
  offsetForTimestamp(timestamp: number): TimestampOffset | null {
    this.#checkOpen();
    return this.#io('offsetForTimestamp', () => {
      for (const segment of this.#segments.all) {
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
      for (const segment of this.#segments.all) {
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
    let deleted = this.#deleteSegmentsWhile(belowLogStart(this.#logStartOffset));
    if (!deletesSegments(this.#config)) return deleted;
    deleted += this.#deleteSegmentsWhile(pastRetentionTime(this.#config, now));
    deleted += this.#deleteSegmentsWhile(pastRetentionSize(this.#config, this.size));
    return deleted;
  }

  /** Drops the oldest segments `breach` selects and moves the log start offset past them. */
  #deleteSegmentsWhile(breach: Breach | null): number {
    if (breach === null) return 0;
    return this.#io('retention', () => {
      const count = deletableCount(this.#segments.all, this.#highWatermark, this.#logEndOffset, breach);
      if (count === 0) return 0;
      if (count === this.#segments.count) this.#roll(this.#logEndOffset, this.#clock());
      for (const segment of this.#segments.removeOldest(count)) {
        this.#segments.retire(segment);
        this.#producers.deleteSnapshot(segment.baseOffset);
      }
      const newStart = Math.max(this.#logStartOffset, this.#segments.first.baseOffset) as Offset;
      if (newStart > this.#logStartOffset) {
        this.#logStartOffset = newStart;
        this.leaderEpochCache.truncateFromStart(newStart);
        this.#producers.onLogStartOffsetIncremented(newStart);
      }
      return count;
    });
  }

  // ---- compaction (cleaner/) -------------------------------------------------------------

  /** What the cleaner plans from: the inactive segments, oldest first, and the truncation count. */
  cleanableSegments(): { readonly segments: readonly LogSegment[]; readonly truncations: number } {
    this.#checkOpen();
    return { segments: this.#segments.inactive(), truncations: this.#truncations };
  }

  /**
   * Swaps cleaned segments in for the ones they replace (Kafka's `replaceSegments`, renames in
   * cleaner/segment-swap.ts). `planned` is what `cleanableSegments` returned when the job
   * started: if a truncation happened since, or any planned segment is gone (retention,
   * DeleteRecords) or active again, nothing is swapped and false is returned — the caller then
   * deletes the `.cleaned` files. Reads holding leases on replaced segments keep their files.
   */
  replaceWithCleaned(
    cleaned: readonly CleanedSegment[],
    planned: { readonly segments: readonly LogSegment[]; readonly truncations: number },
  ): boolean {
    this.#checkOpen();
    if (planned.truncations !== this.#truncations || !this.#segments.holdsInactive(planned.segments)) return false;
    this.#io('compaction swap', () => this.#segments.swapIn(cleaned, planned.segments));
    return true;
  }

  /**
   * DeleteRecords: moves the log start offset to `offset` (which may fall inside a batch; reads
   * then start with that whole batch and clients skip the earlier records) and drops segments
   * wholly before it. OFFSET_OUT_OF_RANGE above the high watermark. Returns the new log start
   * offset (the response's low watermark).
   */
  deleteRecordsTo(offset: Offset): Offset {
    this.#checkOpen();
    if (offset > this.#highWatermark || offset < 0) {
      throw new OffsetOutOfRangeError(`cannot delete records up to ${offset}: high watermark is ${this.#highWatermark}`);
    }
    if (offset > this.#logStartOffset) {
      this.#logStartOffset = offset;
      this.leaderEpochCache.truncateFromStart(this.#logStartOffset);
      this.#producers.onLogStartOffsetIncremented(this.#logStartOffset);
      this.#deleteSegmentsWhile(belowLogStart(this.#logStartOffset));
    }
    return this.#logStartOffset;
  }

  /**
   * Follower truncation (Kafka's `truncateTo`): drops every record at or after `target`.
   * Segments starting above it are deleted; the one holding it is cut and becomes active.
   * Returns true if anything was removed.
   */
  truncateTo(target: Offset): boolean {
    this.#checkOpen();
    if (target < 0) throw new RangeError(`cannot truncate to ${target}`);
    if (target >= this.#logEndOffset) {
      // A replica that led an epoch without writing in it holds that epoch's start at its log
      // end: kept, its next fetch would name an epoch its leader never had, and diverge again.
      this.leaderEpochCache.truncateFromEnd(this.#logEndOffset);
      return false;
    }
    this.#truncations++;
    this.#io('truncate', () => {
      if (target < this.#segments.first.baseOffset) this.#truncateFullyAndStartAt(target);
      else this.#segments.truncateTo(target);
    });
    // A batch is kept or dropped whole, so the end may fall below `target` when it was not a
    // batch boundary.
    const end = this.#io('truncate', () => this.activeSegment.readNextOffset());
    this.#logEndOffset = end;
    this.#highWatermark = Math.min(this.#highWatermark, end) as Offset;
    this.#recoveryPoint = Math.min(this.#recoveryPoint, end) as Offset;
    this.#logStartOffset = Math.min(this.#logStartOffset, end) as Offset;
    this.leaderEpochCache.truncateFromEnd(end);
    this.#io('truncate', () => this.#rebuildProducerState());
    this.#producers.onHighWatermarkUpdated(this.#highWatermark);
    for (const listener of this.#truncationListeners) listener(end, null);
    return true;
  }

  /**
   * Drops every record and restarts the log, empty, at `target` (Kafka's `truncateFullyAndStartAt`):
   * a follower whose log is behind the leader's log start, or whose first fetched batch begins
   * before its empty log's start. Every epoch goes from the leader epoch cache with the records.
   */
  truncateFullyAndStartAt(target: Offset): void {
    this.#checkOpen();
    if (target < 0) throw new RangeError(`cannot start the log at ${target}`);
    this.#truncations++;
    this.#io('truncate', () => this.#truncateFullyAndStartAt(target));
    this.#logEndOffset = target;
    this.#highWatermark = target;
    this.#recoveryPoint = target;
    this.#unflushedMessages = 0;
    this.leaderEpochCache.clear();
    for (const listener of this.#truncationListeners) listener(target, target);
  }

  /** A copy of this log that must drop what this log drops (a future log, see log-move.ts); returns the unsubscribe. */
  onTruncation(listener: TruncationListener): () => void {
    this.#truncationListeners.add(listener);
    return () => this.#truncationListeners.delete(listener);
  }

  #truncateFullyAndStartAt(offset: Offset): void {
    this.#segments.truncateFullyAndStartAt(offset, this.#clock());
    this.#logStartOffset = offset;
    this.#producers.truncateFullyAndStartAt(offset);
  }

  // ---- durability and life cycle ---------------------------------------------------------

  /** fsyncs every segment holding offsets in [recoveryPoint, upTo) and moves the recovery point. */
  flush(upTo: number = this.#logEndOffset): void {
    this.#checkOpen();
    const target = Math.min(upTo, this.#logEndOffset) as Offset;
    if (target <= this.#recoveryPoint && this.#unflushedMessages === 0) return;
    this.#io('flush', () => this.#segments.flush(this.#recoveryPoint, target));
    this.#recoveryPoint = Math.max(this.#recoveryPoint, target) as Offset;
    if (target === this.#logEndOffset) this.#unflushedMessages = 0;
    this.#lastFlushMs = this.#clock();
  }

  /**
   * Periodic duties, called by the owner (e.g. once a second): fsync segments that rolled since
   * the last call (Kafka flushes a rolled segment in the background), apply `flush.ms`, run
   * retention, unlink `.deleted` files that are due. Returns the segments deleted by retention.
   */
  maintain(): number {
    this.#checkOpen();
    const now = this.#clock();
    if (this.#recoveryPoint < this.activeSegment.baseOffset) this.flush(this.activeSegment.baseOffset);
    if (this.#unflushedMessages > 0 && now - this.#lastFlushMs >= this.#config['flush.ms']) this.flush();
    const deleted = this.deleteOldSegments();
    this.#segments.runDeletions(now);
    return deleted;
  }

  /**
   * Forgets producers idle for `producer.id.expiration.ms`. The owner calls it every
   * `producer.id.expiration.check.interval.ms`, not on every `maintain`: as in Kafka, a producer
   * past its expiration stays known until the next check. Returns how many went.
   */
  removeExpiredProducers(): number {
    this.#checkOpen();
    return this.#producers.removeExpiredProducers(this.#clock());
  }

  /** Unlinks due `.deleted` files (also part of `maintain`). */
  runDeletions(): number {
    return this.#segments.runDeletions(this.#clock());
  }

  get pendingDeletions(): number {
    return this.#segments.pendingDeletions;
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
        this.#segments.close();
      });
    } else {
      this.#segments.abandon();
    }
    this.#closed = true;
  }

  /** Drops everything in memory without flushing or trimming, as a crash would (tests). */
  abandon(): void {
    if (this.#closed) return;
    this.#segments.abandon();
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
