/**
 * One partition's move to another log dir of this broker (AlterReplicaLogDirs): the copy of its
 * current log into its future log (`<topic>-<partition>.<uuid>-future` in the destination dir),
 * as Kafka's ReplicaAlterLogDirsThread fetches it. The future log is always a prefix of the
 * current one: `copy` appends the current log's batches after the future's end, as a follower
 * appends its leader's (offsets, leader epochs, producer state and transaction markers kept), and
 * a truncation of the current log (a follower's) is applied to the future at once. The log start
 * and high watermark follow the current log's, so the future's checkpoints are valid at any
 * moment. Once caught up the owner swaps the logs (`LogManager`), in the same synchronous turn.
 *
 * Owned by the partition's worker thread, like both logs.
 */
import { BatchLayout } from '@sluice/protocol/records/index.js';
import { earliest, latest, offsetOf, type Offset } from '@sluice/protocol/common/offsets.js';
import { StorageError } from '../storage-error.js';
import type { PartitionLog } from './partition-log.js';

/** Bytes read from the current log per append into the future one. */
const COPY_CHUNK_BYTES = 1024 * 1024;

export class LogMove {
  readonly #unsubscribe: () => void;

  constructor(
    readonly current: PartitionLog,
    readonly future: PartitionLog,
  ) {
    this.#unsubscribe = current.onTruncation((end, restartedAt) => this.#followTruncation(end, restartedAt));
  }

  /** How far the future log's end is behind the current one's (DescribeLogDirs' offset lag of the future replica). */
  get lag(): number {
    return this.current.logEndOffset - this.future.logEndOffset;
  }

  /**
   * Copies up to about `maxBytes` (at least one batch when there is one) of the current log's
   * batches into the future log; returns the bytes copied and whether the future has caught up.
   */
  copy(maxBytes: number): { copiedBytes: number; caughtUp: boolean } {
    const { current, future } = this;
    if (future.logEndOffset < current.logStartOffset) future.truncateFullyAndStartAt(current.logStartOffset);
    let budget = maxBytes;
    while (future.logEndOffset < current.logEndOffset && budget > 0) {
      const bytes = current.readBuffer(future.logEndOffset, Math.min(budget, COPY_CHUNK_BYTES), {
        maxOffsetExclusive: current.logEndOffset,
      });
      if (bytes.byteLength === 0) break;
      const firstBase = offsetOf(bytes.readBigInt64BE(BatchLayout.BASE_OFFSET_OFFSET));
      // The current log starts inside its first batch (DeleteRecords): the future restarts at
      // that batch, as a follower does, and its start moves up again below.
      if (firstBase < future.logEndOffset && future.logEndOffset === future.logStartOffset) future.truncateFullyAndStartAt(firstBase);
      future.appendAsFollower(bytes);
      budget -= bytes.byteLength;
    }
    future.highWatermark = earliest(latest(current.highWatermark, future.logStartOffset), future.logEndOffset);
    if (current.logStartOffset > future.logStartOffset) future.deleteRecordsTo(earliest(current.logStartOffset, future.highWatermark));
    return { copiedBytes: maxBytes - budget, caughtUp: future.logEndOffset === current.logEndOffset };
  }

  /**
   * After the swap, on the log that replaced the current one: the epochs the current log knows
   * that no copied batch carried (a leader that took over at the log end and has not written yet;
   * opening a log drops them, as Kafka's does, but this replica still leads in that epoch).
   */
  carryEpochsTo(log: PartitionLog): void {
    const epochs = log.leaderEpochCache;
    for (const entry of this.current.leaderEpochCache.entries) {
      if (entry.epoch > epochs.latestEpoch) epochs.assign(entry.epoch, entry.startOffset);
    }
  }

  stop(): void {
    this.#unsubscribe();
  }

  /** The current log dropped records the future may hold: the future drops them too. */
  #followTruncation(end: Offset, restartedAt: Offset | null): void {
    const future = this.future;
    try {
      if (restartedAt !== null) future.truncateFullyAndStartAt(restartedAt);
      else if (future.logEndOffset > end) future.truncateTo(end);
    } catch (e) {
      // The future's dir went offline: nothing more is written there and the move stays stuck.
      if (!(e instanceof StorageError)) throw e;
    }
  }
}
