/**
 * Runs compaction for the logs of one partition owner (Kafka's `LogCleaner` +
 * `LogCleanerManager`, per thread rather than per broker). `LogManager.maintain` offers its
 * compacted logs every second; the cleaner plans each one (`cleaning-plan.ts`), starts jobs for
 * the filthiest (forced ones first) while fewer than `threads` run, at most one per log:
 *
 *   owner:   plan → lease the planned segments' descriptors → task
 *   pool:    build the key map, write `.cleaned` segments (clean-segments.ts)
 *   owner:   on settlement, `PartitionLog.replaceWithCleaned` (the swap), then the checkpoint
 *            callback with the new first dirty offset; leases released in every case.
 *
 * A job whose log closed, was deleted or changed (truncation, retention) meanwhile is discarded
 * and its `.cleaned` files removed. A job that fails marks its log uncleanable until it is
 * reopened (Kafka marks the partition uncleanable too) and is logged.
 *
 * Owned by the thread that owns the logs; promises settle on that thread's event loop.
 */
import { Logger } from '../../common/logger.js';
import type { PartitionLog } from '../log/partition-log.js';
import { isCompacted } from '../log-config.js';
import { StorageError } from '../storage-error.js';
import type { CleanResult, CleanTask } from './clean-task.js';
import { cleanedPaths, removeCleanedFiles } from './cleaned-segment-writer.js';
import { CleanerPool, type CleanRunner } from './cleaner-pool.js';
import { planCleaning, type CleaningPlan } from './cleaning-plan.js';

export interface LogCleanerOptions {
  /** Kafka's `log.cleaner.threads` (default 1): jobs running at once. */
  readonly threads?: number;
  /** Soft cap on distinct keys per job (default 4 Mi, ~0.5 GiB of map at worst). */
  readonly maxMapEntries?: number;
  /** Where jobs run (default: a piscina pool of `threads` threads). */
  readonly runner?: CleanRunner;
}

export interface CleaningCandidate {
  readonly log: PartitionLog;
  /** The log's `cleaner-offset-checkpoint` entry, if any. */
  readonly checkpoint: number | undefined;
}

/** Told when a log's result has been swapped in: its new first dirty offset. */
export type CleanedCallback = (log: PartitionLog, firstDirtyOffset: number, result: CleanResult) => void;

const DEFAULT_MAX_MAP_ENTRIES = 4 * 1024 * 1024;
const logger = new Logger('log-cleaner');

export class LogCleaner {
  readonly #threads: number;
  readonly #maxMapEntries: number;
  readonly #pool: CleanerPool | null;
  readonly #runner: CleanRunner;
  readonly #clock: () => number;
  readonly #jobs = new Map<PartitionLog, Promise<void>>();
  readonly #nextDeleteHorizon = new WeakMap<PartitionLog, number>();
  readonly #uncleanable = new WeakSet<PartitionLog>();
  #closed = false;

  constructor(options: LogCleanerOptions, clock: () => number) {
    this.#threads = options.threads ?? 1;
    this.#maxMapEntries = options.maxMapEntries ?? DEFAULT_MAX_MAP_ENTRIES;
    this.#pool = options.runner === undefined ? new CleanerPool({ threads: this.#threads }) : null;
    this.#runner = options.runner ?? this.#pool!.run;
    this.#clock = clock;
  }

  /** Jobs in flight. */
  get running(): number {
    return this.#jobs.size;
  }

  /** Starts jobs for the logs that need cleaning; returns how many started. */
  schedule(candidates: Iterable<CleaningCandidate>, onCleaned: CleanedCallback): number {
    if (this.#closed) return 0;
    const now = this.#clock();
    const plans: Array<{ log: PartitionLog; plan: CleaningPlan }> = [];
    for (const { log, checkpoint } of candidates) {
      if (this.#jobs.has(log) || this.#uncleanable.has(log) || log.closed || !log.logDir.online || !isCompacted(log.config)) continue;
      const { segments } = log.cleanableSegments();
      const plan = planCleaning(
        {
          config: log.config,
          logStartOffset: log.logStartOffset,
          // Kafka bounds cleaning by the first unstable offset too: open transactions, and ones
          // whose marker is not replicated yet, are never cleaned (their outcome is unknown here).
          highWatermark: log.lastStableOffset,
          segments,
          activeBaseOffset: log.activeSegment.baseOffset,
          checkpoint,
          nextDeleteHorizonMs: this.#nextDeleteHorizon.get(log) ?? null,
        },
        now,
      );
      if (plan !== null) plans.push({ log, plan });
    }
    const forcedFirst = (p: CleaningPlan): number => (p.reason === 'dirty-ratio' ? p.dirtyRatio : 2);
    plans.sort((a, b) => forcedFirst(b.plan) - forcedFirst(a.plan));
    let started = 0;
    for (const { log, plan } of plans) {
      if (this.#jobs.size >= this.#threads) break;
      this.#start(log, plan, now, onCleaned);
      started++;
    }
    return started;
  }

  #start(log: PartitionLog, plan: CleaningPlan, now: number, onCleaned: CleanedCallback): void {
    const planned = log.cleanableSegments();
    const segments = plan.segments;
    const leases = segments.map((s) => s.lease());
    const config = log.config;
    const producerLastOffsets: Array<readonly [bigint, number]> = [];
    for (const [producerId, state] of log.activeProducers()) {
      const last = state.batches[state.batches.length - 1];
      if (last !== undefined) producerLastOffsets.push([producerId, last.lastOffset]);
    }
    const task: CleanTask = {
      dir: log.dir,
      segments: segments.map((s, i) => ({
        baseOffset: s.baseOffset,
        nextOffset: segments[i + 1]?.baseOffset ?? plan.firstUncleanableOffset,
        fd: leases[i]!.fd,
        size: s.size,
      })),
      firstDirtyOffset: plan.firstDirtyOffset,
      firstUncleanableOffset: plan.firstUncleanableOffset,
      nowMs: now,
      deleteRetentionMs: config['delete.retention.ms'],
      segmentBytes: config['segment.bytes'],
      indexIntervalBytes: config['index.interval.bytes'],
      maxIndexBytes: config['segment.index.bytes'],
      maxMapEntries: this.#maxMapEntries,
      producerLastOffsets,
      abortedTransactions: log
        .collectAbortedTransactions(segments[0]!.baseOffset, plan.firstUncleanableOffset)
        .map((t) => ({ producerId: t.producerId, firstOffset: t.firstOffset, lastOffset: t.lastOffset })),
    };
    const job = this.#runner(task)
      .then(
        (result) => this.#settle(log, { segments, truncations: planned.truncations }, result, onCleaned),
        (error: unknown) => {
          if (this.#closed || log.closed) return;
          this.#uncleanable.add(log);
          logger.error('cleaning failed; the log stays uncleanable until reopened', { dir: log.dir, error: String(error) });
        },
      )
      .finally(() => {
        for (const lease of leases) lease.release();
        this.#jobs.delete(log);
      });
    this.#jobs.set(log, job);
  }

  #settle(
    log: PartitionLog,
    planned: Parameters<PartitionLog['replaceWithCleaned']>[1],
    result: CleanResult,
    onCleaned: CleanedCallback,
  ): void {
    let swapped = false;
    try {
      swapped = !this.#closed && !log.closed && log.logDir.online && log.replaceWithCleaned(result.cleaned, planned);
    } catch (e) {
      if (!(e instanceof StorageError)) throw e;
      logger.error('compaction swap failed', { dir: log.dir, error: e.message });
      return;
    }
    if (!swapped) {
      discard(log.dir, result);
      return;
    }
    if (result.nextDeleteHorizonMs === null) this.#nextDeleteHorizon.delete(log);
    else this.#nextDeleteHorizon.set(log, result.nextDeleteHorizonMs);
    onCleaned(log, result.endOffset, result);
  }

  /** Resolves once no job is in flight (tests, orderly shutdown). */
  async idle(): Promise<void> {
    while (this.#jobs.size > 0) await Promise.allSettled([...this.#jobs.values()]);
  }

  /**
   * Stops scheduling; results still to come are discarded (their `.cleaned` files removed, or
   * left to the next open if the pool is torn down first). Resolves when the pool has stopped.
   */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#pool?.close();
    await this.idle();
  }
}

function discard(dir: string, result: CleanResult): void {
  try {
    for (const c of result.cleaned) removeCleanedFiles(cleanedPaths(dir, c.baseOffset));
  } catch {
    // the directory may be gone (partition deleted); the next open removes any leftover
  }
}
