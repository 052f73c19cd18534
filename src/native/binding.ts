/**
 * The only loader of the addon, and the TypeScript shape of what it exports. Other modules use
 * the typed wrappers in this folder, never this object directly. node-gyp-build finds it: a
 * clone's own build (`build/Release/sluice_native.node`) first, else the installed package's
 * prebuild for this platform (`prebuilds/linux-x64/sluice.glibc.node`, docs/design/native.md).
 *
 * The addon loads with its first use, not with this module: the main thread imports the
 * wrappers at start but calls none of them before it accepts connections (the first Fetch sends
 * files, the first sampled batch decompresses), and loading the addon is a few milliseconds of a
 * broker's start-up (docs/journal/performance.md). A missing addon still fails at import.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

type NodeCallback<T> = (error: Error | null, result?: T) => void;

/** Native codecs: 2 snappy, 3 lz4, 4 zstd (gzip is served by node:zlib). */
export type NativeCodec = 2 | 3 | 4;
/** `decompressInto` also inflates gzip (1), with zlib. */
export type NativeDecompressCodec = 1 | NativeCodec;

export interface NativeBinding {
  readonly abiVersion: number;
  readonly crc32cImplementation: 'sse4.2' | 'portable';
  crc32c(data: Uint8Array, seed?: number): number;
  /** The table-driven path, exported so tests can check it on CPUs that take the SSE4.2 path. */
  crc32cPortable(data: Uint8Array, seed?: number): number;
  /** Starts the send; returns a function that aborts it (the callback then gets EPIPE). */
  sendFile(socketFd: number, fileFd: number, position: number, length: number, callback: NodeCallback<void>): () => void;
  /** Bytes sent before the (non-blocking) socket would block; throws on any other failure. */
  sendFileNow(socketFd: number, fileFd: number, position: number, length: number): number;
  mapFile(fd: number, offset: number, length: number, writable: boolean): ArrayBuffer;
  msync(region: ArrayBuffer): void;
  unmap(region: ArrayBuffer): void;
  populate(region: ArrayBuffer, offset: number, length: number): void;
  readonly codecsAvailable: { readonly gzip: boolean; readonly snappy: boolean; readonly lz4: boolean; readonly zstd: boolean };
  compress(codec: NativeCodec, data: Uint8Array): Buffer;
  decompress(codec: NativeCodec, data: Uint8Array, maxDecompressedBytes: number): Buffer;
  /** Bytes written into `target`, or -1 when `target` is too small for them (never once it holds maxDecompressedBytes + 1). */
  decompressInto(codec: NativeDecompressCodec, data: Uint8Array, maxDecompressedBytes: number, target: Uint8Array): number;
  compressAsync(codec: NativeCodec, data: Uint8Array, callback: NodeCallback<Buffer>): void;
  decompressAsync(codec: NativeCodec, data: Uint8Array, maxDecompressedBytes: number, callback: NodeCallback<Buffer>): void;
  /** Whether the C allocator now keeps up to `bytes` of freed heap instead of returning it to the kernel. */
  keepFreedHeap(bytes: number): boolean;
  /** Copies all of `source` into `target` at `targetStart` (memmove); throws RangeError if it does not fit. */
  copyBytes(source: Uint8Array, target: Uint8Array, targetStart: number): void;
  /** True when every record of an uncompressed records section passes the produce checks (see record-scan.ts). */
  recordsPass(section: Uint8Array, count: number, deltaLo: number, deltaHi: number, requireKeys: boolean): boolean;
}

const EXPECTED_ABI_VERSION = 6;

const require = createRequire(import.meta.url);
const { resolve: findAddon } = require('node-gyp-build') as { resolve: (packageRoot: string) => string };

// Compiled to dist/src/native/binding.js, three folders below the package's root.
const PACKAGE_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

function addonPath(): string {
  try {
    return findAddon(PACKAGE_ROOT);
  } catch (err) {
    throw new Error(`Sluice native addon not found in ${PACKAGE_ROOT}: run \`npm install\` (or \`npm run build\`) to compile it`, {
      cause: err,
    });
  }
}

const ADDON_PATH = addonPath();

function load(): NativeBinding {
  const binding = require(ADDON_PATH) as NativeBinding;
  if (binding.abiVersion !== EXPECTED_ABI_VERSION) {
    throw new Error(
      `Sluice native addon at ${ADDON_PATH} is stale (abi ${binding.abiVersion}, want ${EXPECTED_ABI_VERSION}): run \`npm run build\``,
    );
  }
  return binding;
}

let loaded: NativeBinding | null = null;

/** This thread's addon, loaded by the first call. */
export function native(): NativeBinding {
  return (loaded ??= load());
}
