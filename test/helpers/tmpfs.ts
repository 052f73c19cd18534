/**
 * A small tmpfs for the full-disk tests and the fault suite: mounted where a test puts a log dir
 * (mounting needs root, so the caller skips with the problem returned), filled to the last byte,
 * unmounted after.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const FILL_CHUNK = Buffer.alloc(64 * 1024);

/** Mounts a tmpfs of `size` (mount's syntax: bytes, or `16m`) at `dir`; returns why it could not, or undefined. */
export function mountTmpfs(dir: string, size: string | number): string | undefined {
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return undefined;
  } catch (err) {
    return `cannot mount a tmpfs at ${dir} (needs root): ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
  }
}

/** Unmounts `dir`; one that is not mounted (any more) is left as it is. */
export function unmountTmpfs(dir: string): void {
  try {
    execFileSync('umount', [dir], { stdio: 'ignore' });
  } catch {
    // not mounted
  }
}

/** Writes to `path` until its file system has no byte left (ENOSPC is the point). */
export function fillUntilFull(path: string): void {
  const fd = openSync(path, 'w');
  try {
    for (;;) writeSync(fd, FILL_CHUNK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
    // What is left is smaller than a chunk: fill it too.
    for (let size = FILL_CHUNK.length >> 1; size > 0; size >>= 1) {
      try {
        writeSync(fd, FILL_CHUNK, 0, size);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
      }
    }
  } finally {
    closeSync(fd);
  }
}
