/**
 * `<base offset>.timeindex`: a sparse map from timestamp to offset, for ListOffsets by time and
 * for retention.
 *
 *   entry (12 bytes, big-endian): timestamp i64 | relative offset u32
 *
 * An entry is written, together with an offset index entry, each time `index.interval.bytes` have
 * been appended, but only when the segment's largest timestamp so far has grown past the last
 * entry's; and once more when the segment rolls or closes cleanly, so the last entry always holds
 * the segment's largest timestamp and its offset (what retention and max-timestamp lookups read
 * after a restart). Timestamps strictly increase, offsets never decrease. One slot is kept free
 * for that final entry (`isFull`, as Kafka). Crash behaviour and ownership: see `MappedIndex`.
 */
import { CorruptIndexError } from '../storage-error.js';
import { INT32_MAX } from '../offsets.js';
import { type Offset } from '@sluice/protocol/common/offsets.js';
import { MappedIndex } from './mapped-index.js';

export const TIME_INDEX_ENTRY_SIZE = 12;
export const NO_TIMESTAMP = -1;

export interface TimestampOffset {
  readonly timestamp: number;
  readonly offset: Offset;
}

export class TimeIndex extends MappedIndex {
  readonly entrySize = TIME_INDEX_ENTRY_SIZE;

  /** int64 read as two halves: exact for every millisecond timestamp, and no bigint per probe. */
  #timestampAt = (slot: number): number => {
    const view = this.view;
    const at = slot * TIME_INDEX_ENTRY_SIZE;
    return view.getInt32(at) * 0x1_0000_0000 + view.getUint32(at + 4);
  };

  override get isFull(): boolean {
    return this.entries >= this.maxEntries - 1;
  }

  entryAt(slot: number): TimestampOffset {
    return {
      timestamp: this.#timestampAt(slot),
      offset: (this.baseOffset + this.view.getUint32(slot * TIME_INDEX_ENTRY_SIZE + 8)) as Offset,
    };
  }

  /** The newest entry, or (-1, base offset) when there is none. */
  lastEntry(): TimestampOffset {
    const entries = this.entries;
    return entries === 0 ? { timestamp: NO_TIMESTAMP, offset: this.baseOffset } : this.entryAt(entries - 1);
  }

  /** The entry with the largest timestamp <= `target`, or (-1, base offset). */
  lookup(target: number): TimestampOffset {
    const slot = this.largestLowerBoundSlot(target, this.#timestampAt);
    return slot < 0 ? { timestamp: NO_TIMESTAMP, offset: this.baseOffset } : this.entryAt(slot);
  }

  /**
   * Appends (timestamp, offset) if `timestamp` is above the last entry's. `final` is the roll /
   * close entry, allowed into the slot `isFull` keeps free.
   */
  maybeAppend(timestamp: number, offset: Offset, final = false): void {
    const entries = this.entries;
    const last = this.lastEntry();
    if (entries > 0 && offset < last.offset) {
      throw new RangeError(`offset ${offset} is below the last time-indexed offset ${last.offset} in ${this.path}`);
    }
    if (entries > 0 && timestamp <= last.timestamp) return;
    if (!final && this.isFull) throw new Error(`time index ${this.path} is full`);
    if (entries >= this.maxEntries) return;
    const at = this.nextSlotPosition();
    const view = this.view;
    view.setBigInt64(at, BigInt(timestamp));
    view.setUint32(at + 8, offset - this.baseOffset);
    this.commitSlot();
  }

  /** Drops the entries for offsets >= `offset`. */
  truncateTo(offset: Offset): void {
    const relative = offset - this.baseOffset;
    const view = this.view;
    let keep = this.entries;
    // Offsets are non-decreasing but not keys of the search, so walk back from the end: a
    // truncation cuts only the newest entries.
    while (keep > 0 && view.getUint32((keep - 1) * TIME_INDEX_ENTRY_SIZE + 8) >= relative) keep--;
    this.truncateToEntries(keep);
  }

  /** Kafka's checks (whole entries, last entry not older than the first) plus ordering of every entry. */
  sanityCheck(): void {
    const entries = this.entries; // maps the file, which records its length
    if (this.lengthAtLoad % TIME_INDEX_ENTRY_SIZE !== 0) {
      throw new CorruptIndexError(this.path, `length ${this.lengthAtLoad} is not a multiple of ${TIME_INDEX_ENTRY_SIZE}`);
    }
    const view = this.view;
    let previousTimestamp = -Infinity;
    let previousOffset = 0;
    for (let slot = 0; slot < entries; slot++) {
      const timestamp = this.#timestampAt(slot);
      const relative = view.getUint32(slot * TIME_INDEX_ENTRY_SIZE + 8);
      if (timestamp <= previousTimestamp || relative < previousOffset || relative > INT32_MAX) {
        throw new CorruptIndexError(this.path, `entry ${slot} (${timestamp}, ${relative}) is out of order`);
      }
      previousTimestamp = timestamp;
      previousOffset = relative;
    }
  }
}
