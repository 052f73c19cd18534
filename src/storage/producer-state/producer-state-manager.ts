/**
 * The producer table of one partition (Kafka's `ProducerStateManager`): producer id → epoch and
 * last five batches, the offset the table is valid up to (`mapEndOffset`, exclusive), and the
 * `.snapshot` files of the partition directory (format in `producer-snapshot.ts`). It also knows
 * the partition's transactions: a transactional batch opens one for its producer, a marker ends
 * it; the open ones and the ended ones whose marker the high watermark has not passed yet hold
 * the first unstable offset, which bounds the last stable offset (`unstable-transactions.ts`).
 *
 * Snapshots are taken at the base offset of each new segment and at the log end on clean close,
 * deleted with the segment they start, and pruned on truncation (none above the new end). Loading
 * takes the newest readable snapshot; a corrupt one is deleted and the next older one is tried.
 * The log itself rebuilds the rest by scanning batches (`producer-state-loader.ts`).
 *
 * Crash behaviour: the table lives in memory; what a crash loses is rebuilt from the newest
 * snapshot plus the batches after it. A snapshot above the recovered log end is deleted before
 * loading. A snapshot carries each producer's open transaction, so loading one reopens them (an
 * open transaction lost here would hold read_committed consumers back forever). Owned by the
 * partition's worker, like the `PartitionLog` that holds it.
 */
import { unlinkSync } from 'node:fs';
import type { Offset } from '@sluice/protocol/common/offsets.js';
import { isTransactional } from '@sluice/protocol/records/index.js';
import { checkProducerAppend, checkTxnMarker, type AppendOrigin } from './append-check.js';
import {
  batchMetadata,
  lastSequenceOf,
  ProducerStateEntry,
  type BatchMetadata,
  type ProducerBatch,
  type ProducerState,
} from './producer-state-entry.js';
import { CorruptSnapshotError, listSnapshotOffsets, readSnapshot, snapshotPath, writeSnapshot } from './producer-snapshot.js';
import type { CompletedTxn, TxnMarker, TxnMarkerRequest } from './txn-marker.js';
import { TransactionVerifications } from './transaction-verifications.js';
import { UnstableTransactions } from './unstable-transactions.js';

/** Kafka's `producer.id.expiration.ms` default: one day. */
export const DEFAULT_PRODUCER_ID_EXPIRATION_MS = 86_400_000;
/** Kafka's `producer.id.expiration.check.interval.ms` default: ten minutes. */
export const DEFAULT_PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS = 600_000;

export class ProducerStateManager {
  readonly dir: string;
  readonly #expirationMs: number;
  readonly #producers = new Map<bigint, ProducerStateEntry>();
  readonly #transactions = new UnstableTransactions();
  readonly #verifications = new TransactionVerifications();
  /** Offsets of the snapshot files on disk, ascending. */
  #snapshots: Offset[];
  #mapEndOffset = 0 as Offset;
  #lastSnapOffset = 0 as Offset;

  constructor(dir: string, producerIdExpirationMs: number = DEFAULT_PRODUCER_ID_EXPIRATION_MS) {
    this.dir = dir;
    this.#expirationMs = producerIdExpirationMs;
    this.#snapshots = listSnapshotOffsets(dir);
  }

  /** The table reflects every batch below this offset. */
  get mapEndOffset(): Offset {
    return this.#mapEndOffset;
  }

  get snapshotOffsets(): readonly Offset[] {
    return this.#snapshots;
  }

  get latestSnapshotOffset(): Offset | null {
    return this.#snapshots[this.#snapshots.length - 1] ?? null;
  }

  get isEmpty(): boolean {
    return this.#producers.size === 0 && !this.#transactions.hasUnreplicated;
  }

  /** The first offset of the earliest open transaction or ended one not yet replicated, or null. */
  get firstUnstableOffset(): Offset | null {
    return this.#transactions.firstUnstableOffset();
  }

  activeProducers(): ReadonlyMap<bigint, ProducerState> {
    return this.#producers;
  }

  /**
   * The leader's check of an idempotent batch (see `append-check.ts`): the duplicated batch, or
   * null. A client's transactional batch that would open a transaction passes KIP-890's
   * verification first (`transaction-verifications.ts`), before its sequence is judged: the
   * sequences of a transaction not yet open here are the verification's to order.
   */
  checkAppend(batch: ProducerBatch, origin: AppendOrigin, txnVerified: boolean, nowMs: number): BatchMetadata | null {
    const entry = this.#producers.get(batch.producerId);
    if (origin === 'client') {
      const duplicate = entry?.findDuplicate(batch) ?? null;
      if (duplicate !== null) return duplicate;
      if (isTransactional(batch.attributes) && !(entry !== undefined && entry.hasOpenTxn && entry.producerEpoch === batch.producerEpoch)) {
        this.#verifications.check(batch, txnVerified, nowMs);
      }
    }
    return checkProducerAppend(entry, batch, origin);
  }

  /** The leader's check of a marker (see `append-check.ts`); throws the Kafka error. */
  checkMarker(marker: TxnMarkerRequest): void {
    checkTxnMarker(this.#producers.get(marker.producerId), marker);
  }

  /**
   * Records a data batch written at `baseOffset` (leader, follower and recovery alike); a
   * transactional one opens its producer's transaction if none is open.
   */
  update(batch: ProducerBatch, baseOffset: Offset, maxTimestamp: number): void {
    const entry = this.#entryOf(batch.producerId);
    const lastOffset = (baseOffset + batch.lastOffsetDelta) as Offset;
    entry.addBatch(batch.producerEpoch, batchMetadata(lastSequenceOf(batch), lastOffset, batch.lastOffsetDelta, maxTimestamp));
    if (isTransactional(batch.attributes) && !entry.hasOpenTxn) {
      entry.beginTxn(baseOffset);
      this.#transactions.begin(batch.producerId, baseOffset);
      this.#verifications.opened(batch.producerId);
    }
  }

  /** The leader wrote a marker: the verifications of the transaction it ends are void. */
  endVerifications(marker: TxnMarkerRequest): void {
    this.#verifications.ended(marker.producerId, marker.producerEpoch, marker.transactionVersion);
  }

  /**
   * Records a written marker (leader, follower and recovery alike): it ends its producer's open
   * transaction, if any, and sets the producer's epoch and coordinator epoch. An aborted
   * transaction is handed to `indexAbort` with the last stable offset the transaction index
   * records for it, before the transaction counts as completed (Kafka's order: a failed index
   * write leaves it open). Returns the completed transaction, or null when none was open.
   */
  applyMarker(marker: TxnMarker, indexAbort: (txn: CompletedTxn, lastStableOffset: Offset) => void): CompletedTxn | null {
    const entry = this.#entryOf(marker.producerId);
    const completed: CompletedTxn | null = entry.hasOpenTxn
      ? {
          producerId: marker.producerId,
          firstOffset: entry.currentTxnFirstOffset as Offset,
          lastOffset: marker.offset,
          aborted: !marker.commit,
        }
      : null;
    if (completed !== null && completed.aborted) indexAbort(completed, this.#transactions.lastStableOffset(completed));
    entry.endTxn(marker.producerEpoch, marker.coordinatorEpoch, marker.timestamp);
    if (completed !== null) this.#transactions.complete(completed);
    return completed;
  }

  /** Kafka's `onHighWatermarkUpdated`: completed transactions whose marker is below it are stable. */
  onHighWatermarkUpdated(highWatermark: Offset): void {
    this.#transactions.removeUnreplicatedBelow(highWatermark);
  }

  #entryOf(producerId: bigint): ProducerStateEntry {
    let entry = this.#producers.get(producerId);
    if (entry === undefined) {
      entry = ProducerStateEntry.empty(producerId);
      this.#producers.set(producerId, entry);
    }
    return entry;
  }

  updateMapEndOffset(offset: Offset): void {
    this.#mapEndOffset = offset;
  }

  /** Writes a snapshot at `mapEndOffset` unless the newest one is already there. */
  takeSnapshot(): void {
    const offset = this.#mapEndOffset;
    if (offset <= this.#lastSnapOffset) return;
    writeSnapshot(this.dir, offset, this.#producers.values());
    if (!this.#snapshots.includes(offset)) {
      this.#snapshots.push(offset);
      this.#snapshots.sort((a, b) => a - b);
    }
    this.#lastSnapOffset = offset;
  }

  deleteSnapshot(offset: Offset): void {
    const at = this.#snapshots.indexOf(offset);
    if (at < 0) return;
    this.#snapshots.splice(at, 1);
    try {
      unlinkSync(snapshotPath(this.dir, offset));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }

  /**
   * Kafka's `removeStraySnapshots`, at open: keeps the snapshots that start a segment, plus the
   * newest other one if it lies above every segment base (the one a clean close wrote at the log
   * end); deletes the rest.
   */
  removeStraySnapshots(segmentBaseOffsets: readonly Offset[]): void {
    const bases = new Set(segmentBaseOffsets);
    let stray: Offset | null = null;
    for (const offset of [...this.#snapshots]) {
      if (bases.has(offset)) continue;
      if (stray !== null) this.deleteSnapshot(stray);
      stray = offset;
    }
    const maxBase = Math.max(...segmentBaseOffsets);
    if (stray !== null && stray < maxBase) this.deleteSnapshot(stray);
  }

  /**
   * Kafka's `truncateAndReload`: drops snapshots above `logEndOffset` or at/below
   * `logStartOffset`; unless the table already ends at `logEndOffset`, reloads it from the newest
   * remaining snapshot (or empties it at the log start). The caller scans from `mapEndOffset`.
   */
  truncateAndReload(logStartOffset: Offset, logEndOffset: Offset, nowMs: number): void {
    for (const offset of [...this.#snapshots]) {
      if (offset > logEndOffset || offset <= logStartOffset) this.deleteSnapshot(offset);
    }
    if (logEndOffset !== this.#mapEndOffset) {
      this.#producers.clear();
      // The new end is at or below the high watermark: no completed transaction is unreplicated.
      this.#transactions.clear();
      this.#verifications.clear();
      this.#loadFromSnapshot(logStartOffset, nowMs);
    } else {
      this.onLogStartOffsetIncremented(logStartOffset);
    }
  }

  #loadFromSnapshot(logStartOffset: Offset, nowMs: number): void {
    for (;;) {
      const latest = this.latestSnapshotOffset;
      if (latest === null) {
        this.#lastSnapOffset = logStartOffset;
        this.#mapEndOffset = logStartOffset;
        return;
      }
      let entries: ProducerStateEntry[];
      try {
        entries = readSnapshot(this.dir, latest);
      } catch (e) {
        if (!(e instanceof CorruptSnapshotError) && (e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        this.deleteSnapshot(latest);
        continue;
      }
      for (const entry of entries) {
        if (this.#isExpired(entry, nowMs)) continue;
        this.#producers.set(entry.producerId, entry);
        if (entry.hasOpenTxn) this.#transactions.begin(entry.producerId, entry.currentTxnFirstOffset as Offset);
      }
      this.#lastSnapOffset = latest;
      this.#mapEndOffset = latest;
      return;
    }
  }

  /** Empties the table and deletes every snapshot: the log restarts at `offset`. */
  truncateFullyAndStartAt(offset: Offset): void {
    this.#producers.clear();
    this.#transactions.clear();
    this.#verifications.clear();
    for (const snapshot of [...this.#snapshots]) this.deleteSnapshot(snapshot);
    this.#lastSnapOffset = 0 as Offset;
    this.#mapEndOffset = offset;
  }

  onLogStartOffsetIncremented(logStartOffset: Offset): void {
    this.#transactions.removeUnreplicatedBelow(logStartOffset);
    if (this.#mapEndOffset < logStartOffset) this.#mapEndOffset = logStartOffset;
    this.#lastSnapOffset = this.latestSnapshotOffset ?? logStartOffset;
  }

  /**
   * Forgets producers idle for `producer.id.expiration.ms`, measured from the max timestamp of
   * their last batch (as Kafka does); one with an open transaction stays. Returns how many went.
   */
  removeExpiredProducers(nowMs: number): number {
    this.#verifications.expire(nowMs, this.#expirationMs);
    let removed = 0;
    for (const [producerId, entry] of this.#producers) {
      if (!this.#isExpired(entry, nowMs)) continue;
      this.#producers.delete(producerId);
      removed++;
    }
    return removed;
  }

  #isExpired(entry: ProducerState, nowMs: number): boolean {
    return entry.currentTxnFirstOffset < 0 && nowMs - entry.lastTimestamp >= this.#expirationMs;
  }
}
