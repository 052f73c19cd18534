/**
 * All partition logs of this thread across `log.dirs`, and the per-dir files around them:
 *
 *   <log dir>/meta.properties                    written once (directory id), see meta-properties.ts
 *   <log dir>/recovery-point-offset-checkpoint   topic partition offset: below it, fsynced
 *   <log dir>/log-start-offset-checkpoint        topic partition offset: DeleteRecords / retention
 *   <log dir>/replication-offset-checkpoint      topic partition offset: high watermarks
 *   <log dir>/cleaner-offset-checkpoint          topic partition offset: first dirty offset of compacted logs
 *   <log dir>/.kafka_cleanshutdown               present only between a clean close and the next open
 *   <log dir>/<topic>-<partition>/               one PartitionLog each
 *   <log dir>/<topic>-<partition>.<uuid>-future/ a partition's future log, filled while it moves here
 *
 * Checkpoints are rewritten by `maintain` every `checkpointIntervalMs` and on `close` (Kafka's
 * format, tmp + fsync + rename). The clean-shutdown marker is written last on close and removed
 * as soon as the logs are loaded, so a crash after start-up is never mistaken for a clean stop;
 * with the marker, start-up reads no log data. A log dir whose files fail to open or write goes
 * offline alone; the others keep serving.
 *
 * Moves between log dirs (AlterReplicaLogDirs, Kafka's future logs): `createFutureLog` starts one
 * in the destination dir, `advanceMoves` copies (log-move.ts) and, for a future caught up, swaps
 * it in the same turn (`#swap`): the future closed (flushed, epochs and producer snapshot
 * written), renamed to the partition's name, reopened as the current log; then the old log renamed
 * `-delete`. A crash between the two renames leaves two complete copies; the next open keeps the
 * one with the larger log end (the future was flushed, so the copy a power loss shortened loses),
 * and removes the other. A crash before the first rename leaves the future, which the move resumes.
 *
 * Single-threaded: a worker owns one LogManager for its partitions. Partitions must not be
 * opened by two managers at once.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  CheckpointFile,
  CorruptCheckpointError,
  PARTITION_OFFSET_FORMAT,
  syncDirectory,
  type PartitionOffset,
} from '../checkpoint/checkpoint-file.js';
import { randomUuid } from '@sluice/protocol/common/uuid.js';
import { readMetaProperties, writeMetaProperties, type MetaProperties } from '../checkpoint/meta-properties.js';
import {
  CLEAN_SHUTDOWN_FILE,
  CLEANER_OFFSET_CHECKPOINT_FILE,
  DELETE_DIR_SUFFIX,
  FUTURE_DIR_SUFFIX,
  LOG_START_OFFSET_CHECKPOINT_FILE,
  RECOVERY_POINT_CHECKPOINT_FILE,
  REPLICATION_OFFSET_CHECKPOINT_FILE,
  parsePartitionDirName,
  partitionDirName,
} from '../file-names.js';
import { DEFAULT_LOG_CONFIG, withOverrides, type LogConfig } from '../log-config.js';
import { isIoError, StorageError } from '../storage-error.js';
import { SegmentDeleter } from '../segment/segment-deleter.js';
import { LogCleaner, type LogCleanerOptions } from '../cleaner/log-cleaner.js';
import { LogDir } from './log-dir.js';
import { removeCleanShutdownMarker, writeCleanShutdownMarker } from './clean-shutdown-marker.js';
import { LogMove } from './log-move.js';
import { DIRECTORY_TO_SKIP, METADATA_LOG_DIR, partitionOfDir } from './partition-dirs.js';
import { PartitionLog } from './partition-log.js';
import { DEFAULT_PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS } from '../producer-state/producer-state-manager.js';
import { type TopicPartition } from '@sluice/protocol/common/topic-partition.js';

export interface LogManagerOptions {
  readonly logDirs: readonly string[];
  /** Broker-wide defaults (`log.*` settings under topic keys). */
  readonly defaultConfig?: LogConfig;
  /** Per-topic overrides, consulted when a log is opened or created. */
  readonly topicConfig?: (topic: string) => Readonly<Record<string, string | number>>;
  readonly clock?: () => number;
  readonly nodeId?: number;
  readonly clusterId?: string;
  /** Kafka's `log.flush.offset.checkpoint.interval.ms`. */
  readonly checkpointIntervalMs?: number;
  /** Only partitions for which this is true are loaded, created or cleaned up here. */
  readonly owns?: (tp: TopicPartition) => boolean;
  /**
   * Set when several managers (one per partition worker) share the log dirs. The caller then
   * formats the dirs, decides which were shut down cleanly (before any manager opens), and
   * writes the per-dir checkpoint files and clean-shutdown markers from every manager's
   * `checkpointEntries()`; this manager writes none of those shared files.
   */
  readonly shared?: { readonly cleanShutdownDirs: ReadonlySet<string> };
  /**
   * Compaction of `cleanup.policy=compact` logs, scheduled by `maintain` (Kafka's
   * `log.cleaner.enable`, default on); `false` turns it off.
   */
  readonly cleaner?: LogCleanerOptions | false;
  /** `producer.id.expiration.ms`, for every log this manager opens. */
  readonly producerIdExpirationMs?: number;
  /** `producer.id.expiration.check.interval.ms`: how often `maintain` forgets idle producers. */
  readonly producerIdExpirationCheckIntervalMs?: number;
}

/** One log dir's share of the per-dir checkpoint files, as one manager knows it. */
export interface LogDirCheckpoint {
  readonly path: string;
  readonly online: boolean;
  readonly recoveryPoints: readonly PartitionOffset[];
  readonly logStartOffsets: readonly PartitionOffset[];
  readonly highWatermarks: readonly PartitionOffset[];
  readonly cleanerOffsets: readonly PartitionOffset[];
}

export interface CreateLogOptions {
  readonly topicId?: string;
  readonly config?: Readonly<Record<string, string | number>>;
}

interface DirState {
  readonly dir: LogDir;
  meta: MetaProperties | null;
  readonly logs: Map<string, PartitionLog>;
  /** Future logs being filled in this dir, by partition directory name. */
  readonly futures: Map<string, PartitionLog>;
  cleanerOffsets: PartitionOffset[];
}

/** A partition's future log as DescribeLogDirs shows it. */
export interface FutureLogState {
  readonly log: PartitionLog;
  /** How far its log end is behind the current log's. */
  readonly lag: number;
}

const key = (tp: TopicPartition): string => partitionDirName(tp);

export class LogManager {
  readonly #dirs: DirState[];
  readonly #clock: () => number;
  readonly #producerIdExpirationMs: number | undefined;
  readonly #producerExpiryCheckIntervalMs: number;
  #lastProducerExpiryCheckMs: number;
  readonly #defaultConfig: LogConfig;
  readonly #topicConfig: (topic: string) => Readonly<Record<string, string | number>>;
  readonly #deleter = new SegmentDeleter();
  readonly #checkpointIntervalMs: number;
  readonly #owns: (tp: TopicPartition) => boolean;
  readonly #shared: LogManagerOptions['shared'];
  #lastCheckpointMs: number;
  #pendingDirDeletes: Array<{ path: string; dueMs: number }> = [];
  readonly #cleaner: LogCleaner | null;
  /** Where AlterReplicaLogDirs wants a partition that is not here yet (Kafka's `preferredLogDirs`). */
  readonly #preferredDirs = new Map<string, DirState>();
  readonly #moves = new Map<string, LogMove>();
  #closed = false;

  private constructor(options: LogManagerOptions) {
    this.#clock = options.clock ?? Date.now;
    this.#producerIdExpirationMs = options.producerIdExpirationMs;
    this.#defaultConfig = options.defaultConfig ?? DEFAULT_LOG_CONFIG;
    this.#topicConfig = options.topicConfig ?? (() => ({}));
    this.#checkpointIntervalMs = options.checkpointIntervalMs ?? 60_000;
    this.#owns = options.owns ?? (() => true);
    this.#shared = options.shared;
    this.#lastCheckpointMs = this.#clock();
    this.#producerExpiryCheckIntervalMs = options.producerIdExpirationCheckIntervalMs ?? DEFAULT_PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS;
    this.#lastProducerExpiryCheckMs = this.#lastCheckpointMs;
    this.#dirs = options.logDirs.map((path) => ({
      dir: new LogDir(path),
      meta: null,
      logs: new Map(),
      futures: new Map(),
      cleanerOffsets: [],
    }));
    this.#cleaner = options.cleaner === false ? null : new LogCleaner(options.cleaner ?? {}, this.#clock);
  }

  /** Loads every partition directory under every log dir. A dir that fails goes offline; the call still succeeds. */
  static open(options: LogManagerOptions): LogManager {
    if (options.logDirs.length === 0) throw new Error('at least one log dir is needed');
    const manager = new LogManager(options);
    for (const state of manager.#dirs) manager.#loadDir(state, options);
    for (const state of manager.#dirs) {
      for (const [name, future] of state.futures) {
        const current = manager.getLog(future.topicPartition);
        if (current === undefined) continue;
        if (current.logDir !== future.logDir) {
          manager.#moves.set(name, new LogMove(current, future));
          continue;
        }
        state.futures.delete(name);
        manager.#removeNow(future);
      }
    }
    return manager;
  }

  #loadDir(state: DirState, options: LogManagerOptions): void {
    const { dir } = state;
    try {
      mkdirSync(dir.path, { recursive: true });
      state.meta = readMetaProperties(dir.path);
      if (state.meta === null && this.#shared === undefined) {
        state.meta = { version: 1, clusterId: options.clusterId ?? null, nodeId: options.nodeId ?? null, directoryId: randomUuid() };
        writeMetaProperties(dir.path, state.meta);
      }
      const markerPath = join(dir.path, CLEAN_SHUTDOWN_FILE);
      const cleanShutdown = this.#shared === undefined ? existsSync(markerPath) : this.#shared.cleanShutdownDirs.has(dir.path);
      const recoveryPoints = readOffsets(join(dir.path, RECOVERY_POINT_CHECKPOINT_FILE));
      const startOffsets = readOffsets(join(dir.path, LOG_START_OFFSET_CHECKPOINT_FILE));
      const highWatermarks = readOffsets(join(dir.path, REPLICATION_OFFSET_CHECKPOINT_FILE));
      state.cleanerOffsets = [...readOffsets(join(dir.path, CLEANER_OFFSET_CHECKPOINT_FILE)).entries()].map(([k, offset]) => ({
        ...parsePartitionDirName(k)!,
        offset,
      }));
      // Entry types come from the listing itself: another worker sharing this log dir may remove
      // its own `-delete` directories meanwhile, and a stat of one would fail the whole dir.
      for (const entry of readdirSync(dir.path, { withFileTypes: true })) {
        const name = entry.name;
        const path = join(dir.path, name);
        if (name === METADATA_LOG_DIR || !entry.isDirectory()) continue;
        if (name.endsWith(DELETE_DIR_SUFFIX)) {
          const doomed = partitionOfDir(name);
          if (doomed !== null && this.#owns(doomed)) rmSync(path, { recursive: true, force: true });
          continue;
        }
        const isFuture = name.endsWith(FUTURE_DIR_SUFFIX);
        if (DIRECTORY_TO_SKIP.test(name) && !isFuture) continue;
        const tp = partitionOfDir(name);
        if (tp === null || !this.#owns(tp)) continue;
        const log = PartitionLog.open({
          topicPartition: tp,
          dir: path,
          logDir: dir,
          config: this.#configFor(tp.topic),
          recoveryPoint: recoveryPoints.get(key(tp)),
          logStartOffset: startOffsets.get(key(tp)),
          highWatermark: highWatermarks.get(key(tp)),
          cleanShutdown,
          clock: this.#clock,
          deleter: this.#deleter,
          producerIdExpirationMs: this.#producerIdExpirationMs,
        });
        if (isFuture) this.#addLoadedFuture(state, log);
        else this.#addLoadedLog(state, log);
      }
      if (cleanShutdown && this.#shared === undefined) removeCleanShutdownMarker(dir.path);
    } catch (e) {
      if (!isIoError(e) && !(e instanceof StorageError)) throw e;
      dir.markOffline(e);
    }
  }

  /**
   * A partition found in a second log dir: a crash came between the two renames of a swap, and
   * both copies hold every acknowledged record. The one with the larger log end stays.
   */
  #addLoadedLog(state: DirState, log: PartitionLog): void {
    const name = key(log.topicPartition);
    const other = this.#find(log.topicPartition);
    const otherLog = other?.logs.get(name);
    if (other === undefined || otherLog === undefined) {
      state.logs.set(name, log);
      return;
    }
    const [kept, keptIn, dropped, droppedIn] =
      log.logEndOffset > otherLog.logEndOffset ? [log, state, otherLog, other] : [otherLog, other, log, state];
    droppedIn.logs.delete(name);
    keptIn.logs.set(name, kept);
    this.#removeNow(dropped);
  }

  /** Two future logs of one partition: the second goes (a future is only a copy). */
  #addLoadedFuture(state: DirState, future: PartitionLog): void {
    if (this.futureLog(future.topicPartition) !== undefined) this.#removeNow(future);
    else state.futures.set(key(future.topicPartition), future);
  }

  /** Closes a log found at start-up that is not kept and removes its directory. */
  #removeNow(log: PartitionLog): void {
    log.abandon();
    rmSync(log.dir, { recursive: true, force: true });
  }

  #configFor(topic: string, overrides: Readonly<Record<string, string | number>> = {}): LogConfig {
    return withOverrides(withOverrides(this.#defaultConfig, this.#topicConfig(topic)), overrides);
  }

  get logDirs(): readonly LogDir[] {
    return this.#dirs.map((s) => s.dir);
  }

  /** `directory.id` of each log dir, from its meta.properties (null if it could not be read). */
  directoryId(logDir: LogDir): string | null {
    return this.#dirs.find((s) => s.dir === logDir)?.meta?.directoryId ?? null;
  }

  getLog(tp: TopicPartition): PartitionLog | undefined {
    return this.#find(tp)?.logs.get(key(tp));
  }

  /** The partition's future log (moving to another log dir), if any. */
  futureLog(tp: TopicPartition): PartitionLog | undefined {
    return this.#dirs.find((s) => s.futures.has(key(tp)))?.futures.get(key(tp));
  }

  /** Every future log, with how far it is behind its current log (-1 when that log is not here). */
  *futureLogs(): IterableIterator<FutureLogState> {
    for (const state of this.#dirs) {
      for (const [name, log] of state.futures) yield { log, lag: this.#moves.get(name)?.lag ?? -1 };
    }
  }

  /** The configured log dir named by `path` (as configured, or absolute); undefined if none is. */
  logDir(path: string): LogDir | undefined {
    return this.#dirByPath(path)?.dir;
  }

  #dirByPath(path: string): DirState | undefined {
    return this.#dirs.find((s) => s.dir.path === path || resolve(s.dir.path) === path);
  }

  /**
   * Kafka's `maybeUpdatePreferredLogDir`: the next creation of the partition's log puts it in
   * this dir, unless its current or future log is there already.
   */
  setPreferredLogDir(tp: TopicPartition, path: string): void {
    const state = this.#dirByPath(path);
    if (state === undefined) throw new KafkaError(ErrorCode.LOG_DIR_NOT_FOUND, `log dir ${path} is not configured`);
    if (state.logs.has(key(tp)) || state.futures.has(key(tp))) return;
    this.#preferredDirs.set(key(tp), state);
  }

  /**
   * Starts moving the partition's log to the log dir `path`: an empty future log
   * `<topic>-<partition>.<uuid>-future` there, filled by `advanceMoves`. Returns it (the existing
   * one if it is already there). KAFKA_STORAGE_ERROR while any log dir is offline (Kafka creates
   * no future log then, so that two dirs never hold one for the same partition).
   */
  createFutureLog(tp: TopicPartition, path: string): PartitionLog {
    this.#checkOpen();
    const target = this.#dirByPath(path);
    const current = this.getLog(tp);
    if (target === undefined) throw new KafkaError(ErrorCode.LOG_DIR_NOT_FOUND, `log dir ${path} is not configured`);
    if (current === undefined) throw new KafkaError(ErrorCode.REPLICA_NOT_AVAILABLE, `partition ${key(tp)} is not hosted here`);
    const existing = target.futures.get(key(tp));
    if (existing !== undefined) return existing;
    if (current.logDir === target.dir) throw new Error(`partition ${key(tp)} is already in ${path}`);
    const offline = this.#dirs.filter((s) => !s.dir.online).map((s) => s.dir.path);
    if (offline.length > 0)
      throw new StorageError(`cannot create a future log for ${key(tp)} while log dirs ${offline.join(', ')} are offline`);
    this.deleteFutureLog(tp);
    const future = PartitionLog.open({
      topicPartition: tp,
      dir: join(target.dir.path, `${key(tp)}.${randomUUID().replaceAll('-', '')}${FUTURE_DIR_SUFFIX}`),
      logDir: target.dir,
      config: current.config,
      topicId: current.topicId ?? undefined,
      cleanShutdown: true,
      clock: this.#clock,
      deleter: this.#deleter,
      producerIdExpirationMs: this.#producerIdExpirationMs,
    });
    target.futures.set(key(tp), future);
    this.#preferredDirs.delete(key(tp));
    this.#moves.set(key(tp), new LogMove(current, future));
    return future;
  }

  /**
   * Abandons the partition's move, if any: its future log is renamed `-delete` and removed later
   * (in an offline dir it is only let go of, as the dir takes no more writes).
   */
  deleteFutureLog(tp: TopicPartition): void {
    const state = this.#dirs.find((s) => s.futures.has(key(tp)));
    const future = state?.futures.get(key(tp));
    if (state === undefined || future === undefined) return;
    this.#moves.get(key(tp))?.stop();
    this.#moves.delete(key(tp));
    state.futures.delete(key(tp));
    if (state.dir.online) this.#retire(state, future);
    else future.abandon();
  }

  /**
   * The moves' copy work, up to about `maxBytes` in all (Kafka's ReplicaAlterLogDirsThread): each
   * future log takes the current log's next batches; one that has caught up replaces its current
   * log (`#swap`). Returns the partitions whose current log changed and the bytes copied. A move
   * whose dir fails stays where it is.
   */
  advanceMoves(maxBytes: number): { swapped: TopicPartition[]; copiedBytes: number } {
    this.#checkOpen();
    const swapped: TopicPartition[] = [];
    let copiedBytes = 0;
    const budget = Math.max(1, Math.floor(maxBytes / Math.max(1, this.#moves.size)));
    for (const [name, move] of [...this.#moves]) {
      // Kafka's `handleLogDirFailure` removes the future replicas of a failed dir: the move ends.
      if (!move.future.logDir.online) {
        this.deleteFutureLog(move.future.topicPartition);
        continue;
      }
      try {
        const step = move.copy(budget);
        copiedBytes += step.copiedBytes;
        if (!step.caughtUp) continue;
        this.#swap(name, move);
        swapped.push(move.current.topicPartition);
      } catch (e) {
        if (!(e instanceof StorageError)) throw e;
      }
    }
    return { swapped, copiedBytes };
  }

  /**
   * Kafka's `replaceCurrentWithFutureLog`, with the future caught up: see the class comment. The
   * new log's high watermark is the current log's; the cleaner's checkpoint moves with the log.
   */
  #swap(name: string, move: LogMove): void {
    const { current, future } = move;
    const source = this.#find(current.topicPartition)!;
    const target = this.#dirs.find((s) => s.futures.get(name) === future)!;
    future.close();
    const dir = join(target.dir.path, name);
    this.#rename(target, future.dir, dir);
    move.stop();
    this.#moves.delete(name);
    target.futures.delete(name);
    const log = PartitionLog.open({
      topicPartition: current.topicPartition,
      dir,
      logDir: target.dir,
      config: current.config,
      recoveryPoint: future.logEndOffset,
      logStartOffset: future.logStartOffset,
      highWatermark: current.highWatermark,
      cleanShutdown: true,
      clock: this.#clock,
      deleter: this.#deleter,
      producerIdExpirationMs: this.#producerIdExpirationMs,
    });
    move.carryEpochsTo(log);
    target.logs.set(name, log);
    source.logs.delete(name);
    const cleaned = source.cleanerOffsets.find((e) => key(e) === name);
    source.cleanerOffsets = source.cleanerOffsets.filter((e) => key(e) !== name);
    if (cleaned !== undefined) target.cleanerOffsets = [...target.cleanerOffsets.filter((e) => key(e) !== name), cleaned];
    this.#retire(source, current);
  }

  /** Renames a directory of `state`'s log dir durably; an I/O error takes the dir offline. */
  #rename(state: DirState, from: string, to: string): void {
    state.dir.checkOnline();
    try {
      renameSync(from, to);
      syncDirectory(state.dir.path);
    } catch (e) {
      if (isIoError(e)) state.dir.markOffline(e);
      throw new StorageError(`cannot rename ${from} to ${to}`, { cause: e });
    }
  }

  /** Closes a log no longer served and renames its directory `-delete`, removed after `file.delete.delay.ms`. */
  #retire(state: DirState, log: PartitionLog): void {
    log.abandon();
    const doomed = `${log.dir.replace(DIRECTORY_TO_SKIP, '')}.${randomUUID().replaceAll('-', '')}${DELETE_DIR_SUFFIX}`;
    this.#rename(state, log.dir, doomed);
    this.#pendingDirDeletes.push({ path: doomed, dueMs: this.#clock() + log.config['file.delete.delay.ms'] });
  }

  *logs(): IterableIterator<PartitionLog> {
    for (const state of this.#dirs) yield* state.logs.values();
  }

  /**
   * The partition's log, created if absent in the online log dir holding the fewest partitions
   * (Kafka's placement). KAFKA_STORAGE_ERROR if every log dir is offline.
   */
  getOrCreateLog(tp: TopicPartition, options: CreateLogOptions = {}): PartitionLog {
    this.#checkOpen();
    if (!this.#owns(tp)) throw new Error(`partition ${key(tp)} belongs to another log manager`);
    const existing = this.getLog(tp);
    if (existing !== undefined) return existing;
    const online = this.#dirs.filter((s) => s.dir.online);
    if (online.length === 0) throw new StorageError('no log dir is online');
    const preferred = this.#preferredDirs.get(key(tp));
    const target = preferred?.dir.online === true ? preferred : online.reduce((best, s) => (s.logs.size < best.logs.size ? s : best));
    const log = PartitionLog.open({
      topicPartition: tp,
      dir: join(target.dir.path, key(tp)),
      logDir: target.dir,
      config: this.#configFor(tp.topic, options.config),
      topicId: options.topicId,
      cleanShutdown: true,
      clock: this.#clock,
      deleter: this.#deleter,
      producerIdExpirationMs: this.#producerIdExpirationMs,
    });
    target.logs.set(key(tp), log);
    this.#preferredDirs.delete(key(tp));
    return log;
  }

  /**
   * Closes the log and renames its directory to `<topic>-<partition>.<uuid>-delete`; the
   * directory is removed after `file.delete.delay.ms` (leases keep their descriptors meanwhile).
   */
  deleteLog(tp: TopicPartition): void {
    // The future first: a crash in between must not leave a future log without its current one.
    this.deleteFutureLog(tp);
    this.#preferredDirs.delete(key(tp));
    const state = this.#find(tp);
    const log = state?.logs.get(key(tp));
    if (state === undefined || log === undefined) return;
    state.logs.delete(key(tp));
    state.cleanerOffsets = state.cleanerOffsets.filter((e) => key(e) !== key(tp));
    this.#retire(state, log);
  }

  /**
   * Periodic duties: each log's `maintain` (rolled-segment flushes, `flush.ms`, retention,
   * delayed unlinks) and, every `producer.id.expiration.check.interval.ms`, its producer
   * expiry; cleaning jobs for compacted logs that need one, deleted directories that
   * are due, and the checkpoints when their interval has passed. Logs on offline dirs are
   * skipped. Returns segments deleted by retention.
   */
  maintain(): number {
    this.#checkOpen();
    let deleted = 0;
    const startedMs = this.#clock();
    const expireProducers = startedMs - this.#lastProducerExpiryCheckMs >= this.#producerExpiryCheckIntervalMs;
    if (expireProducers) this.#lastProducerExpiryCheckMs = startedMs;
    for (const state of this.#dirs) {
      if (!state.dir.online) continue;
      for (const log of state.logs.values()) {
        try {
          deleted += log.maintain();
          if (expireProducers) log.removeExpiredProducers();
        } catch (e) {
          if (!(e instanceof StorageError)) throw e;
        }
      }
    }
    this.#scheduleCleaning();
    this.#deleter.run(this.#clock());
    const now = this.#clock();
    this.#pendingDirDeletes = this.#pendingDirDeletes.filter(({ path, dueMs }) => {
      if (dueMs > now) return true;
      rmSync(path, { recursive: true, force: true });
      return false;
    });
    if (this.#shared === undefined && now - this.#lastCheckpointMs >= this.#checkpointIntervalMs) this.checkpoint();
    return deleted;
  }

  /** Offers every compacted log to the cleaner; a finished job moves its `cleaner-offset-checkpoint` entry. */
  #scheduleCleaning(): void {
    if (this.#cleaner === null) return;
    const candidates = [];
    for (const state of this.#dirs) {
      if (!state.dir.online) continue;
      for (const log of state.logs.values()) {
        // Kafka pauses a moving log's cleaning: the swap replaces the log the job would write to.
        if (this.#moves.has(key(log.topicPartition))) continue;
        const checkpoint = state.cleanerOffsets.find((e) => key(e) === key(log.topicPartition))?.offset;
        candidates.push({ log, checkpoint });
      }
    }
    this.#cleaner.schedule(candidates, (log, firstDirtyOffset) => {
      const state = this.#find(log.topicPartition);
      if (state === undefined) return;
      state.cleanerOffsets = [
        ...state.cleanerOffsets.filter((e) => key(e) !== key(log.topicPartition)),
        { ...log.topicPartition, offset: firstDirtyOffset },
      ];
    });
  }

  /** Resolves once no cleaning job is in flight (tests, tools). */
  async cleaningIdle(): Promise<void> {
    await this.#cleaner?.idle();
  }

  /** Cleaning jobs in flight. */
  get cleaningJobs(): number {
    return this.#cleaner?.running ?? 0;
  }

  /** This manager's entries for each log dir's checkpoint files (its own partitions only). */
  checkpointEntries(): LogDirCheckpoint[] {
    return this.#dirs.map((state) => {
      const logs = [...state.logs.values(), ...state.futures.values()].filter((log) => !log.closed || this.#closed);
      const entries = (offset: (log: PartitionLog) => number): PartitionOffset[] =>
        logs.map((log) => ({ ...log.topicPartition, offset: offset(log) }));
      return {
        path: state.dir.path,
        online: state.dir.online,
        recoveryPoints: entries((log) => log.recoveryPoint),
        logStartOffsets: entries((log) => log.logStartOffset),
        highWatermarks: entries((log) => log.highWatermark),
        cleanerOffsets: state.cleanerOffsets.filter((e) => state.logs.has(key(e))),
      };
    });
  }

  /** Writes the recovery point, log start offset, high watermark and cleaner checkpoints of every online dir. */
  checkpoint(): void {
    for (const entries of this.checkpointEntries()) {
      if (!entries.online) continue;
      const state = this.#dirs.find((d) => d.dir.path === entries.path)!;
      try {
        writeLogDirCheckpoints(entries);
      } catch (e) {
        if (!isIoError(e)) throw e;
        state.dir.markOffline(e);
      }
    }
    this.#lastCheckpointMs = this.#clock();
  }

  /**
   * Clean shutdown: every log flushed and closed (indexes trimmed), checkpoints written, then
   * `.kafka_cleanshutdown` in each dir that stayed online.
   */
  close(): void {
    if (this.#closed) return;
    this.#stopCleaner();
    for (const state of this.#dirs) {
      for (const log of [...state.logs.values(), ...state.futures.values()]) {
        try {
          log.close();
        } catch (e) {
          if (!(e instanceof StorageError)) throw e;
        }
      }
    }
    this.#closed = true;
    if (this.#shared !== undefined) return;
    this.checkpoint();
    for (const state of this.#dirs) {
      if (!state.dir.online) continue;
      try {
        writeCleanShutdownMarker(state.dir.path);
      } catch (e) {
        if (!isIoError(e)) throw e;
        state.dir.markOffline(e);
      }
    }
  }

  /** Stops without flushing, checkpointing or writing the marker: the next open recovers (tests). */
  abandon(): void {
    this.#stopCleaner();
    for (const state of this.#dirs) for (const log of [...state.logs.values(), ...state.futures.values()]) log.abandon();
    this.#closed = true;
  }

  /** Jobs still running are discarded when they settle; a leftover `.cleaned` file goes at the next open. */
  #stopCleaner(): void {
    // Nothing waits for the pool's threads to stop: their jobs are discarded either way.
    this.#cleaner?.close().catch(() => undefined);
  }

  #find(tp: TopicPartition): DirState | undefined {
    return this.#dirs.find((s) => s.logs.has(key(tp)));
  }

  #checkOpen(): void {
    if (this.#closed) throw new StorageError('the log manager is closed');
  }
}

/** Offsets by partition directory name; an unreadable checkpoint counts as empty (everything is recovered). */
function readOffsets(path: string): Map<string, number> {
  let entries: PartitionOffset[] | null = null;
  try {
    entries = new CheckpointFile(path, PARTITION_OFFSET_FORMAT).read();
  } catch (e) {
    if (!(e instanceof CorruptCheckpointError)) throw e;
  }
  return new Map((entries ?? []).map((e) => [key(e), e.offset]));
}

function writeOffsets(path: string, entries: readonly PartitionOffset[]): void {
  new CheckpointFile(path, PARTITION_OFFSET_FORMAT).write(entries);
}

/** Writes one log dir's checkpoint files from the entries of every manager that shares it. */
export function writeLogDirCheckpoints(...shares: readonly LogDirCheckpoint[]): void {
  const path = shares[0]!.path;
  const all = (pick: (c: LogDirCheckpoint) => readonly PartitionOffset[]): PartitionOffset[] => shares.flatMap(pick);
  writeOffsets(
    join(path, RECOVERY_POINT_CHECKPOINT_FILE),
    all((c) => c.recoveryPoints),
  );
  writeOffsets(
    join(path, LOG_START_OFFSET_CHECKPOINT_FILE),
    all((c) => c.logStartOffsets),
  );
  writeOffsets(
    join(path, REPLICATION_OFFSET_CHECKPOINT_FILE),
    all((c) => c.highWatermarks),
  );
  writeOffsets(
    join(path, CLEANER_OFFSET_CHECKPOINT_FILE),
    all((c) => c.cleanerOffsets),
  );
}
