/**
 * Field-by-field comparison of two decoded responses (Apache Kafka's and Sluice's answer to the
 * same request), after masking what legitimately differs between two brokers. Each difference
 * comes back as one line naming its path, e.g. `topics[0].partitions[2].errorCode: Sluice 3, Kafka 6`.
 */
import { ZERO_UUID } from '@sluice/protocol/common/uuid.js';

/**
 * What a mask does to the fields its path matches: `ignored` drops them; `kind` keeps only what
 * kind of value they hold (null, empty, the zero id, negative numbers as they are, zero, positive),
 * so that e.g. two different producer ids compare equal but a missing one does not.
 */
export type MaskTreatment = 'ignored' | 'kind';

export interface MaskRule {
  /**
   * A field path with indexes left out: `topics[].partitions[].errorCode`; `**.` in front matches
   * the rest at any depth (`**.throttleTimeMs`); `[name=x]` matches only the entries whose `name`
   * is x (`results[].configs[name=min.insync.replicas].configSource`).
   */
  readonly path: string;
  readonly treat: MaskTreatment;
  /** Why the field may differ: a broker-specific value, or the docs/guides/compatibility.md entry. */
  readonly why: string;
}

export interface CompareOptions {
  readonly mask?: readonly MaskRule[];
  /**
   * Array paths (as in a mask) whose order carries no meaning: Kafka lists some entries in hash-map
   * order. They are sorted on both sides before comparing.
   */
  readonly unordered?: readonly string[];
}

const MAX_SHOWN = 80;

const patterns = new Map<string, RegExp>();

/** Whether a mask path matches a field's path, whose entries read `[]`, or `[name=x]` for entries with a name. */
function matches(pattern: string, path: string): boolean {
  let re = patterns.get(pattern);
  if (re === undefined) {
    const anyDepth = pattern.startsWith('**.');
    const body = (anyDepth ? pattern.slice(3) : pattern)
      .split('[]')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('\\[[^\\]]*\\]');
    re = new RegExp(`^${anyDepth ? '(?:.*\\.)?' : ''}${body}$`);
    patterns.set(pattern, re);
  }
  return re.test(path);
}

function entryPath(path: string, entry: unknown): string {
  const name = entry !== null && typeof entry === 'object' ? (entry as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? `${path}[name=${name}]` : `${path}[]`;
}

function kindOf(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value === '' ? '' : value === ZERO_UUID ? '<zero uuid>' : '<string>';
  if (typeof value === 'number' || typeof value === 'bigint')
    return value < 0 ? String(value) : value === 0 || value === 0n ? '0' : '<positive>';
  if (value instanceof Uint8Array) return value.length === 0 ? '<no bytes>' : '<bytes>';
  if (Array.isArray(value)) return value.length === 0 ? '[]' : '<entries>';
  return typeof value;
}

/** The value as plain JSON-able data, masked and with unordered arrays sorted; `skip` for an ignored field. */
const SKIP = Symbol('ignored');

function prepare(value: unknown, path: string, options: CompareOptions): unknown {
  const rule = options.mask?.find((m) => matches(m.path, path));
  if (rule !== undefined) return rule.treat === 'ignored' ? SKIP : kindOf(value);
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return `<${value.length} bytes ${Buffer.from(value).toString('base64')}>`;
  if (Array.isArray(value)) {
    // An ignored entry (a mask naming it, e.g. `features[name=x]`) leaves the array altogether.
    const items = value.map((v) => prepare(v, entryPath(path, v), options)).filter((v) => v !== SKIP);
    if (options.unordered?.some((u) => matches(u, path)) === true) {
      return items
        .map((v) => [JSON.stringify(v), v] as const)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([, v]) => v);
    }
    return items;
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      if (key === '_unknownTaggedFields') continue;
      const prepared = prepare(v, path === '' ? key : `${path}.${key}`, options);
      if (prepared !== SKIP) out[key] = prepared;
    }
    return out;
  }
  return value;
}

function shown(value: unknown): string {
  if (value === undefined) return '<absent>';
  const text = JSON.stringify(value);
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
}

function walk(kafka: unknown, sluice: unknown, path: string, out: string[]): void {
  const at = path === '' ? '<response>' : path;
  if (Array.isArray(kafka) && Array.isArray(sluice)) {
    if (kafka.length !== sluice.length) out.push(`${at}.length: Sluice ${sluice.length}, Kafka ${kafka.length}`);
    for (let i = 0; i < Math.max(kafka.length, sluice.length); i++) walk(kafka[i], sluice[i], `${path}[${i}]`, out);
    return;
  }
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObject(kafka) && isObject(sluice)) {
    for (const key of new Set([...Object.keys(kafka), ...Object.keys(sluice)]))
      walk(kafka[key], sluice[key], path === '' ? key : `${path}.${key}`, out);
    return;
  }
  if (JSON.stringify(kafka) !== JSON.stringify(sluice)) out.push(`${at}: Sluice ${shown(sluice)}, Kafka ${shown(kafka)}`);
}

/** Every difference between the two answers after masking, one line each; empty when they agree. */
export function responseDifferences(kafka: unknown, sluice: unknown, options: CompareOptions = {}): string[] {
  const out: string[] = [];
  walk(prepare(kafka, '', options), prepare(sluice, '', options), '', out);
  return out;
}
