/**
 * kafka-configs.sh's `--add-config` syntax: `k1=v1,k2=[a,b],k3=v3`, where square brackets let
 * a list value keep its commas.
 */
import { UsageError } from './command-support.js';

export function parseAddConfig(text: string): Map<string, string> {
  const configs = new Map<string, string>();
  for (const part of splitOutsideBrackets(text)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new UsageError(`--add-config takes k=v[,k=v...], and '${part}' is not k=v`);
    const value = part.slice(eq + 1);
    configs.set(part.slice(0, eq).trim(), value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value);
  }
  return configs;
}

export function parseDeleteConfig(text: string): string[] {
  return text
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');
}

function splitOutsideBrackets(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '[') depth++;
    else if (c === ']') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.filter((p) => p.trim() !== '');
}
