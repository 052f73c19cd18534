/**
 * Growable big-endian writer for Kafka frames. It starts with room for a typical response and
 * doubles, so encoding costs amortised O(n) with no size pre-pass.
 */
import { EncodeError } from './decode-error.js';

/**
 * Record bytes that live in a file rather than in memory: a Fetch response names the segment
 * range and the network layer sends it with sendfile. Encoding only needs its length;
 * `release` is called once the bytes are on the wire (or the send failed), so the owner can
 * drop its lease on the file.
 */
export interface FileRegion {
  readonly fd: number;
  readonly position: number;
  readonly byteLength: number;
  release(): void;
}

/** An encoded frame: in-memory bytes and file ranges, in wire order. */
export type FrameParts = ReadonlyArray<Buffer | FileRegion>;

const UUID_BYTES = 16;

export class Writer {
  private buf: Buffer;
  offset = 0;
  /** File ranges spliced into the output, with the buffer offset each one follows. */
  private regions: Array<{ at: number; region: FileRegion }> = [];
  /** Total bytes of the spliced file ranges, which the frame's size prefix must count. */
  externalBytes = 0;

  constructor(initialCapacity = 256) {
    this.buf = Buffer.allocUnsafe(initialCapacity);
  }

  private ensure(n: number): void {
    const needed = this.offset + n;
    if (needed <= this.buf.length) return;
    let capacity = this.buf.length * 2;
    while (capacity < needed) capacity *= 2;
    const grown = Buffer.allocUnsafe(capacity);
    this.buf.copy(grown, 0, 0, this.offset);
    this.buf = grown;
  }

  /** The bytes written so far, as a view (no copy). Only for output without file ranges. */
  finish(): Buffer {
    if (this.regions.length > 0) throw new EncodeError('output carries file ranges: use finishParts()');
    return this.buf.subarray(0, this.offset);
  }

  /** Splices a file range into the output at this point; its bytes are sent from the file. */
  fileRegion(region: FileRegion): void {
    this.regions.push({ at: this.offset, region });
    this.externalBytes += region.byteLength;
  }

  /** The output as wire-ordered parts: views on the buffer between the spliced file ranges. */
  finishParts(): FrameParts {
    if (this.regions.length === 0) return [this.finish()];
    const parts: Array<Buffer | FileRegion> = [];
    let from = 0;
    for (const { at, region } of this.regions) {
      if (at > from) parts.push(this.buf.subarray(from, at));
      parts.push(region);
      from = at;
    }
    if (this.offset > from) parts.push(this.buf.subarray(from, this.offset));
    return parts;
  }

  /** Reserve `n` bytes to fill later (frame sizes, tagged field lengths); returns their offset. */
  reserve(n: number): number {
    this.ensure(n);
    const at = this.offset;
    this.offset += n;
    return at;
  }

  patchInt32(at: number, value: number): void {
    this.buf.writeInt32BE(value, at);
  }

  int8(v: number): void {
    this.ensure(1);
    this.buf.writeInt8(v, this.offset);
    this.offset += 1;
  }

  bool(v: boolean): void {
    this.int8(v ? 1 : 0);
  }

  int16(v: number): void {
    this.ensure(2);
    this.buf.writeInt16BE(v, this.offset);
    this.offset += 2;
  }

  uint16(v: number): void {
    this.ensure(2);
    this.buf.writeUInt16BE(v, this.offset);
    this.offset += 2;
  }

  int32(v: number): void {
    this.ensure(4);
    this.buf.writeInt32BE(v, this.offset);
    this.offset += 4;
  }

  uint32(v: number): void {
    this.ensure(4);
    this.buf.writeUInt32BE(v, this.offset);
    this.offset += 4;
  }

  int64(v: bigint): void {
    this.ensure(8);
    this.buf.writeBigInt64BE(v, this.offset);
    this.offset += 8;
  }

  float64(v: number): void {
    this.ensure(8);
    this.buf.writeDoubleBE(v, this.offset);
    this.offset += 8;
  }

  uuid(v: string): void {
    this.ensure(UUID_BYTES);
    const written = this.buf.write(v, this.offset, UUID_BYTES, 'base64url');
    if (written !== UUID_BYTES || v.length !== 22) throw new EncodeError(`invalid uuid '${v}'`);
    this.offset += UUID_BYTES;
  }

  unsignedVarint(v: number): void {
    this.ensure(5);
    let value = v >>> 0;
    while (value >= 0x80) {
      this.buf[this.offset++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    this.buf[this.offset++] = value;
  }

  varint(v: number): void {
    this.unsignedVarint((v << 1) ^ (v >> 31));
  }

  varlong(v: bigint): void {
    this.ensure(10);
    let value = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
    while (value >= 0x80n) {
      this.buf[this.offset++] = Number(value & 0x7fn) | 0x80;
      value >>= 7n;
    }
    this.buf[this.offset++] = Number(value);
  }

  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.offset);
    this.offset += bytes.length;
  }

  private utf8(v: string, length: number): void {
    this.ensure(length);
    this.buf.write(v, this.offset, length, 'utf8');
    this.offset += length;
  }

  string(v: string): void {
    const length = Buffer.byteLength(v, 'utf8');
    if (length > 0x7fff) throw new EncodeError(`string of ${length} bytes is longer than 32767`);
    this.int16(length);
    this.utf8(v, length);
  }

  nullableString(v: string | null): void {
    if (v === null) this.int16(-1);
    else this.string(v);
  }

  compactString(v: string): void {
    const length = Buffer.byteLength(v, 'utf8');
    this.unsignedVarint(length + 1);
    this.utf8(v, length);
  }

  compactNullableString(v: string | null): void {
    if (v === null) this.unsignedVarint(0);
    else this.compactString(v);
  }

  bytes(v: Uint8Array): void {
    this.int32(v.length);
    this.raw(v);
  }

  nullableBytes(v: Uint8Array | null): void {
    if (v === null) this.int32(-1);
    else this.bytes(v);
  }

  compactBytes(v: Uint8Array): void {
    this.unsignedVarint(v.length + 1);
    this.raw(v);
  }

  compactNullableBytes(v: Uint8Array | null): void {
    if (v === null) this.unsignedVarint(0);
    else this.compactBytes(v);
  }

  arrayLength(n: number | null): void {
    this.int32(n === null ? -1 : n);
  }

  compactArrayLength(n: number | null): void {
    this.unsignedVarint(n === null ? 0 : n + 1);
  }
}

/** Byte length of `v` as an unsigned varint. */
export function unsignedVarintSize(v: number): number {
  let value = v >>> 0;
  let size = 1;
  while (value >= 0x80) {
    value >>>= 7;
    size++;
  }
  return size;
}
