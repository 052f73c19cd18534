/**
 * Frames captured between real clients (KafkaJS, librdkafka, the Java client) and Apache Kafka
 * (tools/golden/capture.sh). Each must decode completely with Sluice's codecs, re-encode to the
 * same bytes, and — where Kafka's own decoder rendered it (`.kafka.json`) — decode to the same
 * structure Kafka sees.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_MESSAGES, RequestHeader, ResponseHeader } from '@sluice/protocol/messages/index.js';
import { decodeRequestHeader, responseHeaderVersion } from '@sluice/protocol/envelope.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import { Writer } from '@sluice/protocol/primitives/writer.js';
import type { MessageCodec } from '@sluice/protocol/primitives/codec-support.js';
import { REPO_ROOT } from '../../tools/codegen/main.js';
import { assertSameAsKafka, parseKafkaJson } from '../helpers/kafka-json.js';

interface ManifestFrame {
  readonly file: string;
  readonly client: string;
  readonly direction: 'request' | 'response';
  readonly apiKey: number;
  readonly apiName: string;
  readonly apiVersion: number;
  readonly correlationId: number;
}

const GOLDEN_DIR = join(REPO_ROOT, 'test/golden');
const manifest = JSON.parse(readFileSync(join(GOLDEN_DIR, 'manifest.json'), 'utf8')) as { frames: ManifestFrame[] };
type AnyCodec = MessageCodec<Record<string, unknown>, Record<string, unknown>>;

function codecFor(f: ManifestFrame): AnyCodec {
  const api = API_MESSAGES.find((a) => a.apiKey === f.apiKey);
  assert.ok(api, `no codec for API ${f.apiKey}`);
  return (f.direction === 'request' ? api.request : api.response) as unknown as AnyCodec;
}

function decodeFrame(f: ManifestFrame, bytes: Buffer): { header: Record<string, unknown>; body: Record<string, unknown>; reencoded: Buffer } {
  const codec = codecFor(f);
  const w = new Writer();
  if (f.direction === 'request') {
    const { header, headerVersion, bodyOffset } = decodeRequestHeader(bytes);
    assert.equal(header.requestApiKey, f.apiKey);
    assert.equal(header.requestApiVersion, f.apiVersion);
    assert.equal(header.correlationId, f.correlationId);
    const r = new Reader(bytes, bodyOffset);
    const body = codec.read(r, f.apiVersion);
    assert.equal(r.remaining(), 0, 'request body has bytes left over');
    RequestHeader.write(w, header, headerVersion);
    codec.write(w, body, f.apiVersion);
    return { header: { ...header }, body, reencoded: Buffer.from(w.finish()) };
  }
  const headerVersion = responseHeaderVersion(f.apiKey, f.apiVersion);
  const r = new Reader(bytes);
  const header = ResponseHeader.read(r, headerVersion);
  assert.equal(header.correlationId, f.correlationId);
  const body = codec.read(r, f.apiVersion);
  assert.equal(r.remaining(), 0, 'response body has bytes left over');
  ResponseHeader.write(w, header, headerVersion);
  codec.write(w, body, f.apiVersion);
  return { header: { ...header }, body, reencoded: Buffer.from(w.finish()) };
}

test('the golden set covers the required APIs from at least two clients', () => {
  const required = ['ApiVersions', 'Metadata', 'Produce', 'Fetch', 'FindCoordinator', 'JoinGroup', 'SyncGroup', 'OffsetCommit'];
  const clients = new Set(manifest.frames.map((f) => f.client));
  assert.ok(clients.size >= 2, `frames from only ${[...clients].join(', ')}`);
  for (const client of clients) {
    for (const api of required) {
      for (const direction of ['request', 'response']) {
        assert.ok(
          manifest.frames.some((f) => f.client === client && f.apiName === api && f.direction === direction),
          `${client} has no ${api} ${direction}`,
        );
      }
    }
  }
});

describe('golden frames from real clients', () => {
  for (const f of manifest.frames) {
    test(`${f.file}`, () => {
      const bytes = readFileSync(join(GOLDEN_DIR, f.file));
      const { header, body, reencoded } = decodeFrame(f, bytes);
      assert.deepEqual(reencoded, bytes, 're-encoding did not reproduce the captured bytes');
      const kafkaJsonPath = join(GOLDEN_DIR, `${f.file.replace(/\.bin$/, '')}.kafka.json`);
      if (existsSync(kafkaJsonPath)) {
        const kafka = parseKafkaJson(readFileSync(kafkaJsonPath, 'utf8'));
        assertSameAsKafka({ header, body }, kafka, f.file);
      }
    });
  }
});
