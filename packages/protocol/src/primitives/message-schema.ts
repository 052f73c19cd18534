/**
 * The shape of a generated message as the generator read it from Kafka's definitions: every
 * struct with its fields, their types and the versions in which each is present, nullable or
 * tagged. Each generated codec carries its message's schema, so code that walks messages
 * generically (property tests, the decoder fuzzer) needs nothing but the generated code.
 */
import type { VersionRange } from './codec-support.js';

export type PrimitiveTypeName =
  'bool' | 'int8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64' | 'float64' | 'string' | 'uuid' | 'bytes' | 'records';

export type FieldTypeSchema =
  | { readonly kind: 'primitive'; readonly name: PrimitiveTypeName }
  | { readonly kind: 'struct'; readonly struct: StructSchema }
  | { readonly kind: 'array'; readonly element: FieldTypeSchema };

export interface FieldSchema {
  /** Property name in TypeScript (Kafka's camelCase). */
  readonly prop: string;
  readonly type: FieldTypeSchema;
  readonly versions: VersionRange;
  readonly nullableVersions: VersionRange;
  readonly taggedVersions: VersionRange;
  readonly tag: number | null;
  readonly ignorable: boolean;
}

export interface StructSchema {
  /** The TypeScript interface of the decoded struct. */
  readonly typeName: string;
  readonly versions: VersionRange;
  readonly fields: readonly FieldSchema[];
}

/** True when `version` lies in `r`; a range that holds no version ("none") has `lo > hi`. */
export function inRange(r: VersionRange, version: number): boolean {
  return version >= r.lo && version <= r.hi;
}
