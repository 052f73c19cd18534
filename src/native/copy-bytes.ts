/**
 * Byte copies whose target may be SharedArrayBuffer memory (request frames that partition
 * workers read in place). V8 copies into shared memory with relaxed atomic stores, byte by byte
 * unless source and target are equally aligned — about 3.4 GB/s, and a request frame assembled
 * from socket chunks is rarely so aligned — so large copies into shared memory go through the
 * addon's memmove instead (~25 GB/s). Small ones, and copies into ordinary memory, stay in
 * JavaScript, where they cost less than the call.
 */
import { portableCopyBytes } from '@sluice/protocol/accelerators.js';
import { native } from './binding.js';

/** Below this, a call into the addon costs more than V8's byte-wise copy saves. */
const NATIVE_COPY_MIN_BYTES = 4096;

/** Copies all of `source` into `target` at `targetStart`; throws RangeError if it does not fit. */
export function copyBytes(source: Uint8Array, target: Uint8Array, targetStart: number): void {
  if (source.byteLength >= NATIVE_COPY_MIN_BYTES && target.buffer instanceof SharedArrayBuffer) {
    native().copyBytes(source, target, targetStart);
    return;
  }
  portableCopyBytes(source, target, targetStart);
}
