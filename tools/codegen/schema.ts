/**
 * Reads Apache Kafka's JSON message definitions into a resolved, typed model the emitter can
 * walk without re-interpreting strings: version ranges parsed, struct references resolved,
 * defaults turned into TypeScript literals.
 */
import type { VersionRange } from '@sluice/protocol/primitives/codec-support.js';
import type { FieldSchema, PrimitiveTypeName, StructSchema } from '@sluice/protocol/primitives/message-schema.js';

export type { VersionRange };

export const NO_VERSIONS: VersionRange = { lo: 1, hi: 0 };

export function parseVersions(spec: string | undefined, fallback: VersionRange = NO_VERSIONS): VersionRange {
  if (spec === undefined) return fallback;
  const s = spec.trim();
  if (s === 'none') return NO_VERSIONS;
  if (s.endsWith('+')) return { lo: Number(s.slice(0, -1)), hi: Infinity };
  const dash = s.indexOf('-');
  if (dash >= 0) return { lo: Number(s.slice(0, dash)), hi: Number(s.slice(dash + 1)) };
  const n = Number(s);
  if (!Number.isInteger(n)) throw new Error(`bad version spec '${spec}'`);
  return { lo: n, hi: n };
}

export function isEmpty(r: VersionRange): boolean {
  return r.lo > r.hi;
}

export function intersect(a: VersionRange, b: VersionRange): VersionRange {
  return { lo: Math.max(a.lo, b.lo), hi: Math.min(a.hi, b.hi) };
}

export function contains(r: VersionRange, v: number): boolean {
  return v >= r.lo && v <= r.hi;
}

export type PrimitiveType = PrimitiveTypeName;

const PRIMITIVES: ReadonlySet<string> = new Set([
  'bool',
  'int8',
  'int16',
  'uint16',
  'int32',
  'uint32',
  'int64',
  'float64',
  'string',
  'uuid',
  'bytes',
  'records',
]);

export type FieldType =
  | { readonly kind: 'primitive'; readonly name: PrimitiveType }
  | { readonly kind: 'struct'; readonly struct: StructDef }
  | { readonly kind: 'array'; readonly element: FieldType };

/** A field as the generated code's schema carries it, plus what only the emitter needs. */
export interface FieldDef extends FieldSchema {
  /** Name as in the JSON (PascalCase for messages, camelCase for some coordinator records). */
  readonly jsonName: string;
  readonly type: FieldType;
  /** Some fields (RequestHeader.ClientId) keep the non-compact encoding in flexible versions. */
  readonly flexibleVersions: VersionRange | null;
  /** The field's default, already a TypeScript expression. */
  readonly defaultExpr: string;
  /** True when the default is null (nullable strings/bytes/structs whose JSON default is "null"). */
  readonly defaultIsNull: boolean;
  readonly about: string;
}

export interface StructDef extends StructSchema {
  /** TypeScript interface name, unique in its file (prefixed with the message name). */
  readonly typeName: string;
  readonly jsonName: string;
  readonly fields: FieldDef[];
}

export type MessageKind = 'request' | 'response' | 'header' | 'data' | 'coordinator-key' | 'coordinator-value';

export interface MessageDef {
  readonly name: string;
  readonly kind: MessageKind;
  readonly apiKey: number | null;
  readonly validVersions: VersionRange;
  readonly flexibleVersions: VersionRange;
  readonly listeners: readonly string[];
  readonly latestVersionUnstable: boolean;
  readonly root: StructDef;
  /** Every struct of the message, root first, each once (common structs included). */
  readonly structs: StructDef[];
  /** Where the definition was read, e.g. `kafka-clients-4.4.0.jar:common/message/ProduceRequest.json`. */
  readonly sourceFile: string;
}

interface JsonField {
  name: string;
  type: string;
  versions?: string;
  nullableVersions?: string;
  taggedVersions?: string;
  tag?: number;
  ignorable?: boolean;
  flexibleVersions?: string;
  default?: string | number | boolean | null;
  about?: string;
  fields?: JsonField[];
}

interface JsonMessage {
  name: string;
  type: MessageKind;
  apiKey?: number;
  validVersions: string;
  flexibleVersions?: string;
  listeners?: string[];
  latestVersionUnstable?: boolean;
  fields: JsonField[];
  commonStructs?: Array<{ name: string; versions: string; fields: JsonField[] }>;
}

/** Kafka's JSON files carry `//` comments; strip them outside string literals before parsing. */
export function stripJsonComments(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') {
        out += text[i + 1] ?? '';
        i++;
      } else if (c === '"') {
        inString = false;
      }
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else {
      out += c;
    }
  }
  return out;
}

export function camelCase(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/** Resolves one JSON definition; `sourceFile` names where its text came from. */
export function parseMessage(text: string, sourceFile: string): MessageDef {
  const json = JSON.parse(stripJsonComments(text)) as JsonMessage;
  const validVersions = parseVersions(json.validVersions);
  const flexibleVersions = parseVersions(json.flexibleVersions ?? 'none');
  const structs: StructDef[] = [];
  const byName = new Map<string, StructDef>();
  const prefix = json.name.endsWith('Data') ? json.name.slice(0, -4) : json.name;

  const register = (jsonName: string, versions: VersionRange, fields: JsonField[] | undefined, isRoot: boolean): StructDef => {
    const typeName = isRoot ? `${json.name}Data` : `${prefix}${jsonName}`;
    if (byName.has(jsonName)) throw new Error(`${json.name}: struct ${jsonName} defined twice`);
    const def: StructDef = { typeName, jsonName, versions, fields: [] };
    byName.set(jsonName, def);
    structs.push(def);
    if (fields) def.fields.push(...fields.map((f) => resolveField(f, versions)));
    return def;
  };

  const pendingCommon = new Map((json.commonStructs ?? []).map((c) => [c.name, c]));

  const resolveType = (f: JsonField, parentVersions: VersionRange): FieldType => {
    if (f.type.startsWith('[]')) {
      const inner = f.type.slice(2);
      if (PRIMITIVES.has(inner)) return { kind: 'array', element: { kind: 'primitive', name: inner as PrimitiveType } };
      return { kind: 'array', element: { kind: 'struct', struct: structFor(inner, f, parentVersions) } };
    }
    if (PRIMITIVES.has(f.type)) return { kind: 'primitive', name: f.type as PrimitiveType };
    return { kind: 'struct', struct: structFor(f.type, f, parentVersions) };
  };

  const structFor = (name: string, f: JsonField, parentVersions: VersionRange): StructDef => {
    if (f.fields) return register(name, intersect(parseVersions(f.versions), parentVersions), f.fields, false);
    const existing = byName.get(name);
    if (existing) return existing;
    const common = pendingCommon.get(name);
    if (!common) throw new Error(`${json.name}: unknown struct type ${name}`);
    pendingCommon.delete(name);
    return register(name, parseVersions(common.versions), common.fields, false);
  };

  const resolveField = (f: JsonField, parentVersions: VersionRange): FieldDef => {
    const type = resolveType(f, parentVersions);
    const nullableVersions = parseVersions(f.nullableVersions ?? 'none');
    const { expr, isNull } = defaultOf(f, type, nullableVersions, json.name);
    const taggedVersions = parseVersions(f.taggedVersions ?? 'none');
    return {
      jsonName: f.name,
      prop: camelCase(f.name),
      type,
      // A tagged field may omit "versions": it then exists exactly where it is tagged.
      versions: parseVersions(f.versions, taggedVersions),
      nullableVersions,
      taggedVersions,
      tag: f.tag ?? null,
      ignorable: f.ignorable === true,
      flexibleVersions: f.flexibleVersions === undefined ? null : parseVersions(f.flexibleVersions),
      defaultExpr: expr,
      defaultIsNull: isNull,
      about: f.about ?? '',
    };
  };

  const root = register(json.name, validVersions, json.fields, true);
  return {
    name: json.name,
    kind: json.type,
    apiKey: json.apiKey ?? null,
    validVersions,
    flexibleVersions,
    listeners: json.listeners ?? [],
    latestVersionUnstable: json.latestVersionUnstable === true,
    root,
    structs,
    sourceFile,
  };
}

function defaultOf(f: JsonField, type: FieldType, nullable: VersionRange, messageName: string): { expr: string; isNull: boolean } {
  const raw = f.default;
  const where = `${messageName}.${f.name}`;
  if (raw === null || raw === 'null') {
    if (isEmpty(nullable)) throw new Error(`${where}: null default on a non-nullable field`);
    return { expr: 'null', isNull: true };
  }
  if (type.kind === 'array') return { expr: '[]', isNull: false };
  if (type.kind === 'struct') return { expr: '', isNull: false };
  const text = raw === undefined ? undefined : String(raw);
  switch (type.name) {
    case 'bool':
      return { expr: text === 'true' ? 'true' : 'false', isNull: false };
    case 'int8':
    case 'int16':
    case 'uint16':
    case 'int32':
    case 'uint32':
      return { expr: text === undefined || text === '' ? '0' : String(Number(text)), isNull: false };
    case 'int64':
      return { expr: `${text === undefined || text === '' ? '0' : BigInt(text).toString()}n`, isNull: false };
    case 'float64':
      return { expr: text === undefined || text === '' ? '0' : String(Number(text)), isNull: false };
    case 'string':
      return { expr: JSON.stringify(text ?? ''), isNull: false };
    case 'uuid':
      return { expr: 'ZERO_UUID', isNull: false };
    case 'bytes':
      return { expr: 'EMPTY_BYTES', isNull: false };
    case 'records':
      return { expr: 'null', isNull: true };
  }
}
