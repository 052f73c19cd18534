// Writes selected exchanges as test/golden/<client>/<seq>-<Api>-v<version>-<direction>.bin and
// keeps test/golden/manifest.json in step, leaving other clients' entries untouched.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CompleteExchange } from './frame-selection.js';
import { API_MESSAGES } from '@sluice/protocol/messages/index.js';
import { requestHeaderVersion, responseHeaderVersion } from '@sluice/protocol/envelope.js';
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
  "Each <file>.kafka.json is Kafka's own decoding of that frame (tools/golden/DecodeFrames.java). " +
  'Regenerate with tools/golden/capture.sh; see docs/design/golden.md.';

export class UnknownApiError extends Error {
  override name = 'UnknownApiError';
}

/** Kafka's name of the API without the Request/Response suffix, e.g. "FindCoordinator". */
function apiName(apiKey: number): string {
  const api = API_MESSAGES.find((a) => a.apiKey === apiKey);
  if (api === undefined) throw new UnknownApiError(`captured a frame of api key ${apiKey}, which Kafka's definitions do not have`);
  return api.name;
}

function entryFor(frame: RecordedFrame, file: string): ManifestEntry {
  const headerVersion =
    frame.direction === 'request'
      ? { requestHeaderVersion: requestHeaderVersion(frame.apiKey, frame.apiVersion) }
      : { responseHeaderVersion: responseHeaderVersion(frame.apiKey, frame.apiVersion) };
  return {
    file,
    client: frame.client,
    scenario: frame.scenario,
    direction: frame.direction,
    apiKey: frame.apiKey,
    apiName: apiName(frame.apiKey),
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

export function writeFixtures(goldenDir: string, kafkaVersion: string, selected: readonly CompleteExchange[]): Manifest {
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
      const stem = `${String(seq).padStart(3, '0')}-${apiName(exchange.request.apiKey)}-v${exchange.request.apiVersion}`;
      for (const frame of [exchange.request, exchange.response]) {
        const file = `${client}/${stem}-${frame.direction}.bin`;
        writeFileSync(join(goldenDir, file), frame.bytes);
        fresh.push(entryFor(frame, file));
      }
    }
  }
  const manifest: Manifest = { description: DESCRIPTION, kafkaVersion, frames: [...kept, ...fresh] };
  writeFileSync(join(goldenDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}
