/**
 * Data schemas that travel as opaque bytes inside other messages or records (consumer protocol
 * metadata, `__consumer_offsets` values, control record keys, end-transaction markers) carry an
 * int16 version in front of the struct. A version newer than the schema is read as the newest
 * one known: later versions only append fields, which is how Kafka itself reads them.
 */
import { DecodeError } from './decode-error.js';
import type { MessageCodec } from './codec-support.js';
import { Reader } from './reader.js';
import { Writer } from './writer.js';

export function writeVersioned<I>(codec: MessageCodec<unknown, I>, version: number, body: I): Buffer {
  const w = new Writer(64);
  w.int16(version);
  codec.write(w, body, version);
  return w.finish();
}

/** The struct and the version its bytes carried. Throws DecodeError on a negative version or bad bytes. */
export function readVersioned<T>(codec: MessageCodec<T, unknown>, bytes: Buffer): { version: number; data: T } {
  const r = new Reader(bytes);
  const version = r.int16();
  if (version < 0) throw new DecodeError(`${codec.name} has negative version ${version}`);
  return { version, data: codec.read(r, Math.min(version, codec.validVersions.hi)) };
}
