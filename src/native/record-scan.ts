/**
 * The produce path's per-record checks of an uncompressed batch in one native loop, for the
 * common case where every record passes (`native/record_scan.cc`). At 100-byte records the
 * TypeScript walk costs ~40 ns a record, a large share of the worker's CPU per GB; the loop
 * answers only "all pass", and anything else is left to that walk, which reports each error.
 */
import { native } from './binding.js';

/**
 * True when the `count` records of `section` are well formed, have offset deltas 0, 1, 2…, a key
 * each when `requireKeys`, and timestamp deltas within [deltaLo, deltaHi] (±Infinity: no window).
 * False says nothing about the batch: walk it to find out.
 */
export function recordsPass(section: Uint8Array, count: number, deltaLo: number, deltaHi: number, requireKeys: boolean): boolean {
  return native().recordsPass(section, count, deltaLo, deltaHi, requireKeys);
}
