/**
 * Kafka's 4-byte size framing. Splits a TCP byte stream into request frames, refusing a size
 * above the configured maximum (`socket.request.max.bytes`) as soon as the prefix is read, so
 * that an attacker's 2 GiB prefix never turns into a buffer. A frame that lies inside one
 * socket chunk is handed out as a view; only frames that span chunks are assembled, once, into
 * memory from `allocate` (a `FrameBufferPool`'s, on a broker).
 */
import { copyBytes } from './accelerators.js';
import { DecodeError } from './primitives/decode-error.js';
import type { FrameParts } from './primitives/writer.js';

export const SIZE_PREFIX_BYTES = 4;

/**
 * A connection's last response (a failed authentication): the connection reads nothing more,
 * holds the frame back `delayMs` (Kafka's `connection.failed.authentication.delay.ms`, which
 * slows password guessing), sends it, then closes.
 */
export interface FinalResponse {
  readonly finalFrame: FrameParts;
  readonly delayMs: number;
}

export class FrameSizeError extends DecodeError {
  readonly size: number;
  constructor(size: number, max: number) {
    super(size < 0 ? `negative frame size ${size}` : `frame of ${size} bytes exceeds the maximum of ${max}`);
    this.name = 'FrameSizeError';
    this.size = size;
  }
}

export class FrameDecoder {
  private readonly maxFrameBytes: number;
  private readonly prefix = Buffer.alloc(SIZE_PREFIX_BYTES);
  private prefixFilled = 0;
  private frame: Buffer | null = null;
  private frameFilled = 0;

  constructor(
    maxFrameBytes: number,
    private readonly allocate: (size: number) => Buffer = (size) => Buffer.allocUnsafe(size),
  ) {
    this.maxFrameBytes = maxFrameBytes;
  }

  /** True while a partial frame or size prefix is buffered. */
  get hasPartialFrame(): boolean {
    return this.prefixFilled > 0 || this.frame !== null;
  }

  /** Feeds one chunk; calls `onFrame` for every complete frame (size prefix removed). Throws FrameSizeError. */
  push(chunk: Buffer, onFrame: (frame: Buffer) => void): void {
    let pos = 0;
    while (pos < chunk.length) {
      if (this.frame !== null) {
        const take = Math.min(this.frame.length - this.frameFilled, chunk.length - pos);
        // The frame may be shared memory, which V8 fills slowly (see copy-bytes.ts).
        copyBytes(chunk.subarray(pos, pos + take), this.frame, this.frameFilled);
        this.frameFilled += take;
        pos += take;
        if (this.frameFilled === this.frame.length) {
          const done = this.frame;
          this.frame = null;
          this.frameFilled = 0;
          onFrame(done);
        }
        continue;
      }
      if (this.prefixFilled === 0 && chunk.length - pos >= SIZE_PREFIX_BYTES) {
        const size = this.checkedSize(chunk.readInt32BE(pos));
        pos += SIZE_PREFIX_BYTES;
        if (chunk.length - pos >= size) {
          onFrame(chunk.subarray(pos, pos + size));
          pos += size;
        } else {
          this.startFrame(size);
        }
        continue;
      }
      const take = Math.min(SIZE_PREFIX_BYTES - this.prefixFilled, chunk.length - pos);
      chunk.copy(this.prefix, this.prefixFilled, pos, pos + take);
      this.prefixFilled += take;
      pos += take;
      if (this.prefixFilled === SIZE_PREFIX_BYTES) {
        this.prefixFilled = 0;
        const size = this.checkedSize(this.prefix.readInt32BE(0));
        if (size === 0) onFrame(Buffer.alloc(0));
        else this.startFrame(size);
      }
    }
  }

  private checkedSize(size: number): number {
    if (size < 0 || size > this.maxFrameBytes) throw new FrameSizeError(size, this.maxFrameBytes);
    return size;
  }

  private startFrame(size: number): void {
    this.frame = this.allocate(size);
    this.frameFilled = 0;
  }
}
