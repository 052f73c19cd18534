/**
 * Bounds-checked reader over one Kafka frame.
 *
 * Every length read from the wire (string, bytes, array count, varint) is checked against the
 * bytes left before anything is allocated, so a hostile 2 GiB length in a 30-byte frame costs
 * nothing but a `DecodeError`. The reader never copies: `bytes()` returns views on the frame.
 * Array and tagged-field counts are also held to the fixed caps of Kafka 4.4's decoders, which
 * apply however large the frame is.
 */
import { DecodeError, DecodeLimitError, type DecodeBound } from './decode-error.js';

const MAX_UNSIGNED_VARINT_BYTES = 5;
const MAX_VARLONG_BYTES = 10;
/** 7 bytes carry 49 bits: exact in a double. */
const FAST_VARLONG_BYTES = 7;

/**
 * Kafka 4.4 refuses a request whose array claims more elements than this, even when the frame
 * holds them all, so that no single request makes the broker build a giant collection. Exactly
 * this many is accepted.
 */
export const MAX_ARRAY_ELEMENTS = 1_000_000;
/** Likewise for the field count that opens a tagged-field section. */
export const MAX_TAGGED_FIELDS = 10_000;
/**
 * A string field's most bytes: the classic int16 length cannot say more, and Kafka 4.4 holds the
 * compact (varint) length of message fields to the same.
 */
export const MAX_STRING_BYTES = 0x7fff;

export class Reader {
  readonly buf: Buffer;
  offset: number;
  end: number;

  constructor(buf: Buffer, offset = 0, end = buf.length) {
    this.buf = buf;
    this.offset = offset;
    this.end = end;
  }

  remaining(): number {
    return this.end - this.offset;
  }

  private need(n: number, what: string): void {
    if (n > this.end - this.offset) {
      throw new DecodeError(`need ${n} bytes for ${what}, ${this.end - this.offset} left at offset ${this.offset}`);
    }
  }

  int8(): number {
    this.need(1, 'int8');
    return this.buf.readInt8(this.offset++);
  }

  uint8(): number {
    this.need(1, 'uint8');
    return this.buf[this.offset++]!;
  }

  bool(): boolean {
    return this.int8() !== 0;
  }

  int16(): number {
    this.need(2, 'int16');
    const v = this.buf.readInt16BE(this.offset);
    this.offset += 2;
    return v;
  }

  uint16(): number {
    this.need(2, 'uint16');
    const v = this.buf.readUInt16BE(this.offset);
    this.offset += 2;
    return v;
  }

  int32(): number {
    this.need(4, 'int32');
    const v = this.buf.readInt32BE(this.offset);
    this.offset += 4;
    return v;
  }

  uint32(): number {
    this.need(4, 'uint32');
    const v = this.buf.readUInt32BE(this.offset);
    this.offset += 4;
    return v;
  }

  int64(): bigint {
    this.need(8, 'int64');
    const v = this.buf.readBigInt64BE(this.offset);
    this.offset += 8;
    return v;
  }

  float64(): number {
    this.need(8, 'float64');
    const v = this.buf.readDoubleBE(this.offset);
    this.offset += 8;
    return v;
  }

  /** A Kafka UUID as its canonical text form (URL-safe base64 without padding, like Java's Uuid.toString). */
  uuid(): string {
    this.need(16, 'uuid');
    const v = this.buf.toString('base64url', this.offset, this.offset + 16);
    this.offset += 16;
    return v;
  }

  unsignedVarint(): number {
    let value = 0;
    let shift = 0;
    for (let i = 0; i < MAX_UNSIGNED_VARINT_BYTES; i++) {
      this.need(1, 'varint');
      const b = this.buf[this.offset++]!;
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) {
        return value >>> 0;
      }
      shift += 7;
    }
    throw new DecodeError(`varint longer than ${MAX_UNSIGNED_VARINT_BYTES} bytes at offset ${this.offset}`);
  }

  /** Zig-zag signed 32-bit varint, as used inside records. */
  varint(): number {
    const raw = this.unsignedVarint();
    return (raw >>> 1) ^ -(raw & 1);
  }

  /**
   * Zig-zag signed 64-bit varint. Record timestamps and deltas fit in 49 bits almost always, so
   * those are accumulated as a double and turned into one bigint; longer values take the bigint path.
   */
  varlong(): bigint {
    const fast = this.varlongNumber();
    if (fast !== null) return BigInt(fast);
    let big = 0n;
    let shift = 0n;
    for (let i = 0; i < MAX_VARLONG_BYTES; i++) {
      this.need(1, 'varlong');
      const b = this.buf[this.offset++]!;
      big |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) {
        big = BigInt.asUintN(64, big);
        return (big >> 1n) ^ -(big & 1n);
      }
      shift += 7n;
    }
    throw new DecodeError(`varlong longer than ${MAX_VARLONG_BYTES} bytes at offset ${this.offset}`);
  }

  /**
   * `varlong`, as a number, when it ends within 7 bytes (49 bits, exact in a double); otherwise
   * null with nothing consumed, and the caller reads it again with `varlong`.
   */
  varlongNumber(): number | null {
    const start = this.offset;
    let value = 0;
    let scale = 1;
    for (let i = 0; i < FAST_VARLONG_BYTES; i++) {
      this.need(1, 'varlong');
      const b = this.buf[this.offset++]!;
      value += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
      scale *= 128;
    }
    this.offset = start;
    return null;
  }

  /** Steps over `length` bytes whose content nobody reads. */
  skip(length: number): void {
    if (length < 0) throw new DecodeError(`negative length ${length}`);
    this.need(length, 'bytes');
    this.offset += length;
  }

  private utf8(length: number): string {
    this.need(length, 'string');
    const v = this.buf.toString('utf8', this.offset, this.offset + length);
    this.offset += length;
    return v;
  }

  private view(length: number): Buffer {
    this.need(length, 'bytes');
    const v = this.buf.subarray(this.offset, this.offset + length);
    this.offset += length;
    return v;
  }

  string(): string {
    const length = this.int16();
    if (length < 0) throw new DecodeError(`non-nullable string has length ${length}`);
    return this.utf8(length);
  }

  nullableString(): string | null {
    const length = this.int16();
    if (length < 0) return null;
    return this.utf8(length);
  }

  compactString(): string {
    const length = this.unsignedVarint() - 1;
    if (length < 0) throw new DecodeError('non-nullable compact string is null');
    return this.utf8(length);
  }

  /**
   * `maxBytes` is for message fields (MAX_STRING_BYTES); Sluice's own worker protocol reuses the
   * compact form without that cap. A longer length is refused before the bytes are decoded.
   */
  compactNullableString(maxBytes = Infinity): string | null {
    const length = this.unsignedVarint() - 1;
    if (length < 0) return null;
    if (length > maxBytes) throw new DecodeLimitError('string bytes', length, maxBytes);
    return this.utf8(length);
  }

  bytes(): Buffer {
    const length = this.int32();
    if (length < 0) throw new DecodeError(`non-nullable bytes has length ${length}`);
    return this.view(length);
  }

  nullableBytes(): Buffer | null {
    const length = this.int32();
    if (length < 0) return null;
    return this.view(length);
  }

  compactBytes(): Buffer {
    const length = this.unsignedVarint() - 1;
    if (length < 0) throw new DecodeError('non-nullable compact bytes is null');
    return this.view(length);
  }

  compactNullableBytes(): Buffer | null {
    const length = this.unsignedVarint() - 1;
    if (length < 0) return null;
    return this.view(length);
  }

  /** Raw bytes with a length known from elsewhere (tagged field bodies, record payloads). */
  raw(length: number): Buffer {
    if (length < 0) throw new DecodeError(`negative length ${length}`);
    return this.view(length);
  }

  /** Array element count; -1 means null. */
  arrayLength(): number {
    return this.checkedCount(this.int32(), 'array elements', MAX_ARRAY_ELEMENTS);
  }

  compactArrayLength(): number {
    return this.checkedCount(this.unsignedVarint() - 1, 'array elements', MAX_ARRAY_ELEMENTS);
  }

  /** The field count that opens a tagged-field section. */
  taggedFieldCount(): number {
    return this.checkedCount(this.unsignedVarint(), 'tagged fields', MAX_TAGGED_FIELDS);
  }

  /**
   * Refuses a count before the caller sizes or loops by it. The cap is checked first, so a count
   * over it is a DecodeLimitError whatever the frame's size (Kafka checks the bytes left first,
   * but either way its answer is the same closed connection). A count larger than the bytes left
   * cannot be honest, as every element or field takes at least one byte on the wire.
   */
  private checkedCount(n: number, what: DecodeBound, limit: number): number {
    if (n > limit) throw new DecodeLimitError(what, n, limit);
    if (n > this.remaining()) throw new DecodeError(`${n} ${what} with ${this.remaining()} bytes left`);
    return n;
  }
}
