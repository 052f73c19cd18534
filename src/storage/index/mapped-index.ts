/**
 * The memory-mapped file under `.index` and `.timeindex` (Kafka's `AbstractIndex` + `LazyIndex`):
 * fixed-size big-endian entries, appended in key order, searched by binary search.
 *
 * Life cycle of the file:
 * - The active segment's index is preallocated to `segment.index.bytes` (rounded down to whole
 *   entries) and mapped writable; `entries` counts the valid ones, the rest are zeros.
 * - When the segment rolls, and on clean close, the file is trimmed to its entries, so its length
 *   alone tells the next start-up how many entries it holds (Kafka reads it the same way).
 * - Nothing is opened or mapped until first use: a log with thousands of segments opens without
 *   touching their indexes.
 * - After a crash a preallocated file is full of zeros past the real entries; recovery rebuilds
 *   such indexes from the log rather than trusting them (see `LogSegment`).
 *
 * The mapping is unmapped before the file is shrunk: touching a mapped page past a file's end
 * raises SIGBUS. So does the first write to a page of the (sparse) preallocated file on a full
 * disk: appends back the pages ahead of them with blocks first (`MappedRegion.populate`), so a
 * full disk fails the append with an I/O error, which takes the log dir offline, instead of
 * killing the process. Owned by the thread that owns the partition; never shared.
 */
import { closeSync, constants, fstatSync, ftruncateSync, openSync } from 'node:fs';
import { MappedRegion } from '../../native/index.js';
import { faultPoint } from '../fault-injection.js';
import type { Offset } from '@sluice/protocol/common/offsets.js';

/** Kafka searches the newest 8 KiB first: lookups near the end (tailing consumers, appends) touch only hot pages. */
const WARM_SECTION_BYTES = 8192;
/** How much of the file an append backs with blocks at a time: one call per 8,192 offset-index entries. */
const POPULATE_BYTES = 65_536;

export abstract class MappedIndex {
  abstract readonly entrySize: number;

  #path: string;
  #region: MappedRegion | null = null;
  #view: DataView | null = null;
  #entries = 0;
  #maxEntries = 0;
  #loaded = false;
  #writable: boolean;
  #maxIndexSize: number;
  /** Bytes from the start of the mapping known to be backed by blocks. */
  #populated = 0;
  /** File length seen when the index was mapped, for the sanity check. */
  protected lengthAtLoad = 0;

  constructor(
    path: string,
    readonly baseOffset: Offset,
    maxIndexSize: number,
    writable: boolean,
  ) {
    this.#path = path;
    this.#writable = writable;
    this.#maxIndexSize = maxIndexSize;
  }

  get path(): string {
    return this.#path;
  }

  get isLoaded(): boolean {
    return this.#loaded;
  }

  get writable(): boolean {
    return this.#writable;
  }

  get entries(): number {
    this.#load();
    return this.#entries;
  }

  get maxEntries(): number {
    this.#load();
    return this.#maxEntries;
  }

  get isFull(): boolean {
    return this.entries >= this.maxEntries;
  }

  /** Bytes of valid entries (the file's length once trimmed). */
  get sizeInBytes(): number {
    return this.entries * this.entrySize;
  }

  protected get view(): DataView {
    this.#load();
    // A read-only index with no entries has no mapping; callers check `entries` first.
    return this.#view ?? new DataView(new ArrayBuffer(0));
  }

  /** Reserves the next slot and returns its byte position in `view`. */
  protected nextSlotPosition(): number {
    faultPoint('index.append');
    if (!this.#writable) throw new Error(`index ${this.#path} is read-only`);
    if (this.entries >= this.maxEntries) throw new Error(`index ${this.#path} is full (${this.#maxEntries} entries)`);
    const position = this.#entries * this.entrySize;
    if (position + this.entrySize > this.#populated) this.#populateFrom(position);
    return position;
  }

  #populateFrom(position: number): void {
    const region = this.#region!;
    const end = Math.min(region.buffer.byteLength, position + POPULATE_BYTES);
    this.#populated = region.populate(position, end - position) ? end : region.buffer.byteLength;
  }

  protected commitSlot(): void {
    this.#entries++;
  }

  /** Keeps the first `entries` entries; later ones are ignored (and overwritten by appends). */
  protected truncateToEntries(entries: number): void {
    this.#load();
    this.#entries = Math.min(this.#entries, Math.max(0, entries));
  }

  /** Forgets every entry, without reading or checking the old ones (index rebuild). */
  reset(): void {
    this.#load();
    this.#entries = 0;
  }

  /**
   * Slot of the largest entry whose key is <= `target`, or -1 if the first entry is already
   * larger. The newest `WARM_SECTION_BYTES` are searched first (Kafka's warm section).
   */
  protected largestLowerBoundSlot(target: number, keyAt: (slot: number) => number): number {
    const entries = this.entries;
    if (entries === 0) return -1;
    const warmEntries = Math.floor(WARM_SECTION_BYTES / this.entrySize);
    const firstHot = Math.max(0, entries - 1 - warmEntries);
    if (keyAt(firstHot) < target) return binarySearch(firstHot, entries - 1, target, keyAt);
    if (keyAt(0) > target) return -1;
    return binarySearch(0, firstHot, target, keyAt);
  }

  /** Writes mapped pages back to the file (part of a segment flush). */
  flush(): void {
    if (this.#region !== null && this.#writable) this.#region.msync();
  }

  /** The segment stopped being active: shrink the file to its entries and map it read-only from now on. */
  becomeReadOnly(): void {
    if (!this.#writable) return;
    this.#load();
    this.flush();
    this.#unmap();
    this.#truncateFile(this.#entries * this.entrySize);
    this.#writable = false;
    this.#loaded = false;
  }

  /** The segment becomes active again (after a truncation): grow the file back and map it writable. */
  becomeWritable(maxIndexSize: number): void {
    if (this.#writable && maxIndexSize === this.#maxIndexSize) return;
    this.#load();
    const entries = this.#entries;
    this.#unmap();
    this.#truncateFile(entries * this.entrySize);
    this.#writable = true;
    this.#maxIndexSize = maxIndexSize;
    this.#loaded = false;
    this.#load();
    this.#entries = Math.min(entries, this.#maxEntries);
  }

  /** Clean close: flush, trim to the valid entries (so the next start-up can trust the length), unmap. */
  close(): void {
    if (this.#loaded && this.#writable) {
      this.flush();
      const size = this.#entries * this.entrySize;
      this.#unmap();
      this.#truncateFile(size);
    } else {
      this.#unmap();
    }
    this.#loaded = false;
  }

  /** Releases the mapping without trimming (crash simulation, deleted files). */
  unmapOnly(): void {
    this.#unmap();
    this.#loaded = false;
  }

  /** The file was renamed (e.g. to `.deleted`); the mapping stays valid. */
  setPath(path: string): void {
    this.#path = path;
  }

  #load(): void {
    if (this.#loaded) return;
    const fd = openSync(this.#path, this.#writable ? constants.O_RDWR | constants.O_CREAT : constants.O_RDONLY, 0o644);
    try {
      const length = fstatSync(fd).size;
      // A length that is not a whole number of entries is caught by the sanity check; until
      // then the partial entry is simply not counted.
      const entries = Math.floor(length / this.entrySize);
      if (this.#writable) {
        const capacity = Math.max(this.entrySize, this.#maxIndexSize - (this.#maxIndexSize % this.entrySize));
        if (length < capacity) ftruncateSync(fd, capacity);
        const mapped = Math.max(capacity, entries * this.entrySize);
        this.#region = new MappedRegion(fd, 0, mapped, true);
        this.#maxEntries = mapped / this.entrySize;
        this.#entries = Math.min(entries, this.#maxEntries);
        this.#populated = 0;
      } else {
        this.#region = entries === 0 ? null : new MappedRegion(fd, 0, entries * this.entrySize, false);
        this.#maxEntries = entries;
        this.#entries = entries;
      }
      this.#view = this.#region === null ? null : new DataView(this.#region.buffer);
      this.#loaded = true;
      this.lengthAtLoad = length;
    } finally {
      closeSync(fd);
    }
  }

  #unmap(): void {
    this.#region?.unmap();
    this.#region = null;
    this.#view = null;
  }

  #truncateFile(size: number): void {
    const fd = openSync(this.#path, constants.O_RDWR | constants.O_CREAT, 0o644);
    try {
      ftruncateSync(fd, size);
    } finally {
      closeSync(fd);
    }
  }
}

function binarySearch(lo: number, hi: number, target: number, keyAt: (slot: number) => number): number {
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (keyAt(mid) <= target) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
