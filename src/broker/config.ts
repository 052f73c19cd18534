/**
 * Broker configuration under Kafka's own keys and defaults. Only keys the broker acts on are
 * accepted; others are reported so that a copied server.properties does not silently pretend
 * to configure something. Invalid values are errors naming the key.
 */
import { readFileSync } from 'node:fs';

export interface BrokerConfig {
  /** `listeners`: PLAINTEXT://host:port. */
  readonly listenerHost: string;
  readonly listenerPort: number;
  /** `socket.request.max.bytes`: frames larger than this close the connection before any allocation. */
  readonly socketRequestMaxBytes: number;
  /** `queued.max.requests` per connection before the broker stops reading from it. */
  readonly maxInFlightRequests: number;
}

export class ConfigError extends Error {
  constructor(readonly key: string, message: string) {
    super(`invalid value for ${key}: ${message}`);
    this.name = 'ConfigError';
  }
}

export const DEFAULTS: Readonly<Record<string, string>> = {
  listeners: 'PLAINTEXT://127.0.0.1:9092',
  'socket.request.max.bytes': '104857600',
  'queued.max.requests': '500',
};

function positiveInt(key: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0 || n > 2147483647) throw new ConfigError(key, `'${value}' is not a positive 32-bit integer`);
  return n;
}

function parseListener(value: string): { host: string; port: number } {
  const m = /^PLAINTEXT:\/\/(\[[^\]]+\]|[^:]*):(\d+)$/.exec(value.trim());
  if (!m) throw new ConfigError('listeners', `'${value}' is not PLAINTEXT://host:port (the only listener type served)`);
  const port = Number(m[2]);
  if (port > 65535) throw new ConfigError('listeners', `port ${port} is out of range`);
  const host = m[1]!.replace(/^\[|\]$/g, '');
  return { host: host === '' ? '0.0.0.0' : host, port };
}

/** Reads Java-properties text: `key=value` or `key: value`, `#`/`!` comments. */
export function parseProperties(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    const m = /^([^=:\s]+)\s*[=:\s]\s*(.*)$/.exec(line);
    if (m) out.set(m[1]!, m[2]!);
  }
  return out;
}

export interface LoadedConfig {
  readonly config: BrokerConfig;
  readonly unknownKeys: readonly string[];
}

export function buildConfig(settings: ReadonlyMap<string, string>): LoadedConfig {
  const merged = new Map(Object.entries(DEFAULTS));
  const unknownKeys: string[] = [];
  for (const [k, v] of settings) {
    if (k in DEFAULTS) merged.set(k, v);
    else unknownKeys.push(k);
  }
  const listener = parseListener(merged.get('listeners')!);
  return {
    config: {
      listenerHost: listener.host,
      listenerPort: listener.port,
      socketRequestMaxBytes: positiveInt('socket.request.max.bytes', merged.get('socket.request.max.bytes')!),
      maxInFlightRequests: positiveInt('queued.max.requests', merged.get('queued.max.requests')!),
    },
    unknownKeys,
  };
}

export function loadPropertiesFile(path: string): Map<string, string> {
  return parseProperties(readFileSync(path, 'utf8'));
}
