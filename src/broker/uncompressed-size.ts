/**
 * How `ClientProduceMetrics` measures a sampled batch's compression ratio: the records section
 * decompressed on the thread pool, bounded as the record reader bounds it (64 MiB).
 */
import { decompressAsync, type CompressionCodec } from '../native/index.js';

const MAX_SAMPLE_BYTES = 64 * 1024 * 1024;

export async function uncompressedRecordsSize(codec: number, records: Buffer): Promise<number> {
  return (await decompressAsync(codec as CompressionCodec, records, MAX_SAMPLE_BYTES)).length;
}
