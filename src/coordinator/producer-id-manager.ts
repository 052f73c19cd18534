/**
 * Hands out producer ids for InitProducerId, from blocks that a `ProducerIdBlockSource` allocates:
 * the block source persists the end of a block before any of its ids is used, so after a crash
 * or restart ids continue past every id that may have been handed out and none is reused — a
 * reused id would let a new producer's batches be taken for an old producer's duplicates.
 * Allocation is asynchronous (a file here; ZooKeeper's `/latest_producer_id_block` in a cluster);
 * callers that arrive while a block is being allocated wait for that one allocation.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomically } from '../common/atomic-file.js';

/** Kafka's producer id block size. */
export const PRODUCER_ID_BLOCK_SIZE = 1000n;

export interface ProducerIdBlock {
  readonly firstId: bigint;
  readonly size: bigint;
}

export interface ProducerIdBlockSource {
  /** A block no other allocation has returned or will return, persisted before it resolves. */
  allocate(): Promise<ProducerIdBlock>;
}

export class ProducerIdManager {
  private next = 0n;
  private blockEnd = 0n;
  private allocating: Promise<void> | null = null;

  constructor(private readonly blocks: ProducerIdBlockSource) {}

  /** The next unused producer id. */
  async nextProducerId(): Promise<bigint> {
    while (this.next >= this.blockEnd) {
      this.allocating ??= this.blocks.allocate().then(
        (block) => {
          this.next = block.firstId;
          this.blockEnd = block.firstId + block.size;
          this.allocating = null;
        },
        (err: unknown) => {
          this.allocating = null;
          throw err;
        },
      );
      await this.allocating;
    }
    return this.next++;
  }
}

export const PRODUCER_IDS_FILE = 'producer-ids';

/**
 * Blocks from a file of the broker's first log dir (`producer-ids`: one line
 * `next_block_start=<n>`), rewritten atomically (temp file, fsync, rename) for every block.
 */
export class LocalProducerIdBlocks implements ProducerIdBlockSource {
  private nextBlockStart: bigint;
  private readonly path: string;

  constructor(logDir: string) {
    this.path = join(logDir, PRODUCER_IDS_FILE);
    this.nextBlockStart = 0n;
    try {
      const m = /^next_block_start=(\d+)\s*$/m.exec(readFileSync(this.path, 'utf8'));
      if (!m) throw new Error(`${this.path} is not a producer id block file`);
      this.nextBlockStart = BigInt(m[1]!);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }

  async allocate(): Promise<ProducerIdBlock> {
    const block = { firstId: this.nextBlockStart, size: PRODUCER_ID_BLOCK_SIZE };
    writeFileAtomically(this.path, `next_block_start=${block.firstId + block.size}\n`);
    this.nextBlockStart = block.firstId + block.size;
    return block;
  }
}
