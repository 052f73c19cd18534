/**
 * Hands out producer ids for InitProducerId. Ids come in blocks; the end of the current block is
 * persisted (written to a temp file, fsynced, renamed) before any id of it is used, so after a
 * crash or restart the broker continues past every id it may have handed out and never reuses
 * one — a reused id would let a new producer's batches be taken for an old producer's duplicates.
 *
 * File format (`<first log dir>/producer-ids`): one line `next_block_start=<n>`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomically } from '../common/atomic-file.js';

export const PRODUCER_IDS_FILE = 'producer-ids';
const BLOCK_SIZE = 1000n;

export class ProducerIdManager {
  private next: bigint;
  private blockEnd: bigint;

  private constructor(
    private readonly path: string,
    persistedStart: bigint,
  ) {
    this.next = persistedStart;
    this.blockEnd = persistedStart;
  }

  static open(logDir: string): ProducerIdManager {
    const path = join(logDir, PRODUCER_IDS_FILE);
    let start = 0n;
    try {
      const m = /^next_block_start=(\d+)\s*$/m.exec(readFileSync(path, 'utf8'));
      if (!m) throw new Error(`${path} is not a producer id block file`);
      start = BigInt(m[1]!);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    return new ProducerIdManager(path, start);
  }

  /** The next unused producer id. */
  nextProducerId(): bigint {
    if (this.next >= this.blockEnd) {
      this.blockEnd = this.next + BLOCK_SIZE;
      this.persist(this.blockEnd);
    }
    return this.next++;
  }

  private persist(nextBlockStart: bigint): void {
    writeFileAtomically(this.path, `next_block_start=${nextBlockStart}\n`);
  }
}
