/**
 * The only loader of the native addon. Everything else imports these typed functions.
 * (Placeholder surface while the addon is built out: CRC32C falls back to the TS reference.)
 */
import { crc32cJs } from './crc32c-js.js';

export function crc32c(data: Uint8Array, seed = 0): number {
  return crc32cJs(data, seed);
}
