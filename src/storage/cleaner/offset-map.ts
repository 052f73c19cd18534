/**
 * The cleaner's key → latest offset map (Kafka's `OffsetMap`), built from the dirty section of
 * a log and consulted for every record of the cleanable range.
 *
 * Kafka's `SkimpyOffsetMap` keys a fixed buffer by the MD5 of each key and accepts the (tiny)
 * chance that two keys collide and one is wrongly dropped. Sluice keys a `Map` by the key bytes
 * themselves (a latin1 string: one char per byte, exact), so no record is ever lost to a
 * collision; memory is bounded by a cap on entries instead of a buffer size (about 100 bytes per
 * distinct key plus the key itself).
 *
 * Lives for one cleaning job on one cleaner thread.
 */
export const NO_OFFSET = -1;

export class KeyOffsetMap {
  readonly #offsets = new Map<string, number>();
  #latestOffset = NO_OFFSET;

  /** Records `offset` as the latest for `key`; offsets must be put in increasing order. */
  put(key: Buffer, offset: number): void {
    this.#offsets.set(key.toString('latin1'), offset);
    this.#latestOffset = offset;
  }

  /** The latest offset of `key`, or NO_OFFSET if the dirty section does not hold it. */
  get(key: Buffer): number {
    return this.#offsets.get(key.toString('latin1')) ?? NO_OFFSET;
  }

  get size(): number {
    return this.#offsets.size;
  }

  /** The last offset the map covers: records above it were not seen and are always kept. */
  get latestOffset(): number {
    return this.#latestOffset;
  }

  /**
   * Kafka's `updateLatestOffset`: after a scan the map covers its whole range, even if the last
   * records had no key, so tombstones in the clean section can be judged in a pass with nothing dirty.
   */
  coverUpTo(offset: number): void {
    this.#latestOffset = Math.max(this.#latestOffset, offset);
  }
}
