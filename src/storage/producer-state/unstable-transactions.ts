/**
 * The transactions that keep a partition's last stable offset down (Kafka's `ongoingTxns` and
 * `unreplicatedTxns` of `ProducerStateManager`): the open ones, and the completed ones whose
 * marker is not yet below the high watermark. Both are kept ordered by first offset; the first
 * unstable offset is the smallest first offset of either. Owned by the partition's worker.
 */
import type { Offset } from '@sluice/protocol/common/offsets.js';
import type { CompletedTxn } from './txn-marker.js';

interface TxnRange {
  readonly producerId: bigint;
  readonly firstOffset: Offset;
  /** The marker's offset once completed. */
  readonly lastOffset: Offset | null;
}

/** Inserts keeping `list` ordered by first offset (transactions are few; a linear insert is enough). */
function insertOrdered(list: TxnRange[], txn: TxnRange): void {
  let at = list.length;
  while (at > 0 && list[at - 1]!.firstOffset > txn.firstOffset) at--;
  list.splice(at, 0, txn);
}

export class UnstableTransactions {
  readonly #ongoing: TxnRange[] = [];
  readonly #unreplicated: TxnRange[] = [];

  /** Completed transactions still above the high watermark (Kafka counts them in `isEmpty`). */
  get hasUnreplicated(): boolean {
    return this.#unreplicated.length > 0;
  }

  begin(producerId: bigint, firstOffset: Offset): void {
    insertOrdered(this.#ongoing, { producerId, firstOffset, lastOffset: null });
  }

  /**
   * Kafka's `lastStableOffset(completedTxn)`, for the transaction index: the first offset of the
   * earliest open transaction of another producer, else the offset after the marker.
   */
  lastStableOffset(completed: CompletedTxn): Offset {
    const next = this.#ongoing.find((t) => t.producerId !== completed.producerId);
    return next?.firstOffset ?? ((completed.lastOffset + 1) as Offset);
  }

  /** The transaction is decided; it stays unstable until the high watermark passes its marker. */
  complete(completed: CompletedTxn): void {
    const at = this.#ongoing.findIndex((t) => t.firstOffset === completed.firstOffset && t.producerId === completed.producerId);
    if (at < 0) throw new Error(`transaction of producer ${completed.producerId} at ${completed.firstOffset} was not started`);
    this.#ongoing.splice(at, 1);
    insertOrdered(this.#unreplicated, {
      producerId: completed.producerId,
      firstOffset: completed.firstOffset,
      lastOffset: completed.lastOffset,
    });
  }

  /** The first offset of the earliest open or unreplicated transaction, or null when there is none. */
  firstUnstableOffset(): Offset | null {
    const ongoing = this.#ongoing[0]?.firstOffset ?? null;
    const unreplicated = this.#unreplicated[0]?.firstOffset ?? null;
    if (ongoing === null) return unreplicated;
    if (unreplicated === null) return ongoing;
    return Math.min(ongoing, unreplicated) as Offset;
  }

  /** Forgets the completed transactions whose marker is below `offset` (the high watermark, or a new log start). */
  removeUnreplicatedBelow(offset: number): void {
    for (let i = this.#unreplicated.length - 1; i >= 0; i--) {
      if (this.#unreplicated[i]!.lastOffset! < offset) this.#unreplicated.splice(i, 1);
    }
  }

  clear(): void {
    this.#ongoing.length = 0;
    this.#unreplicated.length = 0;
  }
}
