/**
 * The runtime vocabulary of the generated message codecs: the choices that depend on the
 * message version at run time (compact or classic encoding, nullable or not) live here once,
 * so the generated files stay a readable list of fields.
 */
import { DecodeError, EncodeError } from './decode-error.js';
import type { StructSchema } from './message-schema.js';
import { MAX_STRING_BYTES, type Reader } from './reader.js';
import { Writer, type FileRegion } from './writer.js';

export type { FileRegion } from './writer.js';

/** A tagged field this code does not know, kept so it survives a decode/encode round trip. */
export interface RawTaggedField {
  readonly tag: number;
  readonly data: Buffer;
}

/** What a `records` field accepts when encoding: bytes in memory or a file range. */
export type RecordsInput = Uint8Array | FileRegion;

export { ZERO_UUID } from '../common/uuid.js';
export const EMPTY_BYTES: Buffer = Buffer.alloc(0);

export interface VersionRange {
  readonly lo: number;
  /** Inclusive upper bound; `Infinity` for an open range ("3+"). */
  readonly hi: number;
}

/** A generated codec for one message (request, response, header or record schema), all versions. */
export interface MessageCodec<T, I> {
  readonly name: string;
  readonly apiKey: number | null;
  readonly validVersions: VersionRange;
  /** First flexible version, or null if none is. */
  readonly firstFlexibleVersion: number | null;
  /** The fields of every version, as the definitions give them. */
  readonly schema: StructSchema;
  read(r: Reader, version: number): T;
  write(w: Writer, value: I, version: number): void;
}

export function checkVersion(name: string, valid: VersionRange, version: number): void {
  if (!(version >= valid.lo && version <= valid.hi)) {
    throw new UnsupportedVersionError(name, version, valid);
  }
}

export class UnsupportedVersionError extends EncodeError {
  readonly version: number;
  constructor(name: string, version: number, valid: VersionRange) {
    super(`${name} version ${version} is outside ${valid.lo}-${valid.hi}`);
    this.name = 'UnsupportedVersionError';
    this.version = version;
  }
}

export function readString(r: Reader, flexible: boolean, nullable: boolean, field: string): string | null {
  const s = flexible ? r.compactNullableString(MAX_STRING_BYTES) : r.nullableString();
  if (s === null && !nullable) throw new DecodeError(`non-nullable field ${field} was null`);
  return s;
}

export function readBytes(r: Reader, flexible: boolean, nullable: boolean, field: string): Buffer | null {
  const b = flexible ? r.compactNullableBytes() : r.nullableBytes();
  if (b === null && !nullable) throw new DecodeError(`non-nullable field ${field} was null`);
  return b;
}

export function readArray<T>(r: Reader, flexible: boolean, nullable: boolean, field: string, readElement: (r: Reader) => T): T[] | null {
  const n = flexible ? r.compactArrayLength() : r.arrayLength();
  if (n < 0) {
    if (!nullable) throw new DecodeError(`non-nullable field ${field} was null`);
    return null;
  }
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(readElement(r));
  return out;
}

/** Nullable structs carry a one-byte presence marker: negative for null. */
export function readNullableStruct<T>(r: Reader, readStruct: (r: Reader) => T): T | null {
  return r.int8() < 0 ? null : readStruct(r);
}

/** Decodes one tagged field's body, which must fill exactly the `size` bytes its header announced. */
export function readTagged<T>(r: Reader, size: number, field: string, read: (r: Reader) => T): T {
  if (size > r.remaining()) throw new DecodeError(`tagged field ${field} of ${size} bytes with ${r.remaining()} left`);
  const outerEnd = r.end;
  const end = r.offset + size;
  r.end = end;
  try {
    const value = read(r);
    if (r.offset !== end) throw new DecodeError(`tagged field ${field} left ${end - r.offset} bytes unread`);
    return value;
  } finally {
    r.end = outerEnd;
  }
}

export function requireNonNull<T>(value: T | null, nullable: boolean, field: string, version: number): void {
  if (value === null && !nullable) throw new EncodeError(`non-nullable field ${field} is null at version ${version}`);
}

export function writeString(w: Writer, flexible: boolean, value: string | null): void {
  if (flexible) w.compactNullableString(value);
  else w.nullableString(value);
}

export function writeBytes(w: Writer, flexible: boolean, value: Uint8Array | null): void {
  if (flexible) w.compactNullableBytes(value);
  else w.nullableBytes(value);
}

export function writeRecords(w: Writer, flexible: boolean, value: RecordsInput | null): void {
  if (value === null || value instanceof Uint8Array) {
    writeBytes(w, flexible, value);
    return;
  }
  if (flexible) w.unsignedVarint(value.byteLength + 1);
  else w.int32(value.byteLength);
  w.fileRegion(value);
}

export function writeArray<T>(w: Writer, flexible: boolean, value: readonly T[] | null, writeElement: (w: Writer, e: T) => void): void {
  if (value === null) {
    if (flexible) w.compactArrayLength(null);
    else w.arrayLength(null);
    return;
  }
  if (flexible) w.compactArrayLength(value.length);
  else w.arrayLength(value.length);
  for (const e of value) writeElement(w, e);
}

export function writeNullableStruct<T>(w: Writer, value: T | null, writeStruct: (w: Writer, s: T) => void): void {
  if (value === null) {
    w.int8(-1);
  } else {
    w.int8(1);
    writeStruct(w, value);
  }
}

/** A known tagged field to write: its tag and a function that writes its body. */
export interface TaggedWrite {
  readonly tag: number;
  readonly write: (w: Writer) => void;
}

/** Writes the tagged-field section: known and preserved unknown fields merged in tag order, as Kafka requires. */
export function writeTaggedFields(w: Writer, known: readonly TaggedWrite[], unknown: readonly RawTaggedField[] | undefined): void {
  const all: Array<{ tag: number; data: Buffer }> = [];
  for (const k of known) {
    const body = new Writer(64);
    k.write(body);
    all.push({ tag: k.tag, data: body.finish() });
  }
  if (unknown) all.push(...unknown);
  all.sort((a, b) => a.tag - b.tag);
  w.unsignedVarint(all.length);
  for (const t of all) {
    w.unsignedVarint(t.tag);
    w.unsignedVarint(t.data.length);
    w.raw(t.data);
  }
}

export function fieldNotSupported(field: string, version: number): EncodeError {
  return new EncodeError(`field ${field} has a non-default value that version ${version} cannot carry`);
}

/** @public emitted by tools/codegen for a bytes field with an empty default; no message uses it today. */
export function bytesIsEmpty(b: Uint8Array | null): boolean {
  return b !== null && b.length === 0;
}

export function arrayIsEmpty(a: readonly unknown[] | null): boolean {
  return a !== null && a.length === 0;
}
