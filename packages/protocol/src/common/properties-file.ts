/** Java-properties files, as Kafka's tools and brokers read them (server.properties, --command-config). */
import { readFileSync } from 'node:fs';

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

export function loadPropertiesFile(path: string): Map<string, string> {
  return parseProperties(readFileSync(path, 'utf8'));
}
