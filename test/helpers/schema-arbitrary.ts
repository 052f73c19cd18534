/**
 * fast-check arbitraries built from the schema each generated codec carries (Kafka's definitions
 * as the generator read them), so property tests exercise every field of every version without
 * hand-written fixtures, and a structural comparison that knows which fields a version carries.
 */
import fc from 'fast-check';
import assert from 'node:assert/strict';
import type { MessageCodec } from '@sluice/protocol/primitives/codec-support.js';
import { inRange, type FieldSchema, type FieldTypeSchema, type StructSchema } from '@sluice/protocol/primitives/message-schema.js';

type Value = unknown;
type Obj = Record<string, Value>;

const MAX_INT64 = (1n << 63n) - 1n;

function primitiveArbitrary(name: string): fc.Arbitrary<Value> {
  switch (name) {
    case 'bool':
      return fc.boolean();
    case 'int8':
      return fc.integer({ min: -128, max: 127 });
    case 'int16':
      return fc.integer({ min: -32768, max: 32767 });
    case 'uint16':
      return fc.integer({ min: 0, max: 65535 });
    case 'int32':
      return fc.integer({ min: -2147483648, max: 2147483647 });
    case 'uint32':
      return fc.integer({ min: 0, max: 4294967295 });
    case 'int64':
      return fc.bigInt({ min: -MAX_INT64 - 1n, max: MAX_INT64 });
    case 'float64':
      return fc.double({ noNaN: true });
    case 'string':
      return fc.string({ unit: 'grapheme', maxLength: 12 });
    case 'uuid':
      return fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b).toString('base64url'));
    case 'bytes':
    case 'records':
      return fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b));
    default:
      throw new Error(`no arbitrary for ${name}`);
  }
}

function typeArbitrary(t: FieldTypeSchema, version: number, flexible: boolean, depth: number): fc.Arbitrary<Value> {
  switch (t.kind) {
    case 'primitive':
      return primitiveArbitrary(t.name);
    case 'struct':
      return structArbitrary(t.struct, version, flexible, depth + 1);
    case 'array':
      return fc.array(typeArbitrary(t.element, version, flexible, depth + 1), { maxLength: depth > 2 ? 1 : 3 });
  }
}

/** A random input for `struct` at `version`: only the fields that version carries, plus unknown tags when flexible. */
export function structArbitrary(struct: StructSchema, version: number, flexible: boolean, depth = 0): fc.Arbitrary<Obj> {
  const model: Record<string, fc.Arbitrary<Value>> = {};
  for (const f of struct.fields) {
    if (!inRange(f.versions, version)) continue;
    const base = typeArbitrary(f.type, version, flexible, depth);
    model[f.prop] = inRange(f.nullableVersions, version) ? fc.option(base, { nil: null, freq: 4 }) : base;
  }
  if (flexible) {
    const knownTags = new Set(struct.fields.filter((f) => f.tag !== null).map((f) => f.tag));
    model['_unknownTaggedFields'] = fc
      .uniqueArray(
        fc.integer({ min: 0, max: 300 }).filter((t) => !knownTags.has(t)),
        { maxLength: depth === 0 ? 2 : 1 },
      )
      .chain((tags) =>
        fc.tuple(...tags.sort((a, b) => a - b).map((tag) => fc.uint8Array({ maxLength: 6 }).map((d) => ({ tag, data: Buffer.from(d) })))),
      )
      .map((t) => (t.length === 0 ? undefined : t));
  }
  return fc.record(model).map((o) => {
    const copy: Obj = { ...o };
    if (copy['_unknownTaggedFields'] === undefined) delete copy['_unknownTaggedFields'];
    return copy;
  });
}

/** Asserts that `decoded` carries every field `input` set for this version, recursively. */
export function assertCarries(struct: StructSchema, version: number, input: Obj, decoded: Obj, path: string): void {
  for (const f of struct.fields) {
    if (!inRange(f.versions, version) || !(f.prop in input)) continue;
    compareField(f, version, input[f.prop], decoded[f.prop], `${path}.${f.prop}`);
  }
  if (input['_unknownTaggedFields'] !== undefined) {
    assert.deepEqual(decoded['_unknownTaggedFields'], input['_unknownTaggedFields'], `${path}._unknownTaggedFields`);
  }
}

function compareField(f: FieldSchema, version: number, expected: Value, actual: Value, path: string): void {
  compareType(f.type, version, expected, actual, path);
}

function compareType(t: FieldTypeSchema, version: number, expected: Value, actual: Value, path: string): void {
  if (expected === null) {
    assert.equal(actual, null, path);
    return;
  }
  switch (t.kind) {
    case 'primitive':
      assert.deepEqual(actual, expected, path);
      return;
    case 'struct':
      assertCarries(t.struct, version, expected as Obj, actual as Obj, path);
      return;
    case 'array': {
      const e = expected as Value[];
      const a = actual as Value[];
      assert.equal(a.length, e.length, `${path}.length`);
      e.forEach((v, i) => compareType(t.element, version, v, a[i], `${path}[${i}]`));
    }
  }
}

export function versionsOf(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let v = lo; v <= hi; v++) out.push(v);
  return out;
}

/** True when `version` of the codec's message uses the flexible (compact, tagged) encoding. */
export function isFlexible(codec: MessageCodec<unknown, never>, version: number): boolean {
  return codec.firstFlexibleVersion !== null && version >= codec.firstFlexibleVersion;
}
