/**
 * Kafka's record batch codecs. gzip goes through node:zlib; snappy, lz4 and zstd through the
 * addon (Debian's libsnappy, liblz4, libzstd), as does gzip for `decompressTransient` (zlib).
 * Corrupt input and output beyond the caller's bound both throw KafkaError CORRUPT_MESSAGE,
 * which is what a broker answers for such a batch.
 */
import { promisify } from 'node:util';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { native, type NativeCodec, type NativeDecompressCodec } from './binding.js';
import { CompressionCodec } from '@sluice/protocol/records/compression-codec.js';
import {
  asBuffer,
  CODEC_NAMES,
  corruptRecords,
  gunzipOptions,
  gunzippedWithinLimit,
  nodeZlib,
  plainWithinLimit,
  portableCompress,
  portableDecompress,
} from '@sluice/protocol/records/portable-codecs.js';

export { CompressionCodec };

const UNSUPPORTED_COMPRESSION_TYPE = 76;
/** The addon sizes outputs with 32-bit lengths, and so does Kafka's batch format. */
const MAX_DECOMPRESSED_LIMIT = 0xffffffff;

const DEBIAN_PACKAGES: Record<NativeDecompressCodec, string> = { 1: 'zlib1g-dev', 2: 'libsnappy-dev', 3: 'liblz4-dev', 4: 'libzstd-dev' };

/** First size of the memory `decompressTransient` reuses: a 256 KiB batch's records fit. */
const INITIAL_SCRATCH_BYTES = 512 * 1024;
/** A larger scratch (a rare huge batch, a decompression bomb up to its limit) is dropped after its use. */
const RETAINED_SCRATCH_BYTES = 4 * 1024 * 1024;

/** This thread's decompression memory (each worker has its own module instance). */
let scratch: Buffer | null = null;

/** Which codecs this build serves; gzip and none always, the others if their library was found at build time. */
export function codecAvailable(codec: CompressionCodec): boolean {
  switch (codec) {
    case CompressionCodec.Snappy:
      return native().codecsAvailable.snappy;
    case CompressionCodec.Lz4:
      return native().codecsAvailable.lz4;
    case CompressionCodec.Zstd:
      return native().codecsAvailable.zstd;
    default:
      return true;
  }
}

export function compress(codec: CompressionCodec, data: Uint8Array): Buffer {
  checkArguments(codec, data, 0);
  switch (codec) {
    case CompressionCodec.None:
    case CompressionCodec.Gzip:
      return portableCompress(codec, data);
    default:
      return callNative(codec, () => native().compress(codec, data));
  }
}

/** Throws KafkaError CORRUPT_MESSAGE if `data` is not a valid frame or inflates past `maxDecompressedBytes`. */
export function decompress(codec: CompressionCodec, data: Uint8Array, maxDecompressedBytes: number): Buffer {
  checkArguments(codec, data, maxDecompressedBytes);
  switch (codec) {
    case CompressionCodec.None:
    case CompressionCodec.Gzip:
      return portableDecompress(codec, data, maxDecompressedBytes);
    default:
      return callNative(codec, () => native().decompress(codec, data, maxDecompressedBytes));
  }
}

/**
 * `decompress`, into memory that the next call on this thread reuses: the result is valid only
 * until then. For readers that keep nothing of the records (produce validation): a fresh output
 * buffer per batch costs an allocation, the page faults of new memory and the collector's
 * bookkeeping of external memory, many times what lz4 or zstd take to decompress a 256 KiB batch
 * (docs/journal/performance.md). gzip goes through the addon's zlib too when the build has it
 * (node:zlib has no such call), else through `decompress`.
 */
export function decompressTransient(codec: CompressionCodec, data: Uint8Array, maxDecompressedBytes: number): Buffer {
  checkArguments(codec, data, maxDecompressedBytes);
  if (codec === CompressionCodec.None) return plainWithinLimit(data, maxDecompressedBytes);
  if (codec === CompressionCodec.Gzip && !native().codecsAvailable.gzip) return decompress(codec, data, maxDecompressedBytes);
  let target = scratch ?? Buffer.allocUnsafeSlow(Math.min(INITIAL_SCRATCH_BYTES, maxDecompressedBytes + 1));
  for (;;) {
    const current = target;
    const written = callNative(codec, () => native().decompressInto(codec, data, maxDecompressedBytes, current));
    if (written >= 0) {
      scratch = current.length <= RETAINED_SCRATCH_BYTES ? current : null;
      return current.subarray(0, written);
    }
    if (current.length > maxDecompressedBytes)
      throw new Error(`${CODEC_NAMES[codec]}: the addon asked for more than ${maxDecompressedBytes + 1} bytes`);
    target = Buffer.allocUnsafeSlow(Math.min(Math.max(current.length * 2, data.byteLength * 4), maxDecompressedBytes + 1));
  }
}

/** As `compress`, on the thread pool. `data` must not be modified until the promise settles. */
export async function compressAsync(codec: CompressionCodec, data: Uint8Array): Promise<Buffer> {
  checkArguments(codec, data, 0);
  switch (codec) {
    case CompressionCodec.None:
      return asBuffer(data);
    case CompressionCodec.Gzip:
      return promisify(nodeZlib().gzip)(data);
    default:
      return awaitNative(codec, (callback) => native().compressAsync(codec, data, callback));
  }
}

/** As `decompress`, on the thread pool. `data` must not be modified until the promise settles. */
export async function decompressAsync(codec: CompressionCodec, data: Uint8Array, maxDecompressedBytes: number): Promise<Buffer> {
  checkArguments(codec, data, maxDecompressedBytes);
  switch (codec) {
    case CompressionCodec.None:
      return plainWithinLimit(data, maxDecompressedBytes);
    case CompressionCodec.Gzip:
      try {
        return gunzippedWithinLimit(await promisify(nodeZlib().gunzip)(data, gunzipOptions(maxDecompressedBytes)), maxDecompressedBytes);
      } catch (error) {
        throw corruptRecords(codec, error);
      }
    default:
      return awaitNative(codec, (callback) => native().decompressAsync(codec, data, maxDecompressedBytes, callback));
  }
}

function checkArguments(codec: CompressionCodec, data: Uint8Array, maxDecompressedBytes: number): void {
  if (!(codec in CODEC_NAMES) || !Number.isInteger(codec)) {
    throw new KafkaError(UNSUPPORTED_COMPRESSION_TYPE, `unknown compression codec ${String(codec)}`);
  }
  if (!(data instanceof Uint8Array)) throw new TypeError('data must be a Uint8Array');
  if (!Number.isSafeInteger(maxDecompressedBytes) || maxDecompressedBytes < 0 || maxDecompressedBytes > MAX_DECOMPRESSED_LIMIT) {
    throw new RangeError('maxDecompressedBytes must be an integer in [0, 2^32)');
  }
}

function callNative<T>(codec: NativeDecompressCodec, run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw translate(codec, error);
  }
}

function awaitNative(codec: NativeCodec, start: (callback: (error: Error | null, result?: Buffer) => void) => void): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    start((error, result) => {
      if (error) reject(translate(codec, error));
      else if (result) resolve(result);
      else reject(new Error(`${CODEC_NAMES[codec]}: the addon returned no buffer`));
    });
  });
}

function translate(codec: NativeDecompressCodec, error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ERR_SLUICE_CORRUPT_MESSAGE') return corruptRecords(codec, error);
  if (code === 'ERR_SLUICE_CODEC_UNAVAILABLE') {
    return new KafkaError(
      UNSUPPORTED_COMPRESSION_TYPE,
      `${CODEC_NAMES[codec]} is not available in this build: install ${DEBIAN_PACKAGES[codec]} (apt-get install ${DEBIAN_PACKAGES[codec]}) and rebuild the addon (\`npm run build\` in a clone, \`npm rebuild sluice --build-from-source\` in an install)`,
      { cause: error },
    );
  }
  return error;
}
