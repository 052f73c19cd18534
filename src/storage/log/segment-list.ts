/**
 * The segments of one partition, oldest first, the last one active: Kafka's `LogSegments` with
 * the segment work of its `LocalLog`. It finds segments by offset, rolls, cuts the list at a
 * truncation, swaps cleaned segments in, and drops segments: a dropped segment is renamed to
 * `.deleted` at once and unlinked by the `SegmentDeleter` after `file.delete.delay.ms`, once no
 * read lease remains. The offsets that frame the log, the producer table and the turning of I/O
 * errors into an offline log dir are PartitionLog's, which holds this list.
 *
 * Single-threaded: owned by the partition's worker thread, like its PartitionLog.
 */
import type { CleanedSegment } from '../cleaner/clean-task.js';
import { swapCleanedSegment } from '../cleaner/segment-swap.js';
import type { LogConfig } from '../log-config.js';
import type { Offset } from '@sluice/protocol/common/offsets.js';
import { LogSegment, segmentSettings, type SegmentSettings } from '../segment/log-segment.js';
import type { SegmentDeleter } from '../segment/segment-deleter.js';

/** Index of the last of `segments` (sorted by base offset) whose base offset is <= `offset`, or -1. */
export function floorIndex(segments: readonly LogSegment[], offset: Offset): number {
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

export class SegmentList {
  readonly #dir: string;
  readonly #deleter: SegmentDeleter;
  readonly #clock: () => number;
  /** Never empty: a log always has an active segment. */
  #segments: LogSegment[];
  #settings: SegmentSettings;
  #deleteDelayMs: number;

  constructor(dir: string, segments: LogSegment[], config: LogConfig, deleter: SegmentDeleter, clock: () => number) {
    this.#dir = dir;
    this.#deleter = deleter;
    this.#clock = clock;
    this.#segments = segments;
    this.#settings = segmentSettings(config);
    this.#deleteDelayMs = config['file.delete.delay.ms'];
  }

  get all(): readonly LogSegment[] {
    return this.#segments;
  }

  get count(): number {
    return this.#segments.length;
  }

  get first(): LogSegment {
    return this.#segments[0]!;
  }

  get active(): LogSegment {
    return this.#segments[this.#segments.length - 1]!;
  }

  /** The segments the cleaner may plan on: all but the active one, oldest first. */
  inactive(): LogSegment[] {
    return this.#segments.slice(0, -1);
  }

  get baseOffsets(): Offset[] {
    return this.#segments.map((s) => s.baseOffset);
  }

  /** Bytes in all segments. */
  get size(): number {
    let total = 0;
    for (const segment of this.#segments) total += segment.size;
    return total;
  }

  get pendingDeletions(): number {
    return this.#deleter.pending;
  }

  floorIndex(offset: Offset): number {
    return floorIndex(this.#segments, offset);
  }

  find(baseOffset: Offset): LogSegment | undefined {
    return this.#segments.find((s) => s.baseOffset === baseOffset);
  }

  /** New index sizes and jitter apply to segments created from now on; the delete delay to segments dropped from now on. */
  updateConfig(config: LogConfig): void {
    this.#settings = segmentSettings(config);
    this.#deleteDelayMs = config['file.delete.delay.ms'];
    for (const segment of this.#segments) segment.updateSettings(this.#settings);
  }

  /** Starts a new active segment at `baseOffset`. */
  roll(baseOffset: Offset, nowMs: number): void {
    const next = LogSegment.create(this.#dir, baseOffset, this.#settings, nowMs);
    this.active.becomeInactive();
    this.#segments.push(next);
  }

  /** Takes the `count` oldest segments out of the list; the caller retires each. */
  removeOldest(count: number): LogSegment[] {
    return this.#segments.splice(0, count);
  }

  /** Renames a dropped segment to `.deleted` and schedules the unlink. */
  retire(segment: LogSegment): void {
    segment.markDeleted();
    this.#deleter.schedule(segment, this.#clock() + this.#deleteDelayMs);
  }

  /**
   * Drops the segments above the one holding `offset` and cuts that one, which becomes the
   * active segment. `offset` is at or above the first segment's base offset.
   */
  truncateTo(offset: Offset): void {
    const dropped = this.#segments.splice(this.floorIndex(offset) + 1);
    for (const segment of dropped) this.retire(segment);
    const segment = this.active;
    if (dropped.length > 0) segment.becomeActive();
    segment.truncateTo(offset);
  }

  /** Replaces every segment with one empty segment at `offset`. */
  truncateFullyAndStartAt(offset: Offset, nowMs: number): void {
    const fresh = LogSegment.create(this.#dir, offset, this.#settings, nowMs);
    const old = this.#segments;
    this.#segments = [fresh];
    for (const segment of old) this.retire(segment);
  }

  /** True while every one of `segments` is still in the list and inactive. */
  holdsInactive(segments: readonly LogSegment[]): boolean {
    const inactive = new Set(this.inactive());
    return segments.every((s) => inactive.has(s));
  }

  /** Swaps each cleaned segment in for the `planned` segments it replaces (renames in cleaner/segment-swap.ts). */
  swapIn(cleaned: readonly CleanedSegment[], planned: readonly LogSegment[]): void {
    const byBase = new Map(planned.map((s) => [s.baseOffset as number, s]));
    for (const c of cleaned) {
      const replaced = c.replaces.map((base) => byBase.get(base)!);
      const fresh = swapCleanedSegment(this.#dir, c.baseOffset, c.size, replaced, this.#settings, (segment) => this.retire(segment));
      this.#segments.splice(this.#segments.indexOf(replaced[0]!), replaced.length, fresh);
    }
  }

  /** fsyncs every segment from the one holding `from` through the last that starts below `upTo`. */
  flush(from: Offset, upTo: Offset): void {
    const segments = this.#segments;
    for (let i = Math.max(0, this.floorIndex(from)); i < segments.length && segments[i]!.baseOffset < upTo; i++) segments[i]!.flush();
  }

  /** Unlinks the `.deleted` files that are due at `nowMs` and unleased; returns how many segments went. */
  runDeletions(nowMs: number): number {
    return this.#deleter.run(nowMs);
  }

  close(): void {
    for (const segment of this.#segments) segment.close();
  }

  abandon(): void {
    for (const segment of this.#segments) segment.abandon();
  }
}
