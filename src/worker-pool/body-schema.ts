/**
 * Ring message bodies declared once: a body is a schema (field name → type, among the few the
 * ops need), and one compiler turns it into its encoder and decoder when the module loads. A
 * declaration is checked against the TypeScript type it carries (`Field<T>` is invariant in `T`),
 * so a field left out, added or of the wrong type is a compile error, and the two ends cannot
 * drift apart as hand-paired write/read functions could.
 *
 * Layout, within one build only (both ends of a ring are the same build): fields in declaration
 * order, big-endian; a struct's booleans and its nullable and optional fields' presence first,
 * as one bit each in an unsigned varint; strings as Kafka's compact strings; arrays as an
 * unsigned varint count, then the items. `bytes` go as a length and then as a payload of their
 * own, so records are copied once, into the ring; on the worker they are views of ring memory,
 * valid during the synchronous part of the op only (`ownBytes` copies them, for replies, which
 * are decoded in the ring). `frameBytes` that lie in a pooled request frame go as a reference
 * to it instead (`shared-frames.ts`).
 *
 * Why code is generated: the hot bodies (append, read) are encoded and decoded per partition of
 * every Produce and Fetch. A decoder that loops over the fields reaches every property through
 * one megamorphic keyed site and builds its objects field by field; the generated one reads into
 * an object literal, as a hand-written decoder does, and costs the same (see
 * `bench/micro/ipc/partition-bodies.bench.ts`). The generated source holds only declared field
 * names (checked to be identifiers) and calls of the helpers passed in — never data.
 */
import { holdSharedFrame, type SharedFrameHold } from '@sluice/protocol/frame-buffer-pool.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import { Writer } from '@sluice/protocol/primitives/writer.js';
import type { LeaderEpoch, Offset } from '@sluice/protocol/common/offsets.js';
import { sharedFrameView } from './shared-frames.js';
import type { BodyCodec, RequestBody } from './worker-op.js';

type Scalar = 'int8' | 'int16' | 'int32' | 'uint32' | 'int64' | 'offset' | 'float64' | 'string' | 'bytes' | 'ownBytes';

export type Shape =
  | { readonly kind: Scalar }
  | { readonly kind: 'bool' }
  | { readonly kind: 'enum'; readonly values: readonly string[] }
  | { readonly kind: 'frameBytes'; readonly shareable: (parent: never) => boolean }
  | { readonly kind: 'nullable' | 'optional'; readonly inner: Shape }
  | { readonly kind: 'array'; readonly item: Shape }
  | { readonly kind: 'struct'; readonly fields: readonly (readonly [string, Shape])[] };

/** A declared field of type `T`. */
export interface Field<T> {
  readonly shape: Shape;
  /** Never set: makes `Field<A>` assignable to `Field<B>` only when A and B are the same type. */
  readonly type?: (value: T) => T;
}

/**
 * A struct's declaration: one field per key of `T`, optional keys included (declared
 * `optional(…)`), and no other (an object literal's excess keys are refused).
 */
type FieldsOf<T> = { readonly [K in keyof T]-?: Field<T[K]> };

const scalar = <T>(kind: Scalar): Field<T> => ({ shape: { kind } });

export const int8 = scalar<number>('int8');
export const int16 = scalar<number>('int16');
export const int32 = scalar<number>('int32');
export const uint32 = scalar<number>('uint32');
export const int64 = scalar<bigint>('int64');
/** An int64 carried as an exact number: no bigint on either end. */
export const offset = scalar<Offset>('offset');
export const leaderEpoch = scalar<LeaderEpoch>('int32');
export const float64 = scalar<number>('float64');
export const string = scalar<string>('string');
/** A view of the body's bytes on decoding (valid while the body is). */
export const bytes = scalar<Buffer>('bytes');
/** Bytes copied out of the body on decoding: for replies, decoded in ring memory. */
export const ownBytes = scalar<Buffer>('ownBytes');
export const bool: Field<boolean> = { shape: { kind: 'bool' } };

/** One of a few names, sent as its index. */
export function oneOf<const V extends readonly string[]>(values: V): Field<V[number]> {
  return { shape: { kind: 'enum', values } };
}

/**
 * Bytes that, when they lie in a pooled request frame and `shareable(entry)` holds for the
 * struct that carries them, go as a reference to the frame (held until the worker answers)
 * instead of a copy; on the worker, a view of the frame or of the ring.
 */
export function frameBytes<P>(shareable: (parent: P) => boolean): Field<Buffer> {
  return { shape: { kind: 'frameBytes', shareable } };
}

export function nullable<T>(inner: Field<T>): Field<T | null> {
  return { shape: { kind: 'nullable', inner: inner.shape } };
}

/** A key that may be left out (it decodes as undefined). */
export function optional<T>(inner: Field<T>): Field<T | undefined> {
  return { shape: { kind: 'optional', inner: inner.shape } };
}

export function array<T>(item: Field<T>): Field<readonly T[]> {
  return { shape: { kind: 'array', item: item.shape } };
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function struct<T>(fields: FieldsOf<NoInfer<T>>): Field<T> {
  const entries = Object.entries(fields as Record<string, { readonly shape: Shape }>).map(([name, f]) => {
    if (!IDENTIFIER.test(name)) throw new TypeError(`body field name ${JSON.stringify(name)} is not an identifier`);
    return [name, f.shape] as const;
  });
  return { shape: { kind: 'struct', fields: entries } };
}

/** Where an encoding goes: fixed fields into `w`, byte fields as payloads of their own. */
class BodyEncoding {
  w = new Writer(64);
  private readonly payloads: Uint8Array[] = [];
  private holds: SharedFrameHold[] | null = null;

  /** The length, then the bytes as a payload of their own: copied once, into the ring. */
  attach(bytes: Uint8Array): void {
    this.w.int32(bytes.byteLength);
    this.payloads.push(this.w.finish(), bytes);
    this.w = new Writer(64);
  }

  frameBytes(bytes: Buffer, shareable: boolean): void {
    const hold = shareable ? holdSharedFrame(bytes) : null;
    this.w.bool(hold !== null);
    if (hold === null) return this.attach(bytes);
    (this.holds ??= []).push(hold);
    this.w.int32(hold.id);
    this.w.int32(bytes.byteOffset);
    this.w.int32(bytes.byteLength);
  }

  finish(): RequestBody {
    const last = this.w.finish();
    if (last.byteLength > 0) this.payloads.push(last);
    return this.holds === null ? { payloads: this.payloads } : { payloads: this.payloads, sharedFrames: this.holds };
  }
}

interface Compiled {
  readonly write: (e: BodyEncoding, value: unknown) => void;
  readonly read: (r: Reader) => unknown;
}

/** Empty arrays decode to this one (nobody may push into a decoded array). */
const EMPTY: readonly never[] = Object.freeze([]);

const readFrameBytes = (r: Reader): Buffer => (r.bool() ? sharedFrameView(r.int32(), r.int32(), r.int32()) : r.raw(r.int32()));

const SCALAR_WRITE: Record<Scalar, (x: string) => string> = {
  int8: (x) => `e.w.int8(${x});`,
  int16: (x) => `e.w.int16(${x});`,
  int32: (x) => `e.w.int32(${x});`,
  uint32: (x) => `e.w.uint32(${x});`,
  int64: (x) => `e.w.int64(${x});`,
  // The high and low halves: two's complement for -1 and below, exact for every safe integer.
  offset: (x) => `e.w.int32(Math.floor(${x} / 4294967296)); e.w.uint32(${x} >>> 0);`,
  float64: (x) => `e.w.float64(${x});`,
  string: (x) => `e.w.compactString(${x});`,
  bytes: (x) => `e.attach(${x});`,
  ownBytes: (x) => `e.attach(${x});`,
};

const SCALAR_READ: Record<Scalar, string> = {
  int8: 'r.int8()',
  int16: 'r.int16()',
  int32: 'r.int32()',
  uint32: 'r.uint32()',
  int64: 'r.int64()',
  // `*` evaluates its left operand first: the high half is read first.
  offset: 'r.int32() * 4294967296 + r.uint32()',
  float64: 'r.float64()',
  string: 'r.compactString()',
  bytes: 'r.raw(r.int32())',
  ownBytes: 'Buffer.from(r.raw(r.int32()))',
};

/** Generates one struct's or array's functions; nested ones become helpers it calls. */
class Compiler {
  private readonly helpers: unknown[] = [];

  constructor(private readonly cache: Map<Shape, Compiled>) {}

  /** A name the generated functions call `value` by (a constant of theirs, not a lookup per call). */
  helper(value: unknown): string {
    this.helpers.push(value);
    return `h${this.helpers.length - 1}`;
  }

  private nested(shape: Shape): Compiled {
    return compile(shape, this.cache);
  }

  write(shape: Shape, x: string, parent: string): string {
    switch (shape.kind) {
      case 'bool':
        return '';
      case 'enum':
        return `e.w.int8(${this.helper(shape.values)}.indexOf(${x}));`;
      case 'frameBytes':
        return `e.frameBytes(${x}, ${this.helper(shape.shareable)}(${parent}));`;
      case 'nullable':
      case 'optional':
        return `if (${x} !== ${shape.kind === 'nullable' ? 'null' : 'undefined'}) { ${this.writeInner(shape.inner, x, parent)} }`;
      case 'array':
      case 'struct':
        return `${this.helper(this.nested(shape).write)}(e, ${x});`;
      default:
        return SCALAR_WRITE[shape.kind](x);
    }
  }

  /** A present value's own bytes; a boolean takes a byte of its own here, its bit being the presence. */
  private writeInner(inner: Shape, x: string, parent: string): string {
    return inner.kind === 'bool' ? `e.w.bool(${x});` : this.write(inner, x, parent);
  }

  /** `bit`: the field's bit in its struct's mask; booleans and nullable and optional fields are struct fields only. */
  read(shape: Shape, bit: number): string {
    if (bit < 0 && FLAGGED.has(shape.kind)) throw new TypeError(`a ${shape.kind} body field outside a struct`);
    switch (shape.kind) {
      case 'bool':
        return `(m & ${1 << bit}) !== 0`;
      case 'enum':
        return `${this.helper(shape.values)}[r.int8()]`;
      case 'frameBytes':
        return `${this.helper(readFrameBytes)}(r)`;
      case 'nullable':
      case 'optional':
        return `(m & ${1 << bit}) !== 0 ? ${shape.inner.kind === 'bool' ? 'r.bool()' : this.read(shape.inner, -1)} : ${shape.kind === 'nullable' ? 'null' : 'undefined'}`;
      case 'array':
      case 'struct':
        return `${this.helper(this.nested(shape).read)}(r)`;
      default:
        return SCALAR_READ[shape.kind];
    }
  }

  /** The functions' source, then the functions themselves over the helpers they call. */
  build(writeBody: string, readBody: string): Compiled {
    const constants = this.helpers.map((_, i) => `const h${i} = h[${i}];`).join(' ');
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the source is built from declarations only (see the header)
    const make = new Function(
      'h',
      'Buffer',
      `${constants} return [function write(e, v) { ${writeBody} }, function read(r) { ${readBody} }];`,
    ) as (h: unknown[], buffer: typeof Buffer) => [Compiled['write'], Compiled['read']];
    const [write, read] = make(this.helpers, Buffer);
    return { write, read };
  }
}

const FLAGGED: ReadonlySet<Shape['kind']> = new Set(['bool', 'nullable', 'optional']);

function compileStruct(fields: readonly (readonly [string, Shape])[], c: Compiler): Compiled {
  const flagged = fields.filter(([, s]) => FLAGGED.has(s.kind));
  if (flagged.length > 30) throw new TypeError('a body struct has more than 30 booleans and nullable fields');
  const bitOf = new Map(flagged.map(([name], i) => [name, i]));
  const mask = flagged.map(([name, s], i) => {
    const test = s.kind === 'bool' ? `v.${name}` : `v.${name} !== ${s.kind === 'nullable' ? 'null' : 'undefined'}`;
    return `if (${test}) m |= ${1 << i};`;
  });
  const writes = fields.map(([name, s]) => c.write(s, `v.${name}`, 'v'));
  const reads = fields.map(([name, s]) => `${name}: ${c.read(s, bitOf.get(name) ?? -1)}`);
  const writeMask = flagged.length > 0 ? `let m = 0; ${mask.join(' ')} e.w.unsignedVarint(m);` : '';
  const readMask = flagged.length > 0 ? 'const m = r.unsignedVarint();' : '';
  // Fields are read in declaration order: an object literal evaluates its values in order.
  return c.build(`${writeMask} ${writes.join(' ')}`, `${readMask} return { ${reads.join(', ')} };`);
}

function compileArray(item: Shape, c: Compiler): Compiled {
  const write = `e.w.unsignedVarint(v.length); for (let i = 0; i < v.length; i++) { const x = v[i]; ${c.write(item, 'x', 'x')} }`;
  const read = `const n = r.unsignedVarint(); if (n === 0) return ${c.helper(EMPTY)}; const out = []; for (let i = 0; i < n; i++) out.push(${c.read(item, -1)}); return out;`;
  return c.build(write, read);
}

function compile(shape: Shape, cache: Map<Shape, Compiled>): Compiled {
  let compiled = cache.get(shape);
  if (compiled !== undefined) return compiled;
  const c = new Compiler(cache);
  if (shape.kind === 'struct') compiled = compileStruct(shape.fields, c);
  else if (shape.kind === 'array') compiled = compileArray(shape.item, c);
  else compiled = c.build(c.write(shape, 'v', 'v'), `return ${c.read(shape, -1)};`);
  cache.set(shape, compiled);
  return compiled;
}

const compiledShapes = new Map<Shape, Compiled>();

/** A body's codec and the declaration it was compiled from (tests generate values from it). */
export interface DeclaredBody<T> extends BodyCodec<T> {
  readonly declaration: Field<T>;
}

/** The codec of a body declared as `field` (a struct, or an array of them, usually). */
export function body<T>(field: Field<T>): DeclaredBody<T> {
  const { write, read } = compile(field.shape, compiledShapes);
  return {
    declaration: field,
    encode: (value) => {
      const e = new BodyEncoding();
      write(e, value);
      return e.finish();
    },
    decode: (bytes) => read(new Reader(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))) as T,
  };
}
