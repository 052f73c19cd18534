/**
 * The codecs every Node has: none and gzip (`node:zlib`). The others (snappy, lz4, zstd) need
 * the broker's addon, which adds them through `installAccelerators`.
 */
import { createRequire } from 'node:module';
import type Zlib from 'node:zlib';
import { KafkaError } from '../common/kafka-error.js';
import { ErrorCode } from '../errors.js';
import { CompressionCodec } from './compression-codec.js';

let loadedZlib: typeof Zlib | undefined;

/** `node:zlib`, loaded with the first gzip batch: most brokers and many clients never see one. */
export function nodeZlib(): typeof Zlib {
  loadedZlib ??= createRequire(import.meta.url)('node:zlib') as typeof Zlib;
  return loadedZlib;
}

export const CODEC_NAMES: Record<CompressionCodec, string> = { 0: 'none', 1: 'gzip', 2: 'snappy', 3: 'lz4', 4: 'zstd' };

export function isPortableCodec(codec: CompressionCodec): codec is typeof CompressionCodec.None | typeof CompressionCodec.Gzip {
  return codec === CompressionCodec.None || codec === CompressionCodec.Gzip;
}

export function asBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

export function corruptRecords(codec: CompressionCodec, error: unknown): KafkaError {
  const reason = error instanceof Error ? error.message : String(error);
  return new KafkaError(ErrorCode.CORRUPT_MESSAGE, `${CODEC_NAMES[codec]}: ${reason}`, { cause: error });
}

/** none and gzip; throws UNSUPPORTED_COMPRESSION_TYPE for the others. */
export function portableCompress(codec: CompressionCodec, data: Uint8Array): Buffer {
  if (codec === CompressionCodec.None) return asBuffer(data);
  if (codec === CompressionCodec.Gzip) return nodeZlib().gzipSync(data);
  throw unavailable(codec);
}

/** Uncompressed records, refused (CORRUPT_MESSAGE) past `maxDecompressedBytes`. */
export function plainWithinLimit(data: Uint8Array, maxDecompressedBytes: number): Buffer {
  if (data.byteLength > maxDecompressedBytes) {
    throw new KafkaError(ErrorCode.CORRUPT_MESSAGE, `records of ${data.byteLength} bytes exceed the limit of ${maxDecompressedBytes}`);
  }
  return asBuffer(data);
}

/** node:zlib refuses a limit of 0, so that one case is checked after the fact (`gunzippedWithinLimit`). */
export function gunzipOptions(maxDecompressedBytes: number): Zlib.ZlibOptions {
  return { maxOutputLength: Math.max(1, maxDecompressedBytes) };
}

export function gunzippedWithinLimit(output: Buffer, maxDecompressedBytes: number): Buffer {
  if (output.length > maxDecompressedBytes) {
    throw corruptRecords(CompressionCodec.Gzip, new Error(`decompressed size exceeds the limit of ${maxDecompressedBytes} bytes`));
  }
  return output;
}

/** Throws KafkaError CORRUPT_MESSAGE if `data` is not a valid frame or inflates past `maxDecompressedBytes`. */
export function portableDecompress(codec: CompressionCodec, data: Uint8Array, maxDecompressedBytes: number): Buffer {
  if (codec === CompressionCodec.None) return plainWithinLimit(data, maxDecompressedBytes);
  if (codec !== CompressionCodec.Gzip) throw unavailable(codec);
  let output: Buffer;
  try {
    output = nodeZlib().gunzipSync(data, gunzipOptions(maxDecompressedBytes));
  } catch (error) {
    throw corruptRecords(codec, error);
  }
  return gunzippedWithinLimit(output, maxDecompressedBytes);
}

function unavailable(codec: CompressionCodec): KafkaError {
  return new KafkaError(
    ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
    `${CODEC_NAMES[codec] ?? `codec ${String(codec)}`} needs Sluice's native addon, which is not loaded in this process`,
  );
}
