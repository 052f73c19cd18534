/**
 * The record batches inside Produce requests captured from real producers (KafkaJS gzip,
 * librdkafka none/snappy/lz4/zstd, the Java client) pass the broker's produce validation —
 * CRC32C through the addon, record walk with the native decompressors — and yield the records
 * the capture scripts produced.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProduceRequest } from '@sluice/protocol/messages/index.js';
import { decodeRequestHeader } from '@sluice/protocol/envelope.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import { decompress } from '../../src/native/index.js';
import { CompressionType, decodeAttributes, readRecords, validateProduceRecords } from '@sluice/protocol/records/index.js';
import { REPO_ROOT } from '../../tools/codegen/main.js';

interface ManifestFrame {
  readonly file: string;
  readonly client: string;
  readonly direction: string;
  readonly apiKey: number;
  readonly apiVersion: number;
}

const GOLDEN_DIR = join(REPO_ROOT, 'test/golden');
const frames = (JSON.parse(readFileSync(join(GOLDEN_DIR, 'manifest.json'), 'utf8')) as { frames: ManifestFrame[] }).frames.filter(
  (f) => f.apiKey === 0 && f.direction === 'request',
);

test('captured producer batches validate and decode with the native codecs', () => {
  const seen = new Map<string, Set<CompressionType>>();
  for (const f of frames) {
    const bytes = readFileSync(join(GOLDEN_DIR, f.file));
    const { bodyOffset } = decodeRequestHeader(bytes);
    const produce = ProduceRequest.read(new Reader(bytes, bodyOffset), f.apiVersion);
    for (const topic of produce.topicData) {
      for (const partition of topic.partitionData) {
        assert.ok(partition.records, `${f.file}: no records`);
        const v = validateProduceRecords(partition.records, { records: { decompress } });
        assert.ok(v.ok, `${f.file}: ${v.ok ? '' : v.error.message}`);
        const records = [...readRecords(partition.records, v.batch, { decompress })];
        assert.equal(records.length, v.batch.recordsCount, `${f.file}: record count`);
        assert.ok(records.every((r) => r.value !== null && r.value.length > 0), `${f.file}: empty record value`);
        const attributes = decodeAttributes(v.batch.attributes);
        assert.ok(attributes, `${f.file}: unknown attributes`);
        seen.set(f.client, (seen.get(f.client) ?? new Set()).add(attributes.compression));
      }
    }
  }
  assert.ok(seen.get('kafkajs')?.has(CompressionType.Gzip), 'no KafkaJS gzip batch in the golden set');
  for (const codec of [CompressionType.None, CompressionType.Snappy, CompressionType.Lz4, CompressionType.Zstd]) {
    assert.ok(seen.get('kcat')?.has(codec), `no librdkafka batch with compression ${codec}`);
  }
});
