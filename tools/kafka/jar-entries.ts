/**
 * Reads files out of a jar (a zip archive) without Java or an unzip binary: the central directory
 * at the end of the archive lists every entry with its offset, and each entry is stored or
 * deflated. Kafka's jars are far below zip64's 4 GiB limits, so zip64 archives are refused.
 */
import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

export class JarReadError extends Error {
  override name = 'JarReadError';
}

export interface JarEntry {
  /** The path inside the archive, e.g. `common/message/ProduceRequest.json`. */
  readonly name: string;
  readonly data: Buffer;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;
const ZIP64_MARKER = 0xffffffff;

/** The end record is 22 bytes plus a comment of up to 65535, so it starts within that distance of the end. */
function endOfCentralDirectory(zip: Buffer, file: string): number {
  const earliest = Math.max(0, zip.length - 22 - 0xffff);
  for (let at = zip.length - 22; at >= earliest; at--) {
    if (zip.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY) return at;
  }
  throw new JarReadError(`${file}: not a zip archive (no end of central directory)`);
}

/** Every file entry of `jarPath` whose name passes `wanted`, in archive order, decompressed. */
export function readJarEntries(jarPath: string, wanted: (name: string) => boolean): JarEntry[] {
  const zip = readFileSync(jarPath);
  const end = endOfCentralDirectory(zip, jarPath);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  if (at === ZIP64_MARKER) throw new JarReadError(`${jarPath}: zip64 archives are not supported`);
  const entries: JarEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== CENTRAL_DIRECTORY_ENTRY) throw new JarReadError(`${jarPath}: central directory entry ${i} is corrupt`);
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localHeader = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith('/') || !wanted(name)) continue;
    if (compressedSize === ZIP64_MARKER || localHeader === ZIP64_MARKER) throw new JarReadError(`${jarPath}: ${name} needs zip64`);
    if (zip.readUInt32LE(localHeader) !== LOCAL_FILE_HEADER) throw new JarReadError(`${jarPath}: local header of ${name} is corrupt`);
    const dataStart = localHeader + 30 + zip.readUInt16LE(localHeader + 26) + zip.readUInt16LE(localHeader + 28);
    const raw = zip.subarray(dataStart, dataStart + compressedSize);
    if (method === STORED) entries.push({ name, data: Buffer.from(raw) });
    else if (method === DEFLATED) entries.push({ name, data: inflateRawSync(raw) });
    else throw new JarReadError(`${jarPath}: ${name} uses compression method ${method}`);
  }
  return entries;
}
