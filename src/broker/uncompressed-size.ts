/**
 * How `ClientProduceMetrics` measures a sampled batch's compression ratio: the records section
 * decompressed on the thread pool, bounded as the record reader bounds it (64 MiB). The codecs
 * (node:zlib and the addon) load with the first sampled batch, not with the broker.
 */
import type { CompressionCodec } from '@sluice/protocol/records/compression-codec.js';

const MAX_SAMPLE_BYTES = 64 * 1024 * 1024;

export async function uncompressedRecordsSize(codec: number, records: Buffer): Promise<number> {
  const { decompressAsync } = await import('../native/compression.js');
  return (await decompressAsync(codec as CompressionCodec, records, MAX_SAMPLE_BYTES)).length;
}
