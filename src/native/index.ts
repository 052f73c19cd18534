/**
 * The native surface the rest of Sluice imports: CRC32C, zero-copy sendfile, mapped files and
 * the record batch codecs. All are backed by the addon loaded in ./binding.ts.
 */
import { native } from './binding.js';

/** CRC-32C (Castagnoli). Incremental: pass the previous result as `seed` to continue. */
export function crc32c(data: Uint8Array, seed = 0): number {
  return native().crc32c(data, seed);
}

/** 'sse4.2' when the CPU's crc32 instruction is used, 'portable' otherwise. */
export function crc32cImplementation(): 'sse4.2' | 'portable' {
  return native().crc32cImplementation;
}

export { copyBytes } from './copy-bytes.js';
export { recordsPass } from './record-scan.js';
export { sendFile, sendFileNow } from './send-file.js';
export { mapFile, MappedRegion } from './mapped-file.js';
export {
  CompressionCodec,
  codecAvailable,
  compress,
  compressAsync,
  decompress,
  decompressAsync,
  decompressTransient,
} from './compression.js';
