// Writes selected exchanges as test/golden/<client>/<seq>-<Api>-v<version>-<direction>.bin and
// keeps test/golden/manifest.json in step, leaving other clients' entries untouched.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CompleteExchange } from './frame-selection.js';
import type { ProtocolCatalog } from './protocol-catalog.js';
import type { RecordedFrame } from './recording-proxy.js';

export interface ManifestEntry {
  /** Path relative to test/golden/. */
  file: string;
  client: string;
  scenario: string;
  direction: 'request' | 'response';
  apiKey: number;
  apiName: string;
  apiVersion: number;
  correlationId: number;
  requestHeaderVersion?: number;
  responseHeaderVersion?: number;
  bytes: number;
}

export interface Manifest {
  description: string;
  kafkaVersion: string;
  frames: ManifestEntry[];
}

const DESCRIPTION =
  'Kafka frames captured between real clients and Apache Kafka, without the 4-byte size prefix. ' +
  'Each <file>.kafka.json is Kafka\'s own decoding of that frame (tools/golden/DecodeFrames.java). ' +
  'Regenerate with tools/golden/capture.sh; see docs/notes/golden.md.';

function entryFor(frame: RecordedFrame, file: string, catalog: ProtocolCatalog): ManifestEntry {
  const headerVersion = frame.direction === 'request'
    ? { requestHeaderVersion: catalog.requestHeaderVersion(frame.apiKey, frame.apiVersion) }
    : { responseHeaderVersion: catalog.responseHeaderVersion(frame.apiKey, frame.apiVersion) };
  return {
    file,
    client: frame.client,
    scenario: frame.scenario,
    direction: frame.direction,
    apiKey: frame.apiKey,
    apiName: catalog.api(frame.apiKey).name,
    apiVersion: frame.apiVersion,
    correlationId: frame.correlationId,
    ...headerVersion,
    bytes: frame.bytes.length,
  };
}

export function readManifest(goldenDir: string): Manifest | null {
  const path = join(goldenDir, 'manifest.json');
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Manifest) : null;
}

export function writeFixtures(
  goldenDir: string,
  kafkaVersion: string,
  selected: readonly CompleteExchange[],
  catalog: ProtocolCatalog,
): Manifest {
  const clients = [...new Set(selected.map((e) => e.request.client))];
  const kept = (readManifest(goldenDir)?.frames ?? []).filter((f) => !clients.includes(f.client));
  const fresh: ManifestEntry[] = [];
  for (const client of clients) {
    const dir = join(goldenDir, client);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    let seq = 0;
    for (const exchange of selected.filter((e) => e.request.client === client)) {
      seq += 1;
      const stem = `${String(seq).padStart(3, '0')}-${catalog.api(exchange.request.apiKey).name}-v${exchange.request.apiVersion}`;
      for (const frame of [exchange.request, exchange.response]) {
        const file = `${client}/${stem}-${frame.direction}.bin`;
        writeFileSync(join(goldenDir, file), frame.bytes);
        fresh.push(entryFor(frame, file, catalog));
      }
    }
  }
  const manifest: Manifest = { description: DESCRIPTION, kafkaVersion, frames: [...kept, ...fresh] };
  writeFileSync(join(goldenDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}
