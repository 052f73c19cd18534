/**
 * Which leader epoch started at which offset (Kafka's `LeaderEpochFileCache`), for
 * OffsetForLeaderEpoch and follower truncation. Persisted in the partition directory as
 * `leader-epoch-checkpoint` in Kafka's checkpoint format (version, count, `epoch startOffset`
 * lines), rewritten on every change without fsync, as Kafka does: after a crash the log is
 * recovered and the cache truncated to the recovered end, so a stale file is harmless.
 * Owned by the partition's thread.
 */
import { join } from 'node:path';
import { CheckpointFile, CorruptCheckpointError, EPOCH_ENTRY_FORMAT, type EpochEntry } from '../checkpoint/checkpoint-file.js';
import { LEADER_EPOCH_CHECKPOINT_FILE } from '../file-names.js';
import { leaderEpochOf, NO_EPOCH, NO_OFFSET, type LeaderEpoch, type Offset } from '@sluice/protocol/common/offsets.js';

/** Where an epoch ends in the log (OffsetForLeaderEpoch's answer, a diverging epoch). */
export interface EpochEndOffset {
  readonly epoch: LeaderEpoch;
  readonly endOffset: Offset;
}

const UNKNOWN: EpochEndOffset = { epoch: NO_EPOCH, endOffset: NO_OFFSET };

export class LeaderEpochCache {
  #entries: EpochEntry[];
  readonly #file: CheckpointFile<EpochEntry>;

  constructor(partitionDir: string) {
    this.#file = new CheckpointFile(join(partitionDir, LEADER_EPOCH_CHECKPOINT_FILE), EPOCH_ENTRY_FORMAT);
    let entries: EpochEntry[] | null = null;
    try {
      entries = this.#file.read();
    } catch (e) {
      // A damaged cache is rebuilt from the epochs of the batches appended from now on.
      if (!(e instanceof CorruptCheckpointError)) throw e;
    }
    this.#entries = entries ?? [];
  }

  get entries(): readonly EpochEntry[] {
    return this.#entries;
  }

  get latestEpoch(): LeaderEpoch {
    return this.#entries.at(-1)?.epoch ?? NO_EPOCH;
  }

  /**
   * Records that `epoch` starts at `startOffset`, dropping entries it contradicts. The epoch is
   * where a batch's header or an append names it: here it becomes a `LeaderEpoch`.
   */
  assign(partitionLeaderEpoch: number, startOffset: Offset): void {
    if (partitionLeaderEpoch < 0) return;
    const epoch = leaderEpochOf(partitionLeaderEpoch);
    const latest = this.#entries.at(-1);
    if (latest !== undefined && latest.epoch === epoch && latest.startOffset <= startOffset) return;
    this.#entries = this.#entries.filter((e) => e.epoch < epoch && e.startOffset < startOffset);
    this.#entries.push({ epoch, startOffset });
    this.#persist();
  }

  /** The log was truncated to end at `endOffset`: epochs starting at or after it are gone. */
  truncateFromEnd(endOffset: Offset): void {
    const kept = this.#entries.filter((e) => e.startOffset < endOffset);
    if (kept.length === this.#entries.length) return;
    this.#entries = kept;
    this.#persist();
  }

  /** The log lost every record: no epoch is known any more. */
  clear(): void {
    if (this.#entries.length === 0) return;
    this.#entries = [];
    this.#persist();
  }

  /** The log now starts at `startOffset`: the epoch covering it starts there. */
  truncateFromStart(startOffset: Offset): void {
    let firstKept = -1;
    for (let i = 0; i < this.#entries.length; i++) if (this.#entries[i]!.startOffset <= startOffset) firstKept = i;
    if (firstKept < 0 || (firstKept === 0 && this.#entries[0]!.startOffset === startOffset)) return;
    const covering = this.#entries[firstKept]!;
    this.#entries = [{ epoch: covering.epoch, startOffset }, ...this.#entries.slice(firstKept + 1)];
    this.#persist();
  }

  /**
   * OffsetForLeaderEpoch: the largest epoch <= `requested` and the offset where the next epoch
   * starts (the log end offset if it is the latest), or (-1, -1) when `requested` is unknown.
   */
  endOffsetFor(requested: LeaderEpoch, logEndOffset: Offset): EpochEndOffset {
    const latest = this.#entries.at(-1);
    if (requested === NO_EPOCH || latest === undefined) return UNKNOWN;
    if (requested >= latest.epoch) return requested === latest.epoch ? { epoch: requested, endOffset: logEndOffset } : UNKNOWN;
    const higher = this.#entries.findIndex((e) => e.epoch > requested);
    const floor = higher > 0 ? this.#entries[higher - 1]! : null;
    return { epoch: floor?.epoch ?? requested, endOffset: this.#entries[higher]!.startOffset };
  }

  /** Durable write, for clean shutdown. */
  flush(): void {
    this.#file.write(this.#entries, true);
  }

  #persist(): void {
    this.#file.write(this.#entries, false);
  }
}
