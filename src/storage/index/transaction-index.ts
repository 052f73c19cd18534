/**
 * `<base offset>.txnindex`: the aborted transactions whose abort marker lies in this segment
 * (Kafka's `TransactionIndex`), which a read_committed fetch returns so that the consumer drops
 * their records. Entries of 34 bytes, big-endian, in the order of their markers:
 *
 *   int16 version (0) | int64 producer id | int64 first offset | int64 last offset (the marker's)
 *   | int64 last stable offset when the transaction was aborted
 *
 * The file exists only once a segment has an aborted transaction (created lazily, as Kafka's), so
 * a missing file is an empty index. Entries are read from the file once and then kept in memory;
 * appends are rare (one per aborted transaction and partition), so each opens, writes and closes
 * the file, and `flush` fsyncs it if anything was written since.
 *
 * Crash behaviour: an entry is written after its marker; a crash may lose it (or leave a torn
 * tail, which is ignored and overwritten). The segment's recovery after an unclean shutdown
 * rebuilds the index from the markers (`reset`, then the producer state scan appends again).
 * Owned by the partition's worker thread, like its segment.
 */
import { closeSync, constants, fdatasyncSync, ftruncateSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { AbortedTxn as AbortedTxnSchema } from '@sluice/protocol/messages/schemas/aborted-txn.js';
import { readVersioned, writeVersioned } from '@sluice/protocol/primitives/versioned-schema.js';
import { offsetOf, type Offset } from '@sluice/protocol/common/offsets.js';

export const TXN_INDEX_ENTRY_SIZE = 34;
const TXN_INDEX_VERSION = 0;

export interface AbortedTxn {
  readonly producerId: bigint;
  readonly firstOffset: Offset;
  /** The abort marker's offset. */
  readonly lastOffset: Offset;
  /** The partition's last stable offset once this transaction ended (Kafka's `lastStableOffset(completedTxn)`). */
  readonly lastStableOffset: Offset;
}

/** The aborted transactions of one segment that overlap a fetch; `complete` when no later segment can add one. */
export interface AbortedTxnSearch {
  readonly aborted: AbortedTxn[];
  readonly complete: boolean;
}

export function encodeAbortedTxn(txn: AbortedTxn): Buffer {
  return writeVersioned(AbortedTxnSchema, TXN_INDEX_VERSION, {
    producerId: txn.producerId,
    firstOffset: BigInt(txn.firstOffset),
    lastOffset: BigInt(txn.lastOffset),
    lastStableOffset: BigInt(txn.lastStableOffset),
  });
}

function decodeAbortedTxn(bytes: Buffer): AbortedTxn {
  const { data } = readVersioned(AbortedTxnSchema, bytes);
  return {
    producerId: data.producerId,
    firstOffset: offsetOf(data.firstOffset),
    lastOffset: offsetOf(data.lastOffset),
    lastStableOffset: offsetOf(data.lastStableOffset),
  };
}

export class TransactionIndex {
  #path: string;
  /** Null until first needed. */
  #entries: AbortedTxn[] | null = null;
  #dirty = false;

  constructor(path: string) {
    this.#path = path;
  }

  get path(): string {
    return this.#path;
  }

  get entries(): readonly AbortedTxn[] {
    return this.#load();
  }

  /** Appends one aborted transaction; its marker must follow every indexed one. */
  append(txn: AbortedTxn): void {
    const entries = this.#load();
    const last = entries[entries.length - 1];
    if (last !== undefined && txn.lastOffset <= last.lastOffset) {
      throw new RangeError(
        `aborted transaction ending at ${txn.lastOffset} does not follow the one ending at ${last.lastOffset} in ${this.#path}`,
      );
    }
    const fd = openSync(this.#path, constants.O_CREAT | constants.O_WRONLY);
    try {
      // Positional, so that a torn tail left by a crash is overwritten.
      const bytes = encodeAbortedTxn(txn);
      const at = entries.length * TXN_INDEX_ENTRY_SIZE;
      ftruncateSync(fd, at);
      writeSync(fd, bytes, 0, bytes.length, at);
    } finally {
      closeSync(fd);
    }
    entries.push(txn);
    this.#dirty = true;
  }

  /** Whether the transaction aborted by the marker at `lastOffset` is indexed (a replayed marker must not be added twice). */
  holdsMarker(lastOffset: Offset): boolean {
    const entries = this.#load();
    return entries.length > 0 && entries[entries.length - 1]!.lastOffset >= lastOffset;
  }

  /**
   * Kafka's `collectAbortedTxns`: the transactions that end at or after `fetchOffset` and start
   * before `upperBoundOffset`. Complete once an entry's last stable offset reaches the upper
   * bound: every transaction aborted later started after it.
   */
  collect(fetchOffset: number, upperBoundOffset: number): AbortedTxnSearch {
    const aborted: AbortedTxn[] = [];
    for (const txn of this.#load()) {
      if (txn.lastOffset >= fetchOffset && txn.firstOffset < upperBoundOffset) aborted.push(txn);
      if (txn.lastStableOffset >= upperBoundOffset) return { aborted, complete: true };
    }
    return { aborted, complete: false };
  }

  /** Drops the transactions whose marker is at or after `offset` (a truncation of the segment). */
  truncateTo(offset: number): void {
    const entries = this.#load();
    const keep = entries.findIndex((txn) => txn.lastOffset >= offset);
    if (keep < 0) return;
    entries.length = keep;
    this.#truncateFile(keep);
  }

  /** Empties the index (recovery rebuilds it). */
  reset(): void {
    this.#entries = [];
    this.#truncateFile(0);
  }

  flush(): void {
    if (!this.#dirty) return;
    ignoreMissing(() => {
      const fd = openSync(this.#path, 'r+');
      try {
        fdatasyncSync(fd);
      } finally {
        closeSync(fd);
      }
    });
    this.#dirty = false;
  }

  /** Renames the file if there is one (a segment being deleted or swapped). */
  renameTo(path: string): void {
    ignoreMissing(() => renameSync(this.#path, path));
    this.#path = path;
  }

  #truncateFile(entries: number): void {
    ignoreMissing(() => {
      const fd = openSync(this.#path, 'r+');
      try {
        ftruncateSync(fd, entries * TXN_INDEX_ENTRY_SIZE);
      } finally {
        closeSync(fd);
      }
    });
    this.#dirty = true;
  }

  #load(): AbortedTxn[] {
    if (this.#entries !== null) return this.#entries;
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.#path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      bytes = Buffer.alloc(0);
    }
    const entries: AbortedTxn[] = [];
    // A torn last entry is left out; the next append overwrites it.
    for (let at = 0; at + TXN_INDEX_ENTRY_SIZE <= bytes.length; at += TXN_INDEX_ENTRY_SIZE) {
      entries.push(decodeAbortedTxn(bytes.subarray(at, at + TXN_INDEX_ENTRY_SIZE)));
    }
    this.#entries = entries;
    return entries;
  }
}

function ignoreMissing(action: () => void): void {
  try {
    action();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}
