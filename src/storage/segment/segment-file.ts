/**
 * The open file descriptor of a segment's `.log`, shared between the segment that writes it and
 * the reads that hand it to another thread for `sendfile`.
 *
 * Reference counted: the segment holds one reference; each read lease holds another. The
 * descriptor is closed only when the last reference goes, so a send in progress never sees its
 * descriptor closed and the number reused for another file (PITFALLS: fd reuse after close),
 * whatever the owner does meanwhile — roll, retention, truncation, deletion. Renaming and
 * unlinking do not disturb an open descriptor, so deletion needs no coordination beyond this.
 *
 * Counted on the owning thread only: a lease taken here is released here, when the thread that
 * sent the bytes reports back.
 */
import { closeSync, openSync, constants } from 'node:fs';

export class SegmentFile {
  #fd: number;
  #references = 1;
  #path: string;

  private constructor(fd: number, path: string) {
    this.#fd = fd;
    this.#path = path;
  }

  /** Opens (creating if asked) for reading and positional writes. */
  static open(path: string, create: boolean): SegmentFile {
    const flags = constants.O_RDWR | (create ? constants.O_CREAT : 0);
    return new SegmentFile(openSync(path, flags, 0o644), path);
  }

  get fd(): number {
    if (this.#references === 0) throw new Error(`segment file ${this.#path} is closed`);
    return this.#fd;
  }

  get path(): string {
    return this.#path;
  }

  /** Outstanding read leases (references beyond the owner's, or all of them once the owner let go). */
  get leases(): number {
    return this.#ownerHolds ? this.#references - 1 : this.#references;
  }

  get closed(): boolean {
    return this.#references === 0;
  }

  #ownerHolds = true;

  setPath(path: string): void {
    this.#path = path;
  }

  /** Takes a reference for a read; call `release` once the bytes have been sent. */
  lease(): FileLease {
    const fd = this.fd; // throws once the file is closed
    this.#references++;
    let released = false;
    return {
      fd,
      release: () => {
        if (released) return;
        released = true;
        this.#unref();
      },
    };
  }

  /** The owner is done with the file; it closes now or when the last lease is released. */
  close(): void {
    if (!this.#ownerHolds) return;
    this.#ownerHolds = false;
    this.#unref();
  }

  #unref(): void {
    if (--this.#references === 0) closeSync(this.#fd);
  }
}

export interface FileLease {
  readonly fd: number;
  /** Idempotent. */
  release: () => void;
}
