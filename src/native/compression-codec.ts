/**
 * Kafka's attribute numbers for the compression type (bits 0-2 of a batch's attributes), apart
 * from the codecs themselves: the record batch format names them without loading node:zlib and
 * the addon (a broker's start-up reads batch attributes long before it compresses anything).
 */
export const CompressionCodec = {
  None: 0,
  Gzip: 1,
  Snappy: 2,
  Lz4: 3,
  Zstd: 4,
} as const;
export type CompressionCodec = (typeof CompressionCodec)[keyof typeof CompressionCodec];
