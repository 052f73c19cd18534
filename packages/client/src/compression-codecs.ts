/**
 * Compression for the client: Kafka's codec names (`compression.type`) and the native codecs
 * bound to the record batch encoder's and reader's function types.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { codecAvailable, compress, decompress } from '@sluice/protocol/accelerators.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { CompressionType, type Compressor, type Decompressor } from '@sluice/protocol/records/index.js';

export const COMPRESSION_NAMES = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
export type CompressionName = (typeof COMPRESSION_NAMES)[number];

const BY_NAME: Record<CompressionName, CompressionType> = {
  none: CompressionType.None,
  gzip: CompressionType.Gzip,
  snappy: CompressionType.Snappy,
  lz4: CompressionType.Lz4,
  zstd: CompressionType.Zstd,
};

export function isCompressionName(name: string): name is CompressionName {
  return (COMPRESSION_NAMES as readonly string[]).includes(name);
}

/** Refuses a codec this build of the addon left out before any record is sent with it. */
export function compressionType(name: CompressionName): CompressionType {
  const type = BY_NAME[name];
  if (!codecAvailable(type)) {
    throw new KafkaError(
      ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
      `compression '${name}' is not available here (snappy, lz4 and zstd need Sluice's native addon)`,
    );
  }
  return type;
}

export const compressRecords: Compressor = (codec, data) => compress(codec, data);
export const decompressRecords: Decompressor = (codec, data, maxBytes) => decompress(codec, data, maxBytes);
