/**
 * `<base offset>.index`: a sparse map from offset to byte position in the segment's `.log`.
 *
 *   entry (8 bytes, big-endian): relative offset u32 (offset - base offset) | file position u32
 *
 * One entry is written each time more than `index.interval.bytes` of batches have been appended
 * since the previous one; it names the *last* offset of the batch that starts at that position
 * (as Kafka's `LogSegment.append` does). Offsets and positions strictly increase. A lookup returns
 * the closest entry at or below the target; the reader then scans batch headers from there.
 * Crash behaviour and ownership: see `MappedIndex`.
 */
import { CorruptIndexError } from '../storage-error.js';
import { INT32_MAX, type FilePosition, type RelativeOffset } from '../offsets.js';
import { type Offset } from '@sluice/protocol/common/offsets.js';
import { MappedIndex } from './mapped-index.js';

export const OFFSET_INDEX_ENTRY_SIZE = 8;

export interface OffsetPosition {
  readonly offset: Offset;
  readonly position: FilePosition;
}

export class OffsetIndex extends MappedIndex {
  readonly entrySize = OFFSET_INDEX_ENTRY_SIZE;

  #relativeOffsetAt = (slot: number): number => this.view.getUint32(slot * OFFSET_INDEX_ENTRY_SIZE);

  entryAt(slot: number): OffsetPosition {
    const view = this.view;
    return {
      offset: (this.baseOffset + view.getUint32(slot * OFFSET_INDEX_ENTRY_SIZE)) as Offset,
      position: view.getUint32(slot * OFFSET_INDEX_ENTRY_SIZE + 4) as FilePosition,
    };
  }

  /** The newest entry, or (base offset, 0) when there is none. */
  lastEntry(): OffsetPosition {
    const entries = this.entries;
    return entries === 0 ? { offset: this.baseOffset, position: 0 as FilePosition } : this.entryAt(entries - 1);
  }

  /** The entry with the largest offset <= `target`, or (base offset, 0). */
  lookup(target: Offset): OffsetPosition {
    const slot = this.largestLowerBoundSlot(target - this.baseOffset, this.#relativeOffsetAt);
    return slot < 0 ? { offset: this.baseOffset, position: 0 as FilePosition } : this.entryAt(slot);
  }

  append(offset: Offset, position: FilePosition): void {
    const relative = (offset - this.baseOffset) as RelativeOffset;
    if (relative < 0 || relative > INT32_MAX) throw new RangeError(`offset ${offset} does not fit relative to ${this.baseOffset}`);
    const entries = this.entries;
    if (entries > 0 && offset <= this.lastEntry().offset) {
      throw new RangeError(`offset ${offset} is not above the last indexed offset ${this.lastEntry().offset} in ${this.path}`);
    }
    const at = this.nextSlotPosition();
    const view = this.view;
    view.setUint32(at, relative);
    view.setUint32(at + 4, position);
    this.commitSlot();
  }

  /** Drops the entries for offsets >= `offset`. */
  truncateTo(offset: Offset): void {
    const slot = this.largestLowerBoundSlot(offset - this.baseOffset, this.#relativeOffsetAt);
    if (slot < 0) this.truncateToEntries(0);
    else this.truncateToEntries(this.#relativeOffsetAt(slot) === offset - this.baseOffset ? slot : slot + 1);
  }

  /**
   * Kafka's checks (whole entries; last offset not below the base) plus what Kafka takes on
   * trust: offsets and positions strictly increase and stay inside the `.log` file. Walking
   * every entry costs ~1 ms per 100k entries and happens once, at first use.
   */
  sanityCheck(logSize: number): void {
    const entries = this.entries; // maps the file, which records its length
    if (this.lengthAtLoad % OFFSET_INDEX_ENTRY_SIZE !== 0) {
      throw new CorruptIndexError(this.path, `length ${this.lengthAtLoad} is not a multiple of ${OFFSET_INDEX_ENTRY_SIZE}`);
    }
    const view = this.view;
    let previousOffset = -1;
    let previousPosition = -1;
    for (let slot = 0; slot < entries; slot++) {
      const relative = view.getUint32(slot * OFFSET_INDEX_ENTRY_SIZE);
      const position = view.getUint32(slot * OFFSET_INDEX_ENTRY_SIZE + 4);
      if (relative > INT32_MAX || relative <= previousOffset || position <= previousPosition || position >= logSize) {
        throw new CorruptIndexError(
          this.path,
          `entry ${slot} (${relative}, ${position}) is out of order or past the log (${logSize} bytes)`,
        );
      }
      previousOffset = relative;
      previousPosition = position;
    }
  }
}
