/**
 * The protocol's hot loops, replaceable by faster implementations. The defaults are TypeScript
 * and `node:zlib`, so the protocol and the client run anywhere; the broker's addon installs its
 * CRC32C, shared-memory copy, record scan and codecs when it loads (`src/native/index.ts`), in
 * each thread that loads it. A missing install is slower, never wrong: the record scan's
 * default answers "not known", which sends every batch through the TypeScript walk.
 */
import { crc32cJs } from './checksum/crc32c-js.js';
import { type CompressionCodec } from './records/compression-codec.js';
import { isPortableCodec, portableCompress, portableDecompress } from './records/portable-codecs.js';

export interface Accelerators {
  /** Who provides them: 'typescript' until an addon installs its own. */
  readonly provider: string;
  /** CRC-32C (Castagnoli); incremental: pass the previous result as `seed` to continue. */
  crc32c(data: Uint8Array, seed?: number): number;
  /** Copies all of `source` into `target` at `targetStart`; throws RangeError if it does not fit. */
  copyBytes(source: Uint8Array, target: Uint8Array, targetStart: number): void;
  /**
   * True when the `count` records of `section` are well formed, have offset deltas 0, 1, 2…, a key
   * each when `requireKeys`, and timestamp deltas within [deltaLo, deltaHi]; false says nothing.
   */
  recordsPass(section: Uint8Array, count: number, deltaLo: number, deltaHi: number, requireKeys: boolean): boolean;
  codecAvailable(codec: CompressionCodec): boolean;
  compress(codec: CompressionCodec, data: Uint8Array): Buffer;
  decompress(codec: CompressionCodec, data: Uint8Array, maxDecompressedBytes: number): Buffer;
}

/** `copyBytes` in JavaScript; V8 copies into shared memory byte by byte unless both sides are equally aligned. */
export function portableCopyBytes(source: Uint8Array, target: Uint8Array, targetStart: number): void {
  if (targetStart + source.byteLength > target.byteLength)
    throw new RangeError('copyBytes: the source does not fit in the target at targetStart');
  target.set(source, targetStart);
}

const TYPESCRIPT: Accelerators = {
  provider: 'typescript',
  crc32c: crc32cJs,
  copyBytes: portableCopyBytes,
  recordsPass: () => false,
  codecAvailable: isPortableCodec,
  compress: portableCompress,
  decompress: portableDecompress,
};

let current: Accelerators = TYPESCRIPT;

/** Replaces the implementations in this thread (each worker thread has its own module instance). */
export function installAccelerators(accelerators: Accelerators): void {
  current = accelerators;
}

export function acceleratorProvider(): string {
  return current.provider;
}

export function crc32c(data: Uint8Array, seed = 0): number {
  return current.crc32c(data, seed);
}

export function copyBytes(source: Uint8Array, target: Uint8Array, targetStart: number): void {
  current.copyBytes(source, target, targetStart);
}

export function recordsPass(section: Uint8Array, count: number, deltaLo: number, deltaHi: number, requireKeys: boolean): boolean {
  return current.recordsPass(section, count, deltaLo, deltaHi, requireKeys);
}

export function codecAvailable(codec: CompressionCodec): boolean {
  return current.codecAvailable(codec);
}

export function compress(codec: CompressionCodec, data: Uint8Array): Buffer {
  return current.compress(codec, data);
}

export function decompress(codec: CompressionCodec, data: Uint8Array, maxDecompressedBytes: number): Buffer {
  return current.decompress(codec, data, maxDecompressedBytes);
}

/**
 * Names a module (a file URL) whose loading installs accelerators: a process that runs Sluice's
 * client tools sets it, so that the Node processes they start (the tuning profiler's driver)
 * install the same ones.
 */
export const ACCELERATORS_MODULE_ENV = 'SLUICE_ACCELERATORS_MODULE';

/** Loads the module that ACCELERATORS_MODULE_ENV names, if any. */
export async function loadAcceleratorsModule(): Promise<void> {
  const module = process.env[ACCELERATORS_MODULE_ENV];
  if (module !== undefined && module !== '') await import(module);
}
