/**
 * The machine's ceilings, measured in the same run as the brokers so Sluice's numbers can be read
 * as a fraction of what the hardware allowed at that moment on this shared machine.
 */
import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { lastJson, runJava, type JavaTools } from './java-tools.js';

export interface DiskWrite {
  /** writeSync of 1 MiB chunks into the page cache, no sync (what both brokers do per append). */
  readonly bufferedMBps: number;
  /** The same bytes followed by one fdatasync, timed to its end: the sustained device rate. */
  readonly bufferedThenSyncMBps: number;
  /** fdatasync after every 1 MiB write. */
  readonly syncEachMiBMBps: number;
}

export interface MachineLimits {
  readonly loopbackMBps: number;
  readonly disk: DiskWrite;
}

const CHUNK = 1024 * 1024;

function writeFile(path: string, mib: number, sync: 'none' | 'end' | 'each'): number {
  const chunk = Buffer.alloc(CHUNK, 0x5a);
  const fd = openSync(path, 'w');
  const start = process.hrtime.bigint();
  try {
    for (let i = 0; i < mib; i++) {
      writeSync(fd, chunk);
      if (sync === 'each') fdatasyncSync(fd);
    }
    if (sync === 'end') fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  rmSync(path);
  return (mib * CHUNK) / seconds / 1e6;
}

/** Writes in `dir` (put it on the brokers' log filesystem). */
export function measureDisk(dir: string, mib: number): DiskWrite {
  const path = join(dir, 'disk-probe.bin');
  return {
    bufferedMBps: writeFile(path, mib, 'none'),
    bufferedThenSyncMBps: writeFile(path, mib, 'end'),
    syncEachMiBMBps: writeFile(path, Math.max(16, mib / 4), 'each'),
  };
}

export async function measureLoopback(tools: JavaTools, seconds: number): Promise<number> {
  const r = lastJson<{ bytes: number; seconds: number }>(await runJava(tools, 'BenchTool', ['loopback', String(seconds)]));
  return r.bytes / r.seconds / 1e6;
}
