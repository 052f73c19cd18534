// Names and header versions of Kafka's APIs, read from Apache Kafka's JSON message definitions so
// the capture names frames exactly as Kafka does and knows which header layout each frame uses.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ApiInfo {
  apiKey: number;
  /** Kafka's name without the Request/Response suffix, e.g. "FindCoordinator". */
  name: string;
  /** First flexible version of the request, or null when no version is flexible. */
  firstFlexibleVersion: number | null;
}

interface MessageDefinition {
  apiKey?: number;
  type?: string;
  name?: string;
  validVersions?: string;
  flexibleVersions?: string;
}

export class ProtocolCatalogError extends Error {
  override name = 'ProtocolCatalogError';
}

const API_VERSIONS_KEY = 18;

/** The JSON files carry // comments; strip those that start a line (the files use no trailing ones inside strings). */
function parseCommentedJson(text: string): MessageDefinition {
  const withoutComments = text.split('\n').filter((line) => !line.trimStart().startsWith('//')).join('\n');
  return JSON.parse(withoutComments) as MessageDefinition;
}

function parseFlexibleVersions(spec: string | undefined, file: string): number | null {
  if (spec === undefined) throw new ProtocolCatalogError(`${file}: no flexibleVersions`);
  if (spec === 'none') return null;
  const match = /^(\d+)\+$/.exec(spec);
  if (match === null || match[1] === undefined) throw new ProtocolCatalogError(`${file}: unexpected flexibleVersions "${spec}"`);
  return Number(match[1]);
}

export class ProtocolCatalog {
  private constructor(private readonly byKey: ReadonlyMap<number, ApiInfo>) {}

  static load(messageDir: string): ProtocolCatalog {
    if (!existsSync(messageDir)) throw new ProtocolCatalogError(`no Kafka message definitions at ${messageDir}`);
    const byKey = new Map<number, ApiInfo>();
    for (const file of readdirSync(messageDir).filter((f) => f.endsWith('Request.json'))) {
      const def = parseCommentedJson(readFileSync(join(messageDir, file), 'utf8'));
      // APIs Kafka has removed keep a definition with validVersions "none" and no layout.
      if (def.type !== 'request' || def.apiKey === undefined || def.name === undefined || def.validVersions === 'none') continue;
      byKey.set(def.apiKey, {
        apiKey: def.apiKey,
        name: def.name.replace(/Request$/, ''),
        firstFlexibleVersion: parseFlexibleVersions(def.flexibleVersions, file),
      });
    }
    return new ProtocolCatalog(byKey);
  }

  api(apiKey: number): ApiInfo {
    const info = this.byKey.get(apiKey);
    if (info === undefined) throw new ProtocolCatalogError(`unknown api key ${apiKey}`);
    return info;
  }

  private isFlexible(apiKey: number, version: number): boolean {
    const first = this.api(apiKey).firstFlexibleVersion;
    return first !== null && version >= first;
  }

  /** Header v0 (no client id) existed only for ControlledShutdown v0, which Kafka has removed. */
  requestHeaderVersion(apiKey: number, version: number): number {
    return this.isFlexible(apiKey, version) ? 2 : 1;
  }

  /** ApiVersions always answers with header v0 so a client can read it before knowing what the broker supports (KIP-511). */
  responseHeaderVersion(apiKey: number, version: number): number {
    if (apiKey === API_VERSIONS_KEY) return 0;
    return this.isFlexible(apiKey, version) ? 1 : 0;
  }
}
