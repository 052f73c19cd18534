/**
 * The native surface the rest of Sluice imports: CRC32C, zero-copy sendfile, mapped files and
 * the record batch codecs. All are backed by the addon loaded in ./binding.ts.
 *
 * Loading this module also hands the protocol the addon's CRC32C, copy, record scan and codecs
 * (`installAccelerators`): every thread of a broker loads it (the main thread for sendfile, each
 * partition worker and cleaner for mapped indexes), so each has them. The addon itself still
 * loads with its first call.
 */
import { installAccelerators } from '@sluice/protocol/accelerators.js';
import { native } from './binding.js';
import { codecAvailable, compress, decompress } from './compression.js';
import { copyBytes } from './copy-bytes.js';
import { recordsPass } from './record-scan.js';

/** CRC-32C (Castagnoli). Incremental: pass the previous result as `seed` to continue. */
export function crc32c(data: Uint8Array, seed = 0): number {
  return native().crc32c(data, seed);
}

/** 'sse4.2' when the CPU's crc32 instruction is used, 'portable' otherwise. */
export function crc32cImplementation(): 'sse4.2' | 'portable' {
  return native().crc32cImplementation;
}

installAccelerators({ provider: 'sluice-native', crc32c, copyBytes, recordsPass, codecAvailable, compress, decompress });

export { copyBytes, recordsPass };
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
