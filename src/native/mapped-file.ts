/**
 * A file region mapped into memory (MAP_SHARED) as an ArrayBuffer, for the offset and time index
 * files. Each mapping belongs to the thread that made it; regions a thread leaves mapped are
 * unmapped when the buffer is collected or the thread exits. Do not shrink a mapped file: a
 * page past its new end raises SIGBUS when touched.
 */
import { native } from './binding.js';

export class MappedRegion {
  readonly buffer: ArrayBuffer;
  readonly bytes: Uint8Array;
  readonly writable: boolean;
  #mapped = true;

  constructor(fd: number, offset: number, length: number, writable: boolean) {
    this.buffer = native().mapFile(fd, offset, length, writable);
    this.bytes = new Uint8Array(this.buffer);
    this.writable = writable;
  }

  get mapped(): boolean {
    return this.#mapped;
  }

  /** Writes dirty pages back to the file and waits for the device. */
  msync(): void {
    this.#checkMapped();
    native().msync(this.buffer);
  }

  /**
   * Backs `length` bytes from `offset` with file system blocks now, so that a full disk fails
   * here (an EFAULT error) rather than with SIGBUS at the first write to a page of a sparse file.
   * Returns false where the kernel does not know how (before Linux 5.14): nothing is checked then.
   */
  populate(offset: number, length: number): boolean {
    this.#checkMapped();
    try {
      native().populate(this.buffer, offset, length);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EINVAL') return false;
      throw err;
    }
  }

  /** Detaches `buffer` (its views read as empty afterwards) and releases the mapping. Idempotent. */
  unmap(): void {
    if (!this.#mapped) return;
    native().unmap(this.buffer);
    this.#mapped = false;
  }

  #checkMapped(): void {
    if (!this.#mapped) throw new Error('the region has been unmapped');
  }
}

/** Maps `length` bytes of `fd` from `offset` (any offset; alignment is handled). The range must lie within the file. */
export function mapFile(fd: number, offset: number, length: number, writable: boolean): MappedRegion {
  return new MappedRegion(fd, offset, length, writable);
}
