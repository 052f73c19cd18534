/**
 * Kafka's attribute numbers for the compression type (bits 0-2 of a batch's attributes), apart
 * from the codecs themselves: the record batch format, which a broker loads at start, names them
 * without loading node:zlib and the addon, which only compressing and decompressing need.
 */
export const CompressionCodec = {
  None: 0,
  Gzip: 1,
  Snappy: 2,
  Lz4: 3,
  Zstd: 4,
} as const;
export type CompressionCodec = (typeof CompressionCodec)[keyof typeof CompressionCodec];
