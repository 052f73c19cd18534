/** Shared by the record-batch tests: gzip codecs from node:zlib and the Kafka-written fixtures. */
import { readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { CompressionType, type Compressor, type Decompressor } from '../../src/records/index.js';

export const gzipDecompressor: Decompressor = (codec, data, maxBytes) => {
  if (codec !== CompressionType.Gzip) throw new Error(`test decompressor handles gzip only, got codec ${codec}`);
  return gunzipSync(data, { maxOutputLength: maxBytes });
};

export const gzipCompressor: Compressor = (codec, data) => {
  if (codec !== CompressionType.Gzip) throw new Error(`test compressor handles gzip only, got codec ${codec}`);
  return gzipSync(data);
};

export type KafkaFixtureName = 'plain' | 'transactional' | 'gzip' | 'commitMarker';

/** Batches written by Kafka's own MemoryRecords (see fixtures/KafkaBatchFixtures.java). */
export function kafkaFixture(name: KafkaFixtureName): Buffer {
  const path = new URL('../../../test/records/fixtures/kafka-batches.json', import.meta.url);
  const fixtures = JSON.parse(readFileSync(path, 'utf8')) as Record<KafkaFixtureName, string>;
  return Buffer.from(fixtures[name], 'hex');
}

export function utf8(s: string): Buffer {
  return Buffer.from(s, 'utf8');
}
